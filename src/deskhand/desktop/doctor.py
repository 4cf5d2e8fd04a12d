"""``deskhand doctor``: a readiness report of the desktop deskhand would operate (Linux X11).

Each check returns a :class:`Check` with what it found and, when it failed, how to fix it. The
report reads the environment it is given (``DISPLAY``, ``XAUTHORITY``, ``DBUS_SESSION_BUS_ADDRESS``,
``AT_SPI_BUS_ADDRESS``), so it can judge a virtual desktop from outside. Besides readiness it flags
an X server with access control off (``x_access``) and a session whose ``org.a11y.Status
IsEnabled`` is false (``accessibility``: apps started then keep their trees off the bus).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from deskhand.core.errors import BackendUnavailable
from deskhand.desktop import _procs, _xauth
from deskhand.desktop.atspi import A11yBus, SessionBusUnreachable, a11y_address_from_session, a11y_status

#: The Debian/Ubuntu packages a pip install of deskhand needs: its private desktop, and libjpeg-turbo
#: for screenshots (pixman, the other imaging library, comes with Xvfb).
DEBIAN_PACKAGES: Final = ("xvfb", "xauth", "dbus", "at-spi2-core", "openbox", "libturbojpeg0")
APT_LINE: Final = "sudo apt-get install --no-install-recommends " + " ".join(DEBIAN_PACKAGES)

FIX_DISPLAY: Final = (
    'run inside a virtual desktop: `deskhand desktop run -- CMD`, or `eval "$(deskhand desktop start)"`; '
    f"Xvfb and the rest of the desktop come from `{APT_LINE}`"
)
FIX_WM: Final = (
    "start a window manager on this display: `openbox --sm-disable &` (apt-get install openbox); "
    "`deskhand desktop start` starts one unless --no-wm is given"
)
FIX_EXTENSION: Final = "the X server lacks the {name} extension; Xvfb has it by default (Xvfb +extension {name})"
FIX_SESSION_BUS: Final = (
    "set DBUS_SESSION_BUS_ADDRESS to a running session bus (apt-get install dbus), or use `deskhand desktop run -- CMD`"
)
FIX_ATSPI: Final = (
    "start the AT-SPI bus: apt-get install at-spi2-core, then run /usr/libexec/at-spi-bus-launcher "
    "on the session bus, or use `deskhand desktop run -- CMD`"
)
FIX_XAUTH: Final = (
    "the X server wants a cookie: set XAUTHORITY to the desktop's Xauthority file "
    "(`deskhand desktop status ID` prints it), or `xauth merge` it into ~/.Xauthority"
)
FIX_X_ACCESS: Final = (
    "access control is off, so every local user can connect and type into its apps: start the X server "
    "without -ac (with an Xauthority cookie; `deskhand desktop start` does), or run `xhost -`"
)
FIX_A11Y: Final = (
    "apps started now keep their accessibility off: run `gsettings set org.gnome.desktop.interface "
    "toolkit-accessibility true`, or `busctl --user set-property org.a11y.Bus /org/a11y/bus org.a11y.Status "
    "IsEnabled b true` (dbus-send --session --dest=org.a11y.Bus /org/a11y/bus org.freedesktop.DBus.Properties.Set "
    "string:org.a11y.Status string:IsEnabled variant:boolean:true), then restart the apps; "
    "`deskhand desktop start` does this on its desktops"
)
FIX_CLIPBOARD: Final = "the X server refused selection ownership; use a desktop started by `deskhand desktop`"
FIX_QUICKJS: Final = (
    "install the JavaScript engine where deskhand runs: `pip install 'quickjs-ng>=0.17.0.2,<0.18'` "
    "(a normal `pip install deskhand` brings it)"
)

_EXTENSIONS: Final = (("xtest", "XTEST"), ("xcomposite", "Composite"), ("xshm", "MIT-SHM"))


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the report."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Report:
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [{**asdict(c), "data": dict(c.data)} for c in self.checks]}

    def to_text(self) -> str:
        lines = []
        for c in self.checks:
            lines.append(f"{'ok  ' if c.ok else 'FAIL'}  {c.name:<14} {c.detail}")
            if c.fix and not c.ok:
                lines.append(f"      {'':<14} fix: {c.fix}")
        lines.append("ready" if self.ok else f"not ready: {len(self.failed())} problem(s)")
        return "\n".join(lines)


def _x_checks(display_name: str | None, xauthority: str | None = None) -> list[Check]:
    from Xlib import X, Xatom, error  # noqa: PLC0415 - keep `import deskhand.desktop` light
    from Xlib import display as xdisplay  # noqa: PLC0415

    try:
        if not display_name:
            raise ValueError("DISPLAY is not set")
        local = display_name.split(".")[0]
        if local.startswith(":") and local[1:].isdigit() and not _procs.x_socket(int(local[1:])).exists():
            raise OSError(f"no X server socket for {local}")
        with _xauth.authority(xauthority):
            d = xdisplay.Display(display_name)
    except (error.DisplayError, error.ConnectionClosedError, OSError, ValueError) as exc:
        why = f"cannot open display {display_name!r}: {exc}" if display_name else "DISPLAY is not set"
        refused = "authoriz" in str(exc).lower()
        names = ["x_access", "window_manager", "xtest", "xcomposite", "xshm", "clipboard"]
        return [
            Check("display", False, why, FIX_XAUTH if refused else FIX_DISPLAY),
            *(Check(n, False, "needs the display", "fix the display check first") for n in names),
        ]
    try:
        screen = d.screen()
        size = f"{screen.width_in_pixels}x{screen.height_in_pixels}x{screen.root_depth}"
        out = [Check("display", True, f"{display_name} {size}", data={"display": display_name, "size": size})]
        out.append(_access_check(d, X))
        out.append(_wm_check(d, X, Xatom))
        for key, ext in _EXTENSIONS:
            present = d.query_extension(ext) is not None
            detail = f"{ext} available" if present else f"{ext} missing"
            out.append(Check(key, present, detail, None if present else FIX_EXTENSION.format(name=ext)))
        out.append(_clipboard_check(d, X, Xatom))
        return out
    finally:
        d.close()


def _access_check(d: Any, X: Any) -> Check:  # noqa: N803 - Xlib module names
    """Whether the server checks who connects (ListHosts: its access mode and host list)."""
    reply = d.list_hosts()
    hosts = [f"{h.family}:{bytes(h.name).decode('utf-8', 'replace')}" for h in reply.hosts]
    data = {"enabled": reply.mode == X.EnableAccess, "hosts": hosts}
    if reply.mode != X.EnableAccess:
        return Check("x_access", False, "access control is off (any local client may connect)", FIX_X_ACCESS, data)
    detail = "access control on" + (f", hosts allowed without a cookie: {', '.join(hosts)}" if hosts else "")
    return Check("x_access", True, detail, data=data)


def _wm_check(d: Any, X: Any, Xatom: Any) -> Check:  # noqa: N803 - Xlib module names
    root = d.screen().root
    prop = root.get_full_property(d.intern_atom("_NET_SUPPORTING_WM_CHECK"), Xatom.WINDOW)
    if prop is None or not prop.value:
        return Check("window_manager", False, "no window manager (no _NET_SUPPORTING_WM_CHECK)", FIX_WM)
    wid = int(prop.value[0])
    name = ""
    try:
        win = d.create_resource_object("window", wid)
        got = win.get_full_property(d.intern_atom("_NET_WM_NAME"), d.intern_atom("UTF8_STRING"))
        if got is not None:
            raw = got.value
            name = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    except Exception:  # a vanished check window only loses the name
        name = ""
    return Check("window_manager", True, name or "present", data={"name": name, "window": wid})


def _clipboard_check(d: Any, X: Any, Xatom: Any) -> Check:  # noqa: N803
    """Own a private selection with a real server timestamp (never the user's CLIPBOARD)."""
    root = d.screen().root
    win = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent, event_mask=X.PropertyChangeMask)
    try:
        probe = d.intern_atom("DESKHAND_DOCTOR_PROBE")
        win.change_property(probe, Xatom.STRING, 8, b"probe")
        d.flush()
        stamp = None
        deadline = time.monotonic() + 2.0
        while stamp is None and time.monotonic() < deadline:
            if d.pending_events():
                ev = d.next_event()
                if ev.type == X.PropertyNotify:
                    stamp = ev.time
            else:
                time.sleep(0.002)
        if stamp is None:
            return Check("clipboard", False, "no server timestamp for selection ownership", FIX_CLIPBOARD)
        win.set_selection_owner(probe, stamp)
        owner = d.get_selection_owner(probe)
        owned = getattr(owner, "id", owner) == win.id
        clip_owner = d.get_selection_owner(d.intern_atom("CLIPBOARD"))
        clip = getattr(clip_owner, "id", clip_owner)
        detail = "selection ownership works" + (f" (CLIPBOARD owned by 0x{clip:x})" if clip else "")
        return Check("clipboard", owned, detail, None if owned else FIX_CLIPBOARD)
    finally:
        win.destroy()  # also gives up the probe selection
        d.flush()


def _bus_checks(env: Mapping[str, str]) -> list[Check]:
    session = env.get("DBUS_SESSION_BUS_ADDRESS")
    address = env.get("AT_SPI_BUS_ADDRESS")
    out: list[Check] = []
    if session:
        try:
            found = a11y_address_from_session(session, timeout_s=1.0)
            out.append(Check("session_bus", True, "reachable", data={"address": session}))
            address = address or found
            out.append(_a11y_check(session))
        except SessionBusUnreachable as exc:
            out.append(Check("session_bus", False, exc.message, FIX_SESSION_BUS))
        except BackendUnavailable as exc:
            out.append(Check("session_bus", True, f"reachable; {exc.message}", data={"address": session}))
    else:
        out.append(Check("session_bus", False, "DBUS_SESSION_BUS_ADDRESS is not set", FIX_SESSION_BUS))
    if not address:
        return [*out, Check("atspi_bus", False, "no AT-SPI bus address", FIX_ATSPI)]
    try:
        with A11yBus(address, timeout_s=1.0) as bus:
            if not bus.registry_ready():
                return [*out, Check("atspi_bus", False, "the AT-SPI registry is not running", FIX_ATSPI)]
            apps = bus.apps()
    except (BackendUnavailable, TimeoutError, OSError) as exc:
        return [*out, Check("atspi_bus", False, str(exc), FIX_ATSPI)]
    listing = ", ".join(f"{a.name or a.bus_name} (pid {a.pid})" for a in apps) or "none yet"
    data = {"address": address, "apps": [{"name": a.name, "pid": a.pid, "bus_name": a.bus_name} for a in apps]}
    return [*out, Check("atspi_bus", True, f"{len(apps)} app(s): {listing}", data=data)]


def _a11y_check(session: str) -> Check:
    try:
        status = a11y_status(session)
    except BackendUnavailable as exc:
        return Check("accessibility", False, f"cannot read org.a11y.Status: {exc.message}", FIX_A11Y)
    if status.get("IsEnabled"):
        return Check("accessibility", True, "org.a11y.Status IsEnabled is true", data=status)
    return Check("accessibility", False, "org.a11y.Status IsEnabled is false", FIX_A11Y, data=status)


def _quickjs_check() -> Check:
    try:
        module = importlib.import_module("quickjs")
    except ImportError as exc:
        return Check("javascript", False, f"import quickjs failed: {exc}", FIX_QUICKJS)
    version = getattr(module, "__version__", "")
    return Check("javascript", True, f"quickjs importable {version}".strip())


CHECKS: Final[tuple[Callable[[Mapping[str, str]], list[Check]], ...]] = (
    lambda env: _x_checks(env.get("DISPLAY"), env.get("XAUTHORITY")),
    _bus_checks,
    lambda env: [_quickjs_check()],
)


def run_doctor(
    env: Mapping[str, str],
    extra: Sequence[Callable[[], Check]] = (),
    display: Callable[[Mapping[str, str]], list[Check]] | None = None,
) -> Report:
    """Run every check against the desktop that ``env`` points at, then the ``extra`` ones
    (``deskhand doctor`` adds the js worker's confinement, which lives in the kernel layer).
    ``display`` replaces the X11 checks (the CLI passes the Wayland ones on a Wayland session)."""
    groups = CHECKS if display is None else (display, *CHECKS[1:])
    return Report([c for group in groups for c in group(env)] + [check() for check in extra])
