"""Tests on either display server (``tests/displays.py``): the sway desktop, and what a test reads
through whichever executor runs it (the X11 ``LinuxExecutor`` or the ``WaylandExecutor``), so one
test body serves every server: the real-app matrix's columns and ``tests/linux``.

``on_sway(reason, strict=...)`` is the mark of a row a display server cannot pass yet:
``@pytest.mark.displays("x11", "sway", sway=on_sway("..."))``. It expects the refusal the
Wayland executor gives before dispatch (``NativeError``), so a test failing any other way on sway
still fails.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Iterator
from typing import Any

import pytest
from Xlib import X
from Xlib import display as xdisplay
from Xlib.ext import xtest

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.mapping import AtspiRef
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland.kwin.fakeinput import FakeInput
from deskhand.backends.linux.wayland.wlroots.devices import Devices
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.core.axtree.model import Element
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect
from deskhand.core.screenshot import ShotTransform
from deskhand.desktop import VirtualDesktop
from deskhand.desktop.compositors import COMPOSITORS

#: The display servers a test may name in ``displays(...)``: X11 and sway here; kwin and gnome are
#: added by their seams' plugins (a ``kwin_desktop`` or ``gnome_desktop`` fixture).
DISPLAYS = ("x11", "sway", "kwin", "gnome")
#: The sway desktop's screen (the X11 session desktop's is 1920x1080).
SWAY_SIZE = (1920, 1080, 24)
MatrixExecutor = LinuxExecutor | WaylandExecutor


def on_sway(reason: str, *, strict: bool = True) -> pytest.MarkDecorator:
    """An xfail of a row's sway run that only the executor's refusal satisfies."""
    return pytest.mark.xfail(reason=reason, raises=NativeError, strict=strict)


def sway_desktop_or_skip() -> Iterator[VirtualDesktop]:
    yield from wayland_desktop_or_skip("sway")


def compositor_missing(name: str) -> str | None:
    """Why the compositor ``name`` cannot run here (a skip reason), or None."""
    kind = COMPOSITORS.get(name)
    if kind is None:
        return f"deskhand does not start the compositor {name!r}"
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


def is_kwin(desktop: VirtualDesktop) -> bool:
    return desktop.compositor is not None and desktop.compositor.name == "kwin"


def typable(desktop: VirtualDesktop, wide: str, narrow: str) -> str:
    """``wide`` where deskhand types any character (X11 and sway: a keymap of its own; GNOME: its
    input method), else ``narrow``: KWin's fake input types with the session's layout (us here)
    and refuses text it lacks before any key (``test_act_keys.py::
    test_text_the_kwin_layout_lacks_is_refused_before_any_key``). For tests about typing, not
    about wide characters."""
    return narrow if is_kwin(desktop) else wide


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


def resize_window(ex: MatrixExecutor, app: RunningApp, width: int, height: int, timeout_s: float = 10.0) -> Rect:
    """Resize the app's key window (its client area) by the window manager's own means (an X
    configure, or sway's ``resize set``); its client rect once it has that size."""
    if isinstance(ex, WaylandExecutor):
        views = [v for v in ex.views() if v.pid == app.pid]
        view = next((v for v in views if v.focused), views[-1])
        ex.compositor.place(view.id, view.rect[0], view.rect[1], width, height)
    else:
        key = ex.key_window(app)
        assert key is not None
        with ex.x.lock:
            ex.x.window(key.id).configure(width=width, height=height)
            ex.x.display.sync()
    deadline = time.monotonic() + timeout_s
    while (rect := key_rect(ex, app)) is None or (rect.width, rect.height) != (width, height):
        assert time.monotonic() < deadline, rect
        time.sleep(0.05)  # polling the window's size with a deadline
    return rect


def raise_window(ex: MatrixExecutor, app: RunningApp) -> None:
    """Bring the app's key window to the front with the focus, as the user would (X11: the window
    manager's activation; sway: ``focus``)."""
    if isinstance(ex, WaylandExecutor):
        views = [v for v in ex.views() if v.pid == app.pid]
        ex.compositor.focus(next((v for v in views if v.focused), views[-1]).id)
    else:
        ex.activate(app)


def a11y_of(ex: MatrixExecutor) -> A11y:
    """The executor's AT-SPI element calls (which place a window-relative app's points by its
    window's origin, as the last observation found it)."""
    if isinstance(ex, WaylandExecutor):
        return A11y(ex.atspi)
    return ex.actor.session.a11y


def actor_a11y(ex: MatrixExecutor) -> A11y:
    """The AT-SPI element calls the executor's actions go through (to watch or stub one)."""
    if isinstance(ex, WaylandExecutor):
        return ex.actor.session.a11y
    return ex.actor.a11y


def element_ref(ex: MatrixExecutor, app: RunningApp, handle: str) -> tuple[Element, Ref]:
    """The element behind ``handle`` and its accessible object."""
    if isinstance(ex, WaylandExecutor):
        element = ex.observer.element(app.view, handle, identity=ex.verify_identity(app))
        assert isinstance(element.ref, AtspiRef), element
        return element, Ref(element.ref.bus, element.ref.path)
    return ex.actor.session.ref(app, handle)


def executor_for(desktop: VirtualDesktop, **kw: Any) -> MatrixExecutor:
    """A new executor on ``desktop``, the one its display server takes (``kw``: the executor's
    options, such as ``observe_timeout_s``)."""
    if desktop.wayland:
        return WaylandExecutor(desktop.env, **kw)
    return LinuxExecutor(display=desktop.env["DISPLAY"], a11y_address=desktop.env["AT_SPI_BUS_ADDRESS"], **kw)


@contextlib.contextmanager
def executor_on(desktop: VirtualDesktop, **kw: Any) -> Iterator[MatrixExecutor]:
    """:func:`executor_for`, closed on leaving (a test's ``ex`` fixture)."""
    executor = executor_for(desktop, **kw)
    try:
        yield executor
    finally:
        executor.close()


def nothing_held(desktop: VirtualDesktop, ex: MatrixExecutor | None = None) -> tuple[tuple[int, ...], set[int | str]]:
    """(buttons down, keys down) on the desktop: from the X server (XQueryPointer and XQueryKeymap
    on a connection of its own), or on Wayland, where no client may read the seat, from what the
    session's input (``ex``'s compositor's, the only input devices of the headless seat) says it
    holds (``compositor.Held``: a latched modifier counts as a key, by name)."""
    if desktop.wayland:
        assert isinstance(ex, WaylandExecutor), "on Wayland, pass the executor whose devices sent the input"
        held = ex.compositor.input.held
        return tuple(sorted(held.buttons)), {*held.keys, *held.modifiers}
    d = xdisplay.Display(desktop.env["DISPLAY"])
    try:
        reply = d.screen().root.query_pointer()
        buttons = tuple(i + 1 for i in range(5) if reply.mask & (1 << (8 + i)))
        bits = d.query_keymap()
        keys: set[int | str] = {i * 8 + b for i, byte in enumerate(bits) for b in range(8) if byte & (1 << b)}
        return buttons, keys
    finally:
        d.close()


def pointer_to(desktop: VirtualDesktop, x: float, y: float) -> None:
    """Move the pointer to screen point (x, y) as the user's mouse would, outside deskhand: an
    XTest motion on X11; on Wayland a pointer device of another client (one seat, one cursor): a
    wlroots virtual pointer, or on KWin a fake-input device of its own."""
    if desktop.wayland:
        with Client(desktop.env) as client:
            devices = FakeInput(client, "deskhand-tests") if is_kwin(desktop) else Devices(client)
            try:
                devices.move(x, y)
                devices.flush()
            finally:
                devices.close()
        return
    d = xdisplay.Display(desktop.env["DISPLAY"])
    try:
        xtest.fake_input(d, X.MotionNotify, x=round(x), y=round(y))
        d.sync()
    finally:
        d.close()
