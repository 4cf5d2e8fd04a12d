"""The paste transaction gives the user's clipboard back on every Wayland compositor, judged from the
app's side: what the GTK 3 fixture pastes itself after deskhand's paste.

One transaction (``wayland._clipserver``) serves sway and KWin (data control) and GNOME (Mutter's
RemoteDesktop selection calls). The app copies its own text (the user's clipboard); deskhand
pastes another text into the field; the app's own ctrl+v then pastes the user's text again, first
from the session's server, then, once the session has closed, from the keeper it handed it to.
"""

from __future__ import annotations

import time

import pytest
from _apps import Apps
from _observe import handle, state_with

from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.desktop import VirtualDesktop
from desktop_support import POLL_S
from display_support import MatrixExecutor

pytestmark = [pytest.mark.slow]

NAME = r"text \(settable, string\) Name"
USERS = "copied by the user"
PASTED = "pasted by deskhand ✓"


def _values(snapshot: object) -> list[bytes]:
    assert isinstance(snapshot, dict)
    return list(snapshot.values())


def _wait_copied(ex: WaylandExecutor, text: str, timeout_s: float = 10.0) -> None:
    """Poll the clipboard until the app's copy of ``text`` is there (the app takes it a moment
    after its ctrl+c)."""
    clip = ex.compositor.clipboard()
    try:
        deadline = time.monotonic() + timeout_s
        while text.encode() not in _values(clip.snapshot()):
            assert time.monotonic() < deadline, f"the app's copy of {text!r} is not on the clipboard"
            time.sleep(POLL_S)
    finally:
        clip.close(hand_off=False)


@pytest.mark.displays("sway", "kwin", "gnome")
def test_the_users_copy_is_given_back_after_a_paste_and_kept_after_the_session(
    apps: Apps, mex: MatrixExecutor, matrix_desktop: VirtualDesktop
) -> None:
    assert isinstance(mex, WaylandExecutor)
    fixture = apps.launcher.gtk_fixture()
    fixture.events.wait_for("ready", timeout_s=20.0)
    app = mex.resolve(str(fixture.pid))
    mex.click(app, element=handle(state_with(mex, app, NAME), NAME))
    fixture.events.wait_for("focus", name="Name")
    mex.type_text(app, USERS)
    fixture.events.wait_for("text", name="Name", text=USERS)
    mex.press_key(app, "ctrl+a")
    mex.press_key(app, "ctrl+c")  # the user's clipboard: the app's own copy
    _wait_copied(mex, USERS)

    session = WaylandExecutor(matrix_desktop.env)  # a session of its own, closed below
    try:
        target = session.resolve(str(fixture.pid))
        state_with(session, target, NAME)
        result = session.paste(target, PASTED)  # the field's text is selected: replaced
        fixture.events.wait_for("text", name="Name", text=PASTED)
        assert result.structured["receipt"]["restored"] is True, result
        since = time.monotonic()
        mex.press_key(app, "ctrl+a")
        mex.press_key(app, "ctrl+v")  # served by the session's clipboard server
        fixture.events.wait_for("text", name="Name", text=USERS, since=since)
    finally:
        session.close()  # a keeper serves the user's clipboard from now on
    since = time.monotonic()
    mex.type_text(app, "x")
    fixture.events.wait_for("text", name="Name", text=USERS + "x", since=since)
    mex.press_key(app, "ctrl+a")
    mex.press_key(app, "ctrl+v")  # served by the keeper
    fixture.events.wait_for("text", name="Name", text=USERS, since=since)
    mex.press_key(app, "ctrl+a")
    mex.press_key(app, "ctrl+c")  # the next copy wins: the keeper goes
