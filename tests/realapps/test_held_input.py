"""What the session's input holds, as every Wayland compositor's ``Input.held`` names it, checked
against what the app saw.

No client may read a Wayland seat, so ``nothing_held`` (``tests/display_support``) asks the
executor's input (``compositor.Held``). Here a button is pressed over the GTK 3 fixture's canvas
and left down: the app logs the press at the point, ``nothing_held`` names the button (its X
number, whatever the wire's code), and ``release_all`` lifts it (the app logs the release, and
nothing is held after).
"""

from __future__ import annotations

import pytest
from _apps import Apps
from _observe import handle, state_with

from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.desktop import VirtualDesktop
from display_support import MatrixExecutor, frame_of, nothing_held

pytestmark = [pytest.mark.slow]

#: The canvas as the state shows it (a GTK event box: a container).
CANVAS = r"container Canvas$"
#: Where on the canvas the button goes down (canvas-relative, as the fixture logs it).
AT = (40, 30)


@pytest.mark.displays("sway", "kwin", "gnome")
@pytest.mark.parametrize("button", [1, 3])
def test_a_button_left_down_is_named_by_held_and_lifted_by_release_all(
    apps: Apps, mex: MatrixExecutor, matrix_desktop: VirtualDesktop, button: int
) -> None:
    assert isinstance(mex, WaylandExecutor)
    fixture = apps.launcher.gtk_fixture()
    fixture.events.wait_for("ready", timeout_s=20.0)
    app = mex.resolve(str(fixture.pid))
    canvas = frame_of(mex, app, handle(state_with(mex, app, CANVAS), CANVAS))
    assert canvas is not None
    view = next(v for v in mex.compositor.views() if v.pid == fixture.pid)
    mex.compositor.focus(view.id)
    inp = mex.compositor.input
    assert nothing_held(matrix_desktop, mex) == ((), set())
    since = fixture.events.read()[-1]["t"] + 1e-6
    try:
        inp.move(canvas.x + AT[0], canvas.y + AT[1])
        inp.button(button, True)
        inp.flush()
        press = fixture.events.wait_for("press", since=since, button=button)
        assert (round(press["x"]), round(press["y"])) == AT
        assert nothing_held(matrix_desktop, mex) == ((button,), set())
        assert not fixture.events.of_type("release", since=since)
    finally:
        inp.release_all()
        inp.flush()
    fixture.events.wait_for("release", since=since, button=button)
    assert nothing_held(matrix_desktop, mex) == ((), set())
