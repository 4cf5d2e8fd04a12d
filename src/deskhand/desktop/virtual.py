"""The embedded virtual desktop (Linux): Xvfb + session D-Bus + AT-SPI bus and registry + openbox.

Every process starts clean (``_spawn``: its own session, default signal dispositions, an empty
signal mask) and carries the desktop's marker variable; ``stop`` ends them by process group, sweeps
marked stragglers, waits for them and removes the X lock. The X server has access control on (a
cookie in the desktop's private directory, ``_xauth``), and accessibility is on for every toolkit
(``org.a11y.Status IsEnabled`` and the variables in ``_env``). A watchdog that is no child of the
owner ends the desktop when the owning process dies without stopping it (``_watchdog``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Final

from deskhand.core.errors import BackendUnavailable
from deskhand.desktop import _buses, _openbox, _procs, _spawn, _xauth, _xsettings, _xvfb, compositors
from deskhand.desktop._env import A11Y_APP_ENV, PRIVATE_DIRS, a11y_env, exports_text, gtk_modules, user_policy_path
from deskhand.desktop._spawn import Child
from deskhand.desktop._startup import (
    parse_size,
    start_watchdog,
    wait_watchdog,
)
from deskhand.desktop._startup import tail as log_tail
from deskhand.desktop._windows import wait_for_window
from deskhand.desktop.atspi import A11yBus
from deskhand.desktop.registry import DesktopState, ProcessRecord, registry_dir, teardown

__all__ = ["A11Y_APP_ENV", "LaunchedApp", "VirtualDesktop", "a11y_env", "parse_size", "wait_for_window"]

#: Inherited variables that would point a child at the wrong display, bus or session.
_DROP_ENV: Final = ("NO_AT_BRIDGE", "WAYLAND_DISPLAY", "SESSION_MANAGER", "DBUS_SESSION_BUS_PID", "XAUTHORITY")


@dataclass(eq=False)
class LaunchedApp:
    """A process started inside a desktop; it is killed (with its process group) on desktop stop."""

    argv: list[str]
    popen: Child
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
    """A private X11 (or Wayland) desktop with an accessibility bus. Use as a context manager.

    Args:
        size: screen as ``(width, height, depth)`` or ``"WxHxD"``.
        wm: start openbox as the window manager (with deskhand's own configuration, ``_openbox``).
        detached: leave the desktop running when this process exits (``deskhand desktop start``);
            otherwise a watchdog ends it when the owner dies.
        start_timeout_s: deadline for the whole stack to come up.
        private_config: give the processes the desktop starts fresh XDG config, cache and state
            dirs (removed on stop), so apps start with default settings every time. They are not
            part of :attr:`env` (the exports): a shell on the desktop keeps the user's own config,
            and the processes keep the user's policy file (``DESKHAND_POLICY`` names it).
        wayland: a headless Wayland compositor instead of Xvfb and openbox (``wm`` does not
            apply): apps run natively on Wayland, and :attr:`env` has ``WAYLAND_DISPLAY`` (an
            absolute path) and the compositor's own variables instead of ``DISPLAY``.
        compositor: which one (``compositors.COMPOSITORS``: ``sway``, the default); naming one
            implies ``wayland``.

    :attr:`env` is what a client needs: display, ``XAUTHORITY``, buses, the accessibility variables.
    While an embedded (not detached) desktop runs, this process's own ``XAUTHORITY`` names a file
    with its cookie too (``_xauth``), so python-xlib connections made here (an executor) get in.
    """

    def __init__(
        self,
        *,
        size: tuple[int, int, int] | str = (1920, 1080, 24),
        wm: bool = True,
        detached: bool = False,
        start_timeout_s: float = 10.0,
        private_config: bool = True,
        wayland: bool = False,
        compositor: str | None = None,
    ) -> None:
        self.width, self.height, self.depth = parse_size(size) if isinstance(size, str) else size
        self.wm = wm
        self.detached = detached
        self.start_timeout_s = start_timeout_s
        self.private_config = private_config
        self.wayland = wayland or compositor is not None
        #: the Wayland compositor's row (None on X11)
        self.compositor = compositors.kind(compositor or compositors.DEFAULT) if self.wayland else None
        #: the compositor's own runtime dir (Wayland: owned by the user sway runs as).
        self.compositor_dir: Path | None = None
        self.id = secrets.token_hex(4)
        self.display: int | None = None
        self.env: dict[str, str] = {}
        #: seconds each start step took (xvfb, dbus, atspi, wm, total).
        self.timings: dict[str, float] = {}
        self.apps: list[LaunchedApp] = []
        self._private_env: dict[str, str] = {}
        self._popens: list[Child] = []
        self._unrecorded: list[tuple[str, Child]] = []
        self._state: DesktopState | None = None
        self._watchdog_pid: int | None = None
        self._watchdog_fd: int | None = None
        self._watchdog_ready: int | None = None
        self._cookie = _xauth.new_cookie()
        self.runtime_dir = registry_dir() / self.id

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> VirtualDesktop:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._state is not None

    @property
    def xauthority(self) -> Path:
        """The desktop's client authority file (mode 0600): the cookie a client needs to connect."""
        return self.runtime_dir / "Xauthority"

    def start(self) -> VirtualDesktop:
        """Start the whole stack; raise BackendUnavailable (after cleaning up) when a piece fails."""
        if self._state is not None:
            return self
        t0 = time.monotonic()
        deadline = t0 + self.start_timeout_s
        self.runtime_dir.mkdir(mode=0o700, parents=True)
        try:
            if not self.detached:
                self._start_watchdog()
            self._start_stack(t0, deadline)
            if not self.detached:
                self._wait_watchdog(deadline)
        except BaseException:
            self.stop()
            raise
        if self.detached:  # it outlives this process: no cookie left in this process's XAUTHORITY
            _xauth.unregister(self.runtime_dir.parent, self.id)
        self.timings["total"] = time.monotonic() - t0
        return self

    def _start_stack(self, t0: float, deadline: float) -> None:
        if self.private_config:
            # Fresh settings (dconf lives in XDG_CONFIG_HOME) make apps deterministic: no
            # "restore the previous session?" dialog after an earlier desktop killed the app.
            self._private_env["DESKHAND_POLICY"] = user_policy_path(os.environ)
            for name, sub in PRIVATE_DIRS:
                (self.runtime_dir / sub).mkdir(mode=0o700, exist_ok=True)
                self._private_env[name] = str(self.runtime_dir / sub)
        early = bool(self.compositor and self.compositor.buses_first)
        if early:  # the compositor joins the desktop's buses (GNOME Shell)
            self.env = self._toolkit_env()
            self._start_buses(deadline)
        server, role = self._start_wayland(deadline) if self.wayland else self._start_x11(deadline)
        self._state = DesktopState(
            id=self.id, display=self.display or 0, width=self.width, height=self.height, depth=self.depth,
            wm=self.wm and not self.wayland, env=self.env, runtime_dir=str(self.runtime_dir),
            owner_pid=None if self.detached else os.getpid(),
            owner_ticks=None if self.detached else _procs.start_ticks(os.getpid()),
            created_at=time.time(), session="wayland" if self.wayland else "x11",
            compositor_dir=str(self.compositor_dir) if self.compositor_dir else None,
            compositor=self.compositor.name if self.compositor else None,
        )  # fmt: skip
        for early_role, proc in self._unrecorded:
            self._record(early_role, proc)
        self._record(role, server)
        self.timings[role] = time.monotonic() - t0
        wm = None
        if self.wm and not self.wayland:
            # deskhand's own rc.xml: no button grabs on client windows (see ``_openbox``).
            config = _openbox.write_config(self.runtime_dir)
            wm = self._spawn("openbox", ["openbox", "--sm-disable", "--config-file", str(config)])
        if not self.wayland:
            # GTK 2's modules for every GTK app on the display, however started (``_xsettings``).
            # Not waited for (it is up ~0.1 s after the start returns): the apps started here and
            # the shells of the exports have GTK_MODULES as well.
            self._spawn("xsettings", [sys.executable, "-m", _xsettings.__name__])
        if not early:
            self._start_buses(deadline)
        if wm is not None:
            t1 = time.monotonic()
            self._wait_wm(wm, deadline)
            self.timings["wm"] = time.monotonic() - t1
        self._state.env = self.env
        self._state.save()

    def _start_x11(self, deadline: float) -> tuple[Child, str]:
        geometry = f"{self.width}x{self.height}x{self.depth}"
        display, xvfb = _xvfb.start_xvfb(self._spawn, self.runtime_dir, geometry, self._cookie, deadline)
        self.display = display
        _xauth.write_private(self.xauthority, _xauth.client_entries(display, self._cookie))
        _xauth.register(self.runtime_dir.parent, self.id, display, self._cookie)
        self.env = {
            "DISPLAY": f":{display}",
            "XAUTHORITY": str(self.xauthority),
            "XDG_RUNTIME_DIR": str(self.runtime_dir),
            "XDG_SESSION_TYPE": "x11",
            **self._toolkit_env(),
        }
        return xvfb, "xvfb"

    def _start_wayland(self, deadline: float) -> tuple[Child, str]:
        assert self.compositor is not None
        role = self.compositor.name
        started = self.compositor.start(
            self._spawn, self.id, (self.width, self.height), {**os.environ, **self.env},
            log=self.runtime_dir / f"{role}.log", deadline=deadline,
        )  # fmt: skip
        self.compositor_dir = started.runtime_dir
        self.env = {**self.env, "XDG_RUNTIME_DIR": str(self.runtime_dir), **started.client_env(), **self._toolkit_env()}
        return started.proc, role

    def _toolkit_env(self) -> dict[str, str]:
        gtk = gtk_modules(os.environ.get("GTK_MODULES"))
        return {_procs.MARKER_ENV: self.id, **A11Y_APP_ENV, "GTK_MODULES": gtk}

    def _base_env(self) -> dict[str, str]:
        drop = (*_DROP_ENV, "DISPLAY") if self.wayland else _DROP_ENV
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env.update(self._private_env)
        env.update(self.env)
        return env

    def _spawn(
        self, role: str, argv: Sequence[str], *, pass_fds: Sequence[int] = (), env: Mapping[str, str] | None = None
    ) -> Child:
        with (self.runtime_dir / f"{role}.log").open("ab") as log:
            try:
                proc = _spawn.spawn(
                    argv, env=env if env is not None else self._base_env(),
                    stdout=log.fileno(), stderr=log.fileno(), pass_fds=pass_fds,
                )  # fmt: skip
            except FileNotFoundError as exc:
                from deskhand.desktop.doctor import APT_LINE  # noqa: PLC0415 - only on this error

                raise BackendUnavailable(
                    f"desktop: {argv[0]} is not installed; install it with `{APT_LINE}` (or `make deps` in a clone)"
                ) from exc
        self._popens.append(proc)
        if self._state is not None:
            self._record(role, proc)
        elif role != "xvfb" and (self.compositor is None or role != self.compositor.name):
            self._unrecorded.append((role, proc))  # recorded once the state exists
        return proc

    def _record(self, role: str, proc: Child) -> None:
        if self._state is None:
            raise RuntimeError("desktop: no state to record a process in")
        self._state.processes.append(ProcessRecord(role, proc.pid, _procs.start_ticks(proc.pid)))
        self._state.save()

    def _start_session_bus(self, deadline: float) -> Child:
        """The session bus before the compositor (one that connects to it as it starts); its process."""
        t1 = time.monotonic()
        self.env["DBUS_SESSION_BUS_ADDRESS"] = _buses.start_dbus(self._spawn, self.runtime_dir, deadline)
        self.timings["dbus"] = time.monotonic() - t1
        return self._popens[-1]

    def _start_buses(self, deadline: float) -> None:
        if "DBUS_SESSION_BUS_ADDRESS" not in self.env:
            self._start_session_bus(deadline)
        t1 = time.monotonic()
        session = self.env["DBUS_SESSION_BUS_ADDRESS"]
        self.env["AT_SPI_BUS_ADDRESS"] = _buses.start_atspi(
            self._spawn, self._base_env(), self.runtime_dir, session, deadline
        )
        self.timings["atspi"] = time.monotonic() - t1

    def _wait_wm(self, wm: Child, deadline: float) -> None:
        from Xlib import display as xdisplay  # noqa: PLC0415 - only needed here

        d = xdisplay.Display(self.env["DISPLAY"])
        try:
            check = d.intern_atom("_NET_SUPPORTING_WM_CHECK")
            root = d.screen().root
            while root.get_full_property(check, 0) is None:
                if wm.poll() is not None or time.monotonic() >= deadline:
                    tail = log_tail(self.runtime_dir / "openbox.log")
                    raise BackendUnavailable(f"desktop: openbox did not start (apt-get install openbox){tail}")
                time.sleep(0.005)
        finally:
            d.close()

    def _start_watchdog(self) -> None:
        first, self._watchdog_fd, self._watchdog_ready = start_watchdog(registry_dir() / f"{self.id}.json")
        self._popens.append(first)  # exits as soon as it has forked the watchdog

    def _wait_watchdog(self, deadline: float) -> None:
        if self._watchdog_ready is None:
            raise RuntimeError("desktop: the watchdog was not started")
        try:
            self._watchdog_pid = wait_watchdog(self._watchdog_ready, deadline)
        finally:
            os.close(self._watchdog_ready)
            self._watchdog_ready = None

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
        _xauth.unregister(self.runtime_dir.parent, self.id)
        for fd in (self._watchdog_fd, self._watchdog_ready):
            if fd is not None:
                os.close(fd)
        self._watchdog_fd = self._watchdog_ready = None
        if self._watchdog_pid is not None:
            _procs.wait_gone([self._watchdog_pid], time.monotonic() + 5.0)
            self._watchdog_pid = None
        for path in (self.runtime_dir, self.compositor_dir):
            if path is not None and path.exists():
                shutil.rmtree(path, ignore_errors=True)

    # -- apps --------------------------------------------------------------------------------
    def app_env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a process inside the desktop: its :attr:`env`, toolkit accessibility
        on, the private settings dirs, plus ``extra``."""
        env = a11y_env(self._base_env())
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
                proc = _spawn.spawn(argv, env=self.app_env(env), stdout=log.fileno(), stderr=log.fileno(), cwd=cwd)
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
        On Wayland the window is the compositor's view of ``pid``, and its pid is returned (views
        have no X id).
        """
        if self.compositor is not None:
            return self.compositor.wait_for_view(self.env, pid, timeout_s)
        return wait_for_window(self.env["DISPLAY"], pid, timeout_s)

    def a11y(self, timeout_s: float = 2.0) -> A11yBus:
        """A new connection to this desktop's AT-SPI bus (close it, or use ``with``)."""
        return A11yBus(self.env["AT_SPI_BUS_ADDRESS"], timeout_s=timeout_s)

    def exports(self) -> str:
        """The client environment as shell lines (``export NAME=value``, ``unset NO_AT_BRIDGE``)."""
        return exports_text(self.env)


def _reap(proc: Child) -> None:
    """Collect an ended child's exit status. After SIGKILL the kernel may still be tearing down the
    process's other threads for a moment, so wait briefly instead of a single poll."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
