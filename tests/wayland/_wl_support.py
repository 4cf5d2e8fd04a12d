"""Helpers of the Wayland tests (a module name of its own: ``tests/linux`` has a ``conftest`` too).

Every test here runs on each compositor of ``COMPOSITORS`` (the ``wl_desktop`` fixture's
parameter) through the compositor seam (``wayland.compositor.Compositor``), one per desktop
(:func:`comp_of`).
"""

from __future__ import annotations

import shutil
import time

from deskhand.backends.linux.wayland.compositor import Compositor, View
from deskhand.backends.linux.wayland.registry import open_compositor
from deskhand.desktop import A11yApp, LaunchedApp, VirtualDesktop
from deskhand.desktop.compositors import COMPOSITORS as DESKTOP_COMPOSITORS
from desktop_support import POLL_S, Launcher

#: The compositors every Wayland test runs on.
COMPOSITORS = ("sway", "kwin")
_OPEN: dict[str, Compositor] = {}


def compositor_missing(name: str = "sway") -> str | None:
    kind = DESKTOP_COMPOSITORS[name]
    if shutil.which(kind.program) is None:
        return f"{kind.label} is not installed ({kind.fix}, or `make apt`, which installs it)"
    return None


def sway_missing() -> str | None:
    return compositor_missing("sway")


def comp_of(desktop: VirtualDesktop) -> Compositor:
    """The test session's one compositor connection to ``desktop`` (closed by :func:`close_comp`)."""
    if desktop.id not in _OPEN:
        _OPEN[desktop.id] = open_compositor(desktop.env)
    return _OPEN[desktop.id]


def close_comp(desktop: VirtualDesktop) -> None:
    comp = _OPEN.pop(desktop.id, None)
    if comp is not None:
        comp.close()


def wide_text(comp: Compositor, wide: str, narrow: str) -> str:
    """``wide`` where typing is layout-independent (sway: deskhand writes the keymap), else
    ``narrow`` (KWin's fake input types with the session's layout, us here)."""
    return wide if comp.name == "sway" else narrow


def wait_view(desktop: VirtualDesktop, pid: int, timeout_s: float = 10.0) -> View:
    """Poll the compositor until ``pid`` has a view (an app is on the AT-SPI bus before it maps)."""
    deadline = time.monotonic() + timeout_s
    comp = comp_of(desktop)
    while True:
        found = next((v for v in comp.views() if v.pid == pid), None)
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            raise TimeoutError(f"pid {pid} has no view within {timeout_s} s")
        time.sleep(POLL_S)


class WaylandLauncher(Launcher):
    """The X11 launcher, with the compositor's windows instead of the X client list as the
    mapped-window check."""

    def wait_ready(self, app: LaunchedApp, timeout_s: float) -> A11yApp:
        found = self.wait_on_bus(app, timeout_s)
        assert found.pid is not None
        wait_view(self.desktop, found.pid, timeout_s)
        return found


def place_view(comp: Compositor, view: View, rect: tuple[int, int, int, int], timeout_s: float = 5.0) -> View:
    """``view``'s content given ``rect`` (x, y, width, height), polled until the compositor shows it
    there. KWin keeps a window at least its minimum size (sway does not): there the size may be
    larger than asked."""
    comp.place(view.id, *rect)
    deadline = time.monotonic() + timeout_s
    while True:
        now = next(v for v in comp.views() if v.id == view.id)
        if now.rect == rect or (
            comp.name != "sway" and now.rect[:2] == rect[:2] and now.rect[2] >= rect[2] and now.rect[3] >= rect[3]
        ):
            return now
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{comp.name} did not give {view.app_id} the rect {rect}: {now.rect}")
        time.sleep(POLL_S)


def placed(desktop: VirtualDesktop, pid: int, rect: tuple[int, int, int, int]) -> View:
    """The app's window (waited for) given ``rect``."""
    view = wait_view(desktop, pid)
    return place_view(comp_of(desktop), view, rect)


def focused_pid(desktop: VirtualDesktop) -> int | None:
    return next((v.pid for v in comp_of(desktop).views() if v.focused), None)


def stacking(desktop: VirtualDesktop) -> list[int]:
    """The views' ids bottom to top."""
    return [v.id for v in comp_of(desktop).views()]
