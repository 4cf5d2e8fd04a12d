"""The embedded virtual desktop (Linux): Xvfb + session D-Bus + AT-SPI bus and registry + openbox.

Every process starts in its own session (``start_new_session``) and carries the desktop's marker
variable; ``stop`` ends them by process group, sweeps marked stragglers, waits for them and removes
the X lock. A watchdog process ends the desktop when the owning process dies without stopping it.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import select
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Final

from deskhand.core.errors import BackendUnavailable
from deskhand.desktop import _openbox, _procs
from deskhand.desktop.atspi import A11yBus, a11y_address_from_session
from deskhand.desktop.registry import DesktopState, ProcessRecord, registry_dir, teardown

AT_SPI_LAUNCHER: Final = "/usr/libexec/at-spi-bus-launcher"
AT_SPI_REGISTRYD: Final = "/usr/libexec/at-spi2-registryd"
#: Variables that switch toolkit accessibility on for launched apps (GTK 3 needs nothing,
#: GTK 4 reads GTK_A11Y, Qt the QT_* pair, Chromium one of the others).
A11Y_APP_ENV: Final[Mapping[str, str]] = {
    "GTK_A11Y": "atspi",
    "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
    "QT_ACCESSIBILITY": "1",
    "GNOME_ACCESSIBILITY": "1",
    "ACCESSIBILITY_ENABLED": "1",
}
#: Inherited variables that would point a child at the wrong display, bus or session.
_DROP_ENV: Final = ("NO_AT_BRIDGE", "WAYLAND_DISPLAY", "SESSION_MANAGER", "DBUS_SESSION_BUS_PID", "XAUTHORITY")
_FIRST_DISPLAY: Final = 100
_LAST_DISPLAY: Final = 1000


def _display_in_use(n: int) -> bool:
    return Path(f"/tmp/.X{n}-lock").exists() or Path(f"/tmp/.X11-unix/X{n}").exists()  # noqa: S108


def _read_line(fd: int, deadline: float) -> bytes:
    """Read what a child writes to ``fd`` up to a newline or EOF, or until ``deadline``."""
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            break
        chunk = os.read(fd, 256)
        if not chunk:
            break
        data += chunk
    return data


def parse_size(text: str) -> tuple[int, int, int]:
    """``"1920x1080x24"`` or ``"1920x1080"`` -> (width, height, depth)."""
    parts = text.lower().split("x")
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        nums = []
    if len(nums) not in (2, 3) or min(nums) <= 0:
        raise ValueError(f"screen size must look like 1920x1080x24, got {text!r}")
    return nums[0], nums[1], nums[2] if len(nums) == 3 else 24


@dataclass(eq=False)
class LaunchedApp:
    """A process started inside a desktop; it is killed (with its process group) on desktop stop."""

    argv: list[str]
    popen: subprocess.Popen[bytes]
    log_path: Path
    desktop: VirtualDesktop = field(repr=False)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def running(self) -> bool:
        return self.popen.poll() is None

    def stop(self, grace_s: float = 2.0) -> int | None:
        """End the app's process group; return its exit code."""
        self.desktop._end_app(self, grace_s)
        return self.popen.poll()


class VirtualDesktop:
    """A private X11 desktop with an accessibility bus. Use as a context manager.

    Args:
        size: screen as ``(width, height, depth)`` or ``"WxHxD"``.
        wm: start openbox as the window manager (with deskhand's own configuration, ``_openbox``).
        detached: leave the desktop running when this process exits (``deskhand desktop start``);
            otherwise a watchdog ends it when the owner dies.
        start_timeout_s: deadline for the whole stack to come up.
        private_config: give the desktop's processes fresh XDG config, cache and state dirs
            (removed on stop), so apps start with default settings every time.
    """

    def __init__(
        self,
        *,
        size: tuple[int, int, int] | str = (1920, 1080, 24),
        wm: bool = True,
        detached: bool = False,
        start_timeout_s: float = 10.0,
        private_config: bool = True,
    ) -> None:
        self.width, self.height, self.depth = parse_size(size) if isinstance(size, str) else size
        self.wm = wm
        self.detached = detached
        self.start_timeout_s = start_timeout_s
        self.private_config = private_config
        self.id = secrets.token_hex(4)
        self.display: int | None = None
        self.env: dict[str, str] = {}
        #: seconds each start step took (xvfb, dbus, atspi, wm, total).
        self.timings: dict[str, float] = {}
        self.apps: list[LaunchedApp] = []
        self._popens: list[subprocess.Popen[bytes]] = []
        self._state: DesktopState | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._watchdog_fd: int | None = None
        self._logs: list[IO[bytes]] = []
        self.runtime_dir = registry_dir() / self.id

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> VirtualDesktop:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._state is not None

    def start(self) -> VirtualDesktop:
        """Start the whole stack; raise BackendUnavailable (after cleaning up) when a piece fails."""
        if self._state is not None:
            return self
        t0 = time.monotonic()
        deadline = t0 + self.start_timeout_s
        self.runtime_dir.mkdir(mode=0o700, parents=True)
        try:
            self._start_stack(t0, deadline)
        except BaseException:
            self.stop()
            raise
        self.timings["total"] = time.monotonic() - t0
        return self

    def _start_stack(self, t0: float, deadline: float) -> None:
        display, xvfb = self._start_xvfb(deadline)
        self.display = display
        self.env = {
            "DISPLAY": f":{display}",
            "XDG_RUNTIME_DIR": str(self.runtime_dir),
            "XDG_SESSION_TYPE": "x11",
            _procs.MARKER_ENV: self.id,
        }
        if self.private_config:
            # Fresh settings (dconf lives in XDG_CONFIG_HOME) make apps deterministic: no
            # "restore the previous session?" dialog after an earlier desktop killed the app.
            for name, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_STATE_HOME", "state")):
                (self.runtime_dir / sub).mkdir(mode=0o700, exist_ok=True)
                self.env[name] = str(self.runtime_dir / sub)
        self._state = DesktopState(
            id=self.id, display=display, width=self.width, height=self.height, depth=self.depth,
            wm=self.wm, env=self.env, runtime_dir=str(self.runtime_dir),
            owner_pid=None if self.detached else os.getpid(),
            owner_ticks=None if self.detached else _procs.start_ticks(os.getpid()),
            created_at=time.time(),
        )  # fmt: skip
        self._record("xvfb", xvfb)
        if not self.detached:
            self._start_watchdog()
        self.timings["xvfb"] = time.monotonic() - t0
        wm = None
        if self.wm:
            # deskhand's own rc.xml: no button grabs on client windows (see ``_openbox``).
            config = _openbox.write_config(self.runtime_dir)
            wm = self._spawn("openbox", ["openbox", "--sm-disable", "--config-file", str(config)])
        t1 = time.monotonic()
        self._start_dbus(deadline)
        self.timings["dbus"] = time.monotonic() - t1
        t1 = time.monotonic()
        self._start_atspi(deadline)
        self.timings["atspi"] = time.monotonic() - t1
        if wm is not None:
            t1 = time.monotonic()
            self._wait_wm(wm, deadline)
            self.timings["wm"] = time.monotonic() - t1
        self._state.env = self.env
        self._state.save()

    def _base_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _DROP_ENV}
        env.update(self.env)
        return env

    def _log(self, role: str) -> IO[bytes]:
        log = (self.runtime_dir / f"{role}.log").open("ab")
        self._logs.append(log)
        return log

    def _spawn(
        self, role: str, argv: Sequence[str], *, pass_fds: Sequence[int] = (), env: Mapping[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        try:
            proc = subprocess.Popen(
                list(argv), env=dict(env) if env is not None else self._base_env(),
                stdin=subprocess.DEVNULL, stdout=self._log(role), stderr=subprocess.STDOUT,
                pass_fds=tuple(pass_fds), start_new_session=True,
            )  # fmt: skip
        except FileNotFoundError as exc:
            from deskhand.desktop.doctor import APT_LINE  # noqa: PLC0415 - only on this error

            raise BackendUnavailable(
                f"desktop: {argv[0]} is not installed; install it with `{APT_LINE}` (or `make deps` in a clone)"
            ) from exc
        self._popens.append(proc)
        if self._state is not None:
            self._record(role, proc)
        return proc

    def _record(self, role: str, proc: subprocess.Popen[bytes]) -> None:
        if self._state is None:
            raise RuntimeError("desktop: no state to record a process in")
        self._state.processes.append(ProcessRecord(role, proc.pid, _procs.start_ticks(proc.pid)))
        self._state.save()

    def _start_xvfb(self, deadline: float) -> tuple[int, subprocess.Popen[bytes]]:
        geometry = f"{self.width}x{self.height}x{self.depth}"
        first = random.randrange(_FIRST_DISPLAY, _LAST_DISPLAY)  # noqa: S311 - spreads parallel starts
        span = _LAST_DISPLAY - _FIRST_DISPLAY
        for i in range(span):
            n = _FIRST_DISPLAY + (first - _FIRST_DISPLAY + i) % span
            if _display_in_use(n):
                continue
            r, w = os.pipe()
            argv = ["Xvfb", f":{n}", "-screen", "0", geometry, "-nolisten", "tcp", "-ac", "-noreset"]
            try:
                proc = self._spawn("xvfb", [*argv, "-displayfd", str(w)], pass_fds=(w,))
            finally:
                os.close(w)
            try:
                line = _read_line(r, deadline)
            finally:
                os.close(r)
            if line.strip().isdigit():
                return int(line.strip()), proc
            _procs.terminate([proc.pid], None, grace_s=1.0)
            proc.poll()
            if time.monotonic() >= deadline:
                break
        raise BackendUnavailable(f"desktop: Xvfb did not start (see {self.runtime_dir / 'xvfb.log'})")

    def _start_dbus(self, deadline: float) -> None:
        r, w = os.pipe()
        argv = ["dbus-daemon", "--session", "--nofork", "--nosyslog",
                f"--address=unix:path={self.runtime_dir / 'bus'}", f"--print-address={w}"]  # fmt: skip
        try:
            self._spawn("dbus", argv, pass_fds=(w,))
        finally:
            os.close(w)
        try:
            address = _read_line(r, deadline).decode().strip()
        finally:
            os.close(r)
        if not address:
            raise BackendUnavailable("desktop: dbus-daemon did not start (apt-get install dbus)")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address

    def _start_atspi(self, deadline: float) -> None:
        self._spawn("atspi-launcher", [AT_SPI_LAUNCHER, "--launch-immediately"])
        address = a11y_address_from_session(
            self.env["DBUS_SESSION_BUS_ADDRESS"], timeout_s=max(0.1, deadline - time.monotonic())
        )
        self.env["AT_SPI_BUS_ADDRESS"] = address
        self._spawn("atspi-registryd", [AT_SPI_REGISTRYD])
        with A11yBus(address) as bus:
            if not bus.wait_registry(deadline):
                raise BackendUnavailable("desktop: the AT-SPI registry did not start (apt-get install at-spi2-core)")

    def _wait_wm(self, wm: subprocess.Popen[bytes], deadline: float) -> None:
        from Xlib import display as xdisplay  # noqa: PLC0415 - only needed here

        d = xdisplay.Display(self.env["DISPLAY"])
        try:
            check = d.intern_atom("_NET_SUPPORTING_WM_CHECK")
            root = d.screen().root
            while root.get_full_property(check, 0) is None:
                if wm.poll() is not None or time.monotonic() >= deadline:
                    raise BackendUnavailable("desktop: openbox did not start (apt-get install openbox)")
                time.sleep(0.005)
        finally:
            d.close()

    def _start_watchdog(self) -> None:
        """A separate process that tears the desktop down when our end of its pipe closes."""
        if self._state is None:
            raise RuntimeError("desktop: the watchdog needs the desktop's state file")
        r, w = os.pipe()
        env = {k: v for k, v in os.environ.items() if k != _procs.MARKER_ENV}
        src = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
        try:
            self._watchdog = subprocess.Popen(
                [sys.executable, "-m", "deskhand.desktop._watchdog", str(self._state.path)],
                stdin=r, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=env, start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(r)
        self._watchdog_fd = w

    def stop(self) -> None:
        """End every process of the desktop and its apps, wait for them, remove locks and state."""
        if self._state is not None:
            teardown(self._state)
        elif self._popens:
            _procs.terminate([p.pid for p in self._popens], self.id)
        for proc in [*self._popens, *(app.popen for app in self.apps)]:
            _reap(proc)
        self._popens.clear()
        self._state = None
        if self._watchdog_fd is not None:
            os.close(self._watchdog_fd)
            self._watchdog_fd = None
        if self._watchdog is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._watchdog.wait(timeout=5)
            self._watchdog = None
        for log in self._logs:
            log.close()
        self._logs.clear()
        if self.runtime_dir.exists():
            import shutil  # noqa: PLC0415

            shutil.rmtree(self.runtime_dir, ignore_errors=True)

    # -- apps --------------------------------------------------------------------------------
    def app_env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a process inside the desktop, with toolkit accessibility on."""
        env = self._base_env()
        env.update(A11Y_APP_ENV)
        if extra:
            env.update(extra)
        return env

    def launch(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        log_path: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> LaunchedApp:
        """Start ``argv`` inside the desktop; its stdout and stderr go to ``log_path``."""
        if self._state is None:
            raise BackendUnavailable("desktop: launch() needs a started desktop")
        path = Path(log_path) if log_path is not None else self.runtime_dir / f"app-{len(self.apps)}.log"
        with path.open("ab") as log:
            try:
                proc = subprocess.Popen(
                    list(argv), env=self.app_env(env), cwd=cwd, stdin=subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                )  # fmt: skip
            except FileNotFoundError as exc:
                raise BackendUnavailable(f"desktop: cannot launch {argv[0]!r}: not found") from exc
        app = LaunchedApp(list(argv), proc, path, self)
        self.apps.append(app)
        self._record(f"app:{Path(argv[0]).name}", proc)
        return app

    def _end_app(self, app: LaunchedApp, grace_s: float) -> None:
        _procs.terminate([app.pid], None, grace_s=grace_s)
        _reap(app.popen)
        if self._state is not None:
            self._state.processes = [p for p in self._state.processes if p.pid != app.pid]
            self._state.save()

    def wait_for_window(self, pid: int, timeout_s: float = 10.0) -> int:
        """Poll the window manager's client list until ``pid`` has a mapped window; its id.

        An app reaches the AT-SPI bus before its window is mapped; call this before acting on it.
        """
        return wait_for_window(self.env["DISPLAY"], pid, timeout_s)

    def a11y(self, timeout_s: float = 2.0) -> A11yBus:
        """A new connection to this desktop's AT-SPI bus (close it, or use ``with``)."""
        return A11yBus(self.env["AT_SPI_BUS_ADDRESS"], timeout_s=timeout_s)

    def exports(self) -> str:
        """The client environment as ``export NAME=value`` lines."""
        import shlex  # noqa: PLC0415

        return "".join(f"export {k}={shlex.quote(v)}\n" for k, v in sorted(self.env.items()))


def _window_of(d: object, wid: int, wm_pid: int) -> int | None:
    """The pid of a mapped client window, or None (unmapped, no pid, or already destroyed)."""
    from Xlib import X, Xatom  # noqa: PLC0415
    from Xlib.error import XError  # noqa: PLC0415

    win = d.create_resource_object("window", wid)  # type: ignore[attr-defined]
    try:
        prop = win.get_full_property(wm_pid, Xatom.CARDINAL)
        viewable = win.get_attributes().map_state == X.IsViewable
    except XError:  # the client list can name a window that is being destroyed
        return None
    return int(prop.value[0]) if prop is not None and viewable else None


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Collect an ended child's exit status. After SIGKILL the kernel may still be tearing down the
    process's other threads for a moment, so wait briefly instead of a single poll."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def wait_for_window(display: str, pid: int, timeout_s: float = 10.0) -> int:
    """Poll ``display``'s ``_NET_CLIENT_LIST`` until ``pid`` has a mapped window; return its id."""
    from Xlib import Xatom  # noqa: PLC0415 - keep importing the desktop light
    from Xlib import display as xdisplay  # noqa: PLC0415

    deadline = time.monotonic() + timeout_s
    d = xdisplay.Display(display)
    try:
        clients, wm_pid = d.intern_atom("_NET_CLIENT_LIST"), d.intern_atom("_NET_WM_PID")
        root = d.screen().root
        while True:
            listed = root.get_full_property(clients, Xatom.WINDOW)
            for wid in listed.value if listed is not None else []:
                if _window_of(d, int(wid), wm_pid) == pid:
                    return int(wid)
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no mapped window of pid {pid} within {timeout_s} s")
            time.sleep(0.01)  # polling the client list with a deadline
    finally:
        d.close()
