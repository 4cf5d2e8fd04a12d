"""The matrix on either display server: the sway desktop, and what a test reads through whichever
executor runs it (the X11 ``LinuxExecutor`` or the ``WaylandExecutor``), so one test body serves
both columns.

``on_sway(reason, strict=...)`` is the mark of a row a display server cannot pass yet:
``@pytest.mark.displays("x11", "sway", sway=on_sway("..."))``. It expects the refusal the
Wayland executor gives before dispatch (``NativeError``), so a test failing any other way on sway
still fails.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator

import pytest

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.mapping import AtspiRef
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.core.axtree.model import Element
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect
from deskhand.core.screenshot import ShotTransform
from deskhand.desktop import VirtualDesktop
from deskhand.desktop.compositors import COMPOSITORS

DISPLAYS = ("x11", "sway")
#: Every display server a test may name: X11 and the Wayland compositors (``desktop.compositors``).
KNOWN_DISPLAYS = ("x11", "sway", "kwin", "gnome")
#: The Wayland desktops' screen (the X11 session desktop's is 1920x1080).
SWAY_SIZE = (1920, 1080, 24)
MatrixExecutor = LinuxExecutor | WaylandExecutor

#: What the Wayland executor refuses before dispatch today (``unsupported_platform``); branch
#: ``wlact`` builds these, so a row xfailed for one of them is not strict.


def on_sway(reason: str, *, strict: bool = True) -> pytest.MarkDecorator:
    """An xfail of a row's sway run that only the executor's refusal satisfies."""
    return pytest.mark.xfail(reason=reason, raises=NativeError, strict=strict)


def sway_desktop_or_skip() -> Iterator[VirtualDesktop]:
    yield from wayland_desktop_or_skip("sway")


def compositor_missing(name: str) -> str | None:
    """Why the compositor ``name`` cannot run here (a skip reason), or None."""
    kind = COMPOSITORS.get(name)
    if kind is None:
        return f"deskhand does not start the compositor {name!r} on this branch"
    if shutil.which(kind.program) is None:
        return f"{kind.label} is not installed ({kind.fix}, or `make apt`, which installs it)"
    return None


def wayland_desktop_or_skip(name: str) -> Iterator[VirtualDesktop]:
    """A private headless desktop of compositor ``name``; a skip saying what to install when it
    is missing."""
    reason = compositor_missing(name)
    if reason is not None:
        pytest.skip(reason)
    vd = VirtualDesktop(compositor=name, size=SWAY_SIZE)
    vd.start()
    try:
        yield vd
    finally:
        vd.stop()


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
    openbox may shift by its decorations, or the compositor's placement); its client rect once it
    is there."""
    if isinstance(ex, WaylandExecutor):
        views = [v for v in ex.views() if v.pid == app.pid]
        view = next((v for v in views if v.focused), views[-1])
        ex.compositor.place(view.id, x, y, view.rect[2], view.rect[3])
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
