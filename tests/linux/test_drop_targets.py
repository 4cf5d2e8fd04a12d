"""Where a drag could drop (``x11.gate.WindowProbe.accepts_drops``), read on real X11 windows.

A drag skips the XDND wait (``act.pointer``) only when the top-level window under its release is the
app's own and has neither ``XdndAware`` nor ``XdndProxy``; every other case must keep the wait.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _act_support import poll
from Xlib import X, Xatom, display

from deskhand.backends.linux.x11.gate import WindowProbe
from deskhand.desktop import VirtualDesktop

pytestmark = pytest.mark.desktop


@pytest.fixture
def xd(desktop: VirtualDesktop) -> Iterator[Any]:
    d = display.Display(desktop.env["DISPLAY"])
    try:
        yield d
    finally:
        d.close()


def _window(d: Any, x: int, y: int, w: int, h: int) -> Any:
    """A mapped top-level window exactly at ``x``, ``y`` (override-redirect: no window manager
    places or reparents it, so the test does not depend on one)."""
    root = d.screen().root
    win = root.create_window(x, y, w, h, 0, X.CopyFromParent, X.InputOutput, X.CopyFromParent,
                             background_pixel=d.screen().white_pixel, override_redirect=True)  # fmt: skip
    win.map()
    d.sync()
    poll(lambda: root.translate_coords(root, x + w // 2, y + h // 2).child == win, 10.0, "the probe window mapped")
    return win


def test_a_window_without_xdnd_properties_takes_no_drop(xd: Any) -> None:
    win = _window(xd, 100, 100, 300, 200)
    probe = WindowProbe(xd, xd.screen().root)
    assert probe.accepts_drops(win.id, 250, 200) is False

    aware = xd.intern_atom("XdndAware")
    win.change_property(aware, Xatom.ATOM, 32, [5])
    xd.sync()
    assert probe.accepts_drops(win.id, 250, 200) is True
    win.delete_property(aware)
    win.change_property(xd.intern_atom("XdndProxy"), Xatom.WINDOW, 32, [win.id])
    xd.sync()
    assert probe.accepts_drops(win.id, 250, 200) is True
    win.destroy()
    xd.sync()


def test_another_window_over_the_release_point_keeps_the_wait(xd: Any) -> None:
    below = _window(xd, 100, 100, 300, 200)
    probe = WindowProbe(xd, xd.screen().root)
    assert probe.accepts_drops(below.id, 250, 200) is False
    cover = _window(xd, 230, 180, 60, 60)
    assert probe.accepts_drops(below.id, 250, 200) is True  # the popup is the window there
    assert probe.accepts_drops(below.id, 120, 120) is False  # beside it, the window itself
    cover.destroy()
    below.destroy()
    xd.sync()


def test_a_tk_canvas_drag_is_one_burst_and_lands(launch: Any, ex: Any) -> None:
    """Tk (without tkdnd) never starts an XDND session: no XDND wait, and the press and release
    reach the canvas at their points (the app's own log)."""
    from test_canvas_task import _bound, _launch  # noqa: PLC0415

    app = _launch(launch, "tk")
    cx, cy, ox, oy, ppp = _bound(ex, app.pid)
    running = ex.resolve(str(app.pid))
    got = ex.drag(running, ((cx + 30 - ox) * ppp, (cy + 40 - oy) * ppp), ((cx + 200 - ox) * ppp, (cy + 150 - oy) * ppp))
    assert "xdnd" not in got.structured, got
    press = app.events.wait_for("press")
    release = app.events.wait_for("release")
    assert (press["x"], press["y"], release["x"], release["y"]) == (30, 40, 200, 150)
