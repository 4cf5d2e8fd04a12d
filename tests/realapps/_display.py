"""The matrix on either display server: what a test reads through whichever
executor runs it (the X11 ``LinuxExecutor`` or the ``WaylandExecutor``), so one test body serves
both columns.

``on_sway(reason, strict=...)`` is the mark of a row a display server cannot pass yet:
``@pytest.mark.displays("x11", "sway", sway=on_sway("..."))``. It expects the refusal the
Wayland executor gives before dispatch (``NativeError``), so a test failing any other way on sway
still fails.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

import pytest

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.mapping import AtspiRef
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.wayland._ipc import SwayIPC
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.core.axtree.model import Element
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect
from deskhand.core.screenshot import ShotTransform

MatrixExecutor = LinuxExecutor | WaylandExecutor
T = TypeVar("T")
#: The sway column of an app whose toolkit draws only on X11 (GTK 2, Java's AWT/Swing): it does not
#: start on the headless sway, which runs without XWayland, and deskhand says why when asked for it.
X11_ONLY = (
    "{toolkit} has no Wayland backend: {app} draws only on an X display (XWayland), and deskhand's headless "
    "sway runs without XWayland, so it does not start there; asked for it on Wayland, deskhand answers that "
    "it needs XWayland (target_not_running with the toolkit's note) and drives it only on an X display"
)

#: What the Wayland executor refuses before dispatch today (``unsupported_platform``); branch
#: ``wlact`` builds these, so a row xfailed for one of them is not strict.


def on_sway(reason: str, *, strict: bool = True) -> pytest.MarkDecorator:
    """An xfail of a row's sway run that only the executor's refusal satisfies."""
    return pytest.mark.xfail(reason=reason, raises=NativeError, strict=strict)


def launched(ex: MatrixExecutor, name: str, launch: Callable[[], T]) -> T:
    """What ``launch()`` returns; when the app exits before it shows a window (an X11-only toolkit
    on a Wayland desktop without XWayland: "Cannot open display"), what deskhand answers an agent
    that asks for ``name`` then: its refusal (``NativeError``) is raised."""
    try:
        return launch()
    except RuntimeError:
        ex.resolve(name)
        raise


def soffice_pid(ex: MatrixExecutor, timeout_s: float = 90.0) -> int:
    """The pid of LibreOffice's ``soffice.bin`` once it shows a window (the latest one: it starts
    again once on a fresh profile)."""
    deadline = time.monotonic() + timeout_s
    while True:
        pids = [w.pid for w in ex.list_windows() if _exe(w.pid).endswith("soffice.bin")]
        if pids:
            return pids[-1]
        assert time.monotonic() < deadline, "soffice.bin never showed a window"
        time.sleep(0.5)  # polling LibreOffice's start with a deadline


def _exe(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def is_wayland(ex: MatrixExecutor) -> bool:
    return isinstance(ex, WaylandExecutor)


def frame_of(ex: MatrixExecutor, app: RunningApp, handle: str) -> Rect | None:
    """The screen frame of the element behind ``handle`` (as the last observation placed it)."""
    if isinstance(ex, WaylandExecutor):
        return ex.observer.element(app.view, handle, identity=ex.verify_identity(app)).frame
    return ex.element(app, handle).frame


def transform_of(ex: MatrixExecutor, app: RunningApp) -> ShotTransform | None:
    """The last screenshot's transform (screenshot pixels to screen points)."""
    if isinstance(ex, WaylandExecutor):
        return ex.transforms.get(app.view)
    return ex.transform(app)


def to_pixels(t: ShotTransform, x: float, y: float) -> tuple[float, float]:
    """A screen point as a point of that screenshot (what ``click(point=...)`` takes)."""
    return (x - t.origin_x) * t.pixels_per_point, (y - t.origin_y) * t.pixels_per_point


def key_rect(ex: MatrixExecutor, app: RunningApp) -> Rect | None:
    """The app's key window's client rect on the screen, now."""
    if isinstance(ex, WaylandExecutor):
        views = [v for v in ex.views() if v.pid == app.pid]
        view = next((v for v in views if v.focused), views[-1] if views else None)
        return Rect(*view.rect) if view is not None else None
    key = ex.key_window(app)
    return key.client if key is not None else None


def move_window(ex: MatrixExecutor, app: RunningApp, x: int, y: int, timeout_s: float = 10.0) -> Rect:
    """Move the app's key window to (x, y) by the window manager's own means (an X configure, which
    openbox may shift by its decorations, or sway's ``move position``); its client rect once it
    is there."""
    if isinstance(ex, WaylandExecutor):
        views = [v for v in ex.views() if v.pid == app.pid]
        view = next((v for v in views if v.focused), views[-1])
        with SwayIPC(env=ex.env) as ipc:
            ipc.command(f"[con_id={view.con_id}] move position {x} px {y} px")
    else:
        key = ex.key_window(app)
        assert key is not None
        with ex.x.lock:
            ex.x.window(key.id).configure(x=x, y=y)
            ex.x.display.sync()
    deadline = time.monotonic() + timeout_s
    while (rect := key_rect(ex, app)) is None or not (0 <= rect.x - x <= 30 and 0 <= rect.y - y <= 30):
        assert time.monotonic() < deadline, rect
        time.sleep(0.05)  # polling the window's position with a deadline
    return rect


def a11y_of(ex: MatrixExecutor) -> A11y:
    """The executor's AT-SPI element calls (which place a window-relative app's points by its
    window's origin, as the last observation found it)."""
    if isinstance(ex, WaylandExecutor):
        return A11y(ex.atspi)
    return ex.actor.session.a11y


def element_ref(ex: MatrixExecutor, app: RunningApp, handle: str) -> tuple[Element, Ref]:
    """The element behind ``handle`` and its accessible object."""
    if isinstance(ex, WaylandExecutor):
        element = ex.observer.element(app.view, handle, identity=ex.verify_identity(app))
        assert isinstance(element.ref, AtspiRef), element
        return element, Ref(element.ref.bus, element.ref.path)
    return ex.actor.session.ref(app, handle)
