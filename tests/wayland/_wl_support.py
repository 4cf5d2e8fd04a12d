"""Helpers of the Wayland tests (a module name of its own: ``tests/linux`` has a ``conftest`` too)."""

from __future__ import annotations

import shutil
import time

from deskhand.backends.linux.wayland.compositor import View
from deskhand.backends.linux.wayland.registry import open_compositor
from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.desktop import A11yApp, LaunchedApp, VirtualDesktop
from deskhand.desktop.compositors import COMPOSITORS
from desktop_support import POLL_S, Launcher


def sway_missing() -> str | None:
    return compositor_missing("sway")


def compositor_missing(name: str) -> str | None:
    """Why the compositor ``name`` cannot run here (a skip reason), or None."""
    kind = COMPOSITORS[name]
    if shutil.which(kind.program) is None:
        return f"{kind.label} is not installed ({kind.fix}, or `make deps`, which installs it)"
    return None


def views_of(desktop: VirtualDesktop) -> list[View]:
    """The compositor's views now (bottom to top; sway's by IPC, no devices made)."""
    if desktop.compositor is None or desktop.compositor.name == "sway":
        with SwayIPC(env=desktop.env) as ipc:
            return ipc.views()
    compositor = open_compositor(desktop.env)
    try:
        return compositor.views()
    finally:
        compositor.close()


def focused_pid(desktop: VirtualDesktop) -> int | None:
    return next((v.pid for v in views_of(desktop) if v.focused), None)


def wait_view(desktop: VirtualDesktop, pid: int, timeout_s: float = 10.0) -> View:
    """Poll the compositor until ``pid`` has a view (an app is on the AT-SPI bus before it maps)."""
    if desktop.compositor is not None and desktop.compositor.name != "sway":
        desktop.wait_for_window(pid, timeout_s)
        return next(v for v in views_of(desktop) if v.pid == pid)
    deadline = time.monotonic() + timeout_s
    with SwayIPC(env=desktop.env) as ipc:
        while True:
            found = next((v for v in ipc.views() if v.pid == pid), None)
            if found is not None:
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(f"pid {pid} has no sway view within {timeout_s} s")
            time.sleep(POLL_S)


class WaylandLauncher(Launcher):
    """The X11 launcher, with sway's tree instead of the X client list as the mapped-window check."""

    def wait_ready(self, app: LaunchedApp, timeout_s: float) -> A11yApp:
        found = self.wait_on_bus(app, timeout_s)
        assert found.pid is not None
        wait_view(self.desktop, found.pid, timeout_s)
        return found


def place_view(ipc: SwayIPC, view: View, rect: tuple[int, int, int, int], timeout_s: float = 5.0) -> View:
    """``view`` floated at ``rect`` (content x, y, width, height), polled until sway shows it there."""
    ipc.place(view.id, *rect)
    deadline = time.monotonic() + timeout_s
    while True:
        now = next(v for v in ipc.views() if v.id == view.id)
        if now.rect == rect:
            return now
        if time.monotonic() >= deadline:
            raise TimeoutError(f"sway did not give {view.app_id} the rect {rect}: {now.rect}")
        time.sleep(POLL_S)


def placed(desktop: VirtualDesktop, pid: int, rect: tuple[int, int, int, int]) -> View:
    """The app's window (waited for) floated at ``rect``."""
    view = wait_view(desktop, pid)
    with SwayIPC(env=desktop.env) as ipc:
        return place_view(ipc, view, rect)


def stacking(desktop: VirtualDesktop) -> list[int]:
    """The views' con_ids bottom to top (sway's tree order of floating windows)."""
    with SwayIPC(env=desktop.env) as ipc:
        return [v.id for v in ipc.views()]
