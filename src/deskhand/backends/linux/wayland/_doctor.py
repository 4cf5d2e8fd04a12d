"""``deskhand doctor`` on a Wayland session: the compositor, the protocols deskhand drives, sway's IPC
(on KWin: ``kwin.doctor``'s checks instead of the wlroots ones).

Each check says what it found and, when it failed, how to fix it (``qt_wayland``: Qt 5 installed
without its Wayland platform plugin, so its apps cannot start natively); the bus and JavaScript checks are
the X11 report's own (``deskhand.desktop.doctor``). A session is judged Wayland when
``WAYLAND_DISPLAY`` is set and ``DISPLAY`` is not (:func:`is_wayland_session`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland.kwin.doctor import kwin_checks
from deskhand.backends.linux.wayland.registry import compositor_name
from deskhand.backends.linux.wayland.sway.ipc import GET_VERSION, SwayIPC
from deskhand.core.errors import BackendUnavailable
from deskhand.desktop.doctor import Check

__all__ = ()

FIX_WAYLAND: Final = (
    'start a Wayland desktop: `eval "$(deskhand desktop start --wayland)"` (needs sway: apt-get install sway), '
    "or set WAYLAND_DISPLAY (and XDG_RUNTIME_DIR) to a running compositor's socket"
)
FIX_WLR: Final = (
    "the compositor does not offer {iface}: deskhand drives wlroots compositors (sway, Hyprland, labwc, river); "
    "GNOME does not offer the wlroots protocols, so run on a wlroots or KDE Plasma session or use "
    "`deskhand desktop start --wayland`"
)
FIX_IPC: Final = (
    "set SWAYSOCK to sway's IPC socket (`swaymsg -t get_version` must answer); deskhand reads the window "
    "inventory (pid, app_id, title, rect) from it"
)
FIX_QT: Final = (
    "Qt 5 apps need Qt's Wayland platform plugin to start natively (QT_QPA_PLATFORM=wayland): "
    "apt-get install qtwayland5 (Fedora: qt5-qtwayland)"
)
#: Where distributions put Qt 5's platform plugins (multiarch Debian, then the plain layouts).
QT5_PLATFORMS: Final = (
    "/usr/lib/*/qt5/plugins/platforms",
    "/usr/lib/qt5/plugins/platforms",
    "/usr/lib64/qt5/plugins/platforms",
)
#: Check name -> the global it needs.
PROTOCOLS: Final = (
    ("seat", "wl_seat"),
    ("virtual_pointer", "zwlr_virtual_pointer_manager_v1"),
    ("virtual_keyboard", "zwp_virtual_keyboard_manager_v1"),
    ("screencopy", "zwlr_screencopy_manager_v1"),
    ("data_control", "zwlr_data_control_manager_v1"),
)


def is_wayland_session(env: Mapping[str, str]) -> bool:
    """``WAYLAND_DISPLAY`` without ``DISPLAY``, or with a compositor named (``DESKHAND_COMPOSITOR``:
    a GNOME or KDE session runs XWayland, whose ``DISPLAY`` would choose the X11 backend)."""
    return bool(env.get("WAYLAND_DISPLAY")) and (not env.get("DISPLAY") or bool(env.get("DESKHAND_COMPOSITOR")))


def wayland_checks(env: Mapping[str, str]) -> list[Check]:
    """The display half of the report on a Wayland session."""
    try:
        client = Client(env, timeout_s=1.0)
    except BackendUnavailable as exc:
        if compositor_name(env) == "kwin":
            return [Check("wayland", False, exc.message, FIX_WAYLAND), *kwin_checks(env), qt_check()]
        return [
            Check("wayland", False, exc.message, FIX_WAYLAND),
            *(Check(name, False, "needs the compositor", "fix the wayland check first") for name, _ in PROTOCOLS),
            _ipc_check(env),
            qt_check(),
        ]
    try:
        sizes = ", ".join(f"{o.width}x{o.height}+{o.x}+{o.y}" for o in client.outputs) or "no output"
        out = [Check("wayland", True, f"{env.get('WAYLAND_DISPLAY')} ({sizes})", data={"outputs": sizes})]
        if compositor_name(env) == "kwin":
            return [*out, *kwin_checks(env), qt_check()]
        if compositor_name(env) == "gnome":  # no wlroots protocols: the extension and Mutter's APIs
            from deskhand.backends.linux.wayland.gnome._doctor import gnome_checks  # noqa: PLC0415 - GNOME only

            return [*out, *gnome_checks(env), qt_check()]
        for name, iface in PROTOCOLS:
            proxy = client.globals.get(iface)
            if proxy is None:
                out.append(Check(name, False, f"{iface} missing", FIX_WLR.format(iface=iface)))
            else:
                out.append(Check(name, True, f"{iface} v{proxy.version}"))
    finally:
        client.close()
    return [*out, _ipc_check(env), qt_check()]


def qt_check(patterns: Sequence[str] = QT5_PLATFORMS) -> Check:
    """Qt 5 installed without its Wayland platform plugin: its apps fail to start on Wayland."""
    dirs = [d for pattern in patterns for d in Path("/").glob(pattern.lstrip("/")) if d.is_dir()]
    if not any((d / "libqxcb.so").exists() for d in dirs):
        return Check("qt_wayland", True, "no Qt 5 platform plugins here")
    found = [str(f) for d in dirs for f in sorted(d.glob("libqwayland-*.so"))]
    if not found:
        return Check("qt_wayland", False, "Qt 5 has no Wayland platform plugin", FIX_QT)
    return Check("qt_wayland", True, f"{len(found)} Qt 5 Wayland plugin(s)", data={"plugins": found})


def _ipc_check(env: Mapping[str, str]) -> Check:
    try:
        with SwayIPC(env=env, timeout_s=1.0) as ipc:
            version = ipc.call(GET_VERSION)
            views = ipc.views()
    except BackendUnavailable as exc:
        return Check("sway_ipc", False, exc.message, FIX_IPC)
    detail = f"sway {version.get('human_readable', '?')}, {len(views)} window(s)"
    return Check("sway_ipc", True, detail, data={"windows": [{"pid": v.pid, "app_id": v.app_id} for v in views]})
