"""Advisory notices on real windows: a key window covered by another app's window, and an
unchanged capture observed twice."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _act_support import poll

from deskhand.core.axtree.diff import NO_CHANGE_PREFIX
from deskhand.core.axtree.notices import COVERED, IDENTICAL_CAPTURE
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

pytestmark = pytest.mark.desktop

APPS_DIR = Path(__file__).resolve().parents[1] / "apps"
SYSTEM_PYTHON = "/usr/bin/python3"

#: Observations to wait for the covered app to stop redrawing (it repaints in its backdrop
#: state when the covering app takes the focus).
MAX_OBSERVATIONS = 20


def _overlap(a: Rect, b: Rect) -> bool:
    return a.x < b.x + b.width and b.x < a.x + a.width and a.y < b.y + b.height and b.y < a.y + a.height


def _notices(text: str) -> list[str]:
    """The lines after the last blank line."""
    return text.rsplit("\n\n", 1)[-1].split("\n") if "\n\n" in text else []


def test_covered_window_and_identical_capture(launch, ex):
    gtk = launch.gtk_fixture()
    gtk.events.wait_for("ready")
    qt = launch.qt_fixture()  # both fixtures place themselves at (40, 40); the newer one is on top
    qt.events.wait_for("ready")
    app, over_app = ex.resolve(str(gtk.pid)), ex.resolve(str(qt.pid))
    key, over = ex.key_window(app), ex.key_window(over_app)
    assert key is not None and over is not None
    assert over.stacking > key.stacking and _overlap(key.frame, over.frame), (key, over)

    first = ex.get_app_state(app)
    assert first.text.startswith("App=")
    assert COVERED in _notices(first.text), first.text
    assert COVERED not in _notices(ex.get_app_state(over_app).text)

    # Observe until two captures in a row are the same bytes: with no action in between, that is
    # expected, and no identical-capture notice is given.
    prev = first
    for _ in range(MAX_OBSERVATIONS):
        state = ex.get_app_state(app)
        assert state.image is not None and prev.image is not None
        assert IDENTICAL_CAPTURE not in _notices(state.text), state.text
        if state.image.data == prev.image.data:
            break
        prev = state
    else:
        pytest.fail(f"the covered window kept redrawing over {MAX_OBSERVATIONS} observations")
    # The notices follow the no-change text after a blank line; they do not make it a diff.
    assert state.text.startswith(f"{NO_CHANGE_PREFIX} for Window: "), state.text
    assert _notices(state.text)[-1:] == [COVERED]


def test_identical_capture_only_after_an_action_the_app_ignored(launch, ex):
    """A key the Tk canvas ignores (no accessibility, nothing drawn): the next screenshot is the
    same bytes and the notice says the action showed no effect; a drag draws a line: no notice."""
    if not Path(SYSTEM_PYTHON).exists():
        pytest.skip(f"{SYSTEM_PYTHON} (with python3-tk) is missing")
    tk = launch([SYSTEM_PYTHON, str(APPS_DIR / "tk_canvas.py")], wait_on_bus=False)
    tk.events.wait_for("ready", timeout_s=20.0)
    app = poll(lambda: _resolved(ex, tk.pid), what="the Tk window")
    prev = ex.get_app_state(app)
    for _ in range(MAX_OBSERVATIONS):  # until it stopped drawing after its start
        state = ex.get_app_state(app)
        assert IDENTICAL_CAPTURE not in _notices(state.text), state.text
        if state.image is not None and prev.image is not None and state.image.data == prev.image.data:
            break
        prev = state
    since = time.monotonic()
    ex.press_key(app, "F13")  # Tk delivers it; the canvas draws nothing for it
    tk.events.wait_for("key_release", since=since, keysym="F13")
    ignored = ex.get_app_state(app)
    assert ignored.image is not None and state.image is not None and ignored.image.data == state.image.data
    assert _notices(ignored.text)[-1:] == [IDENTICAL_CAPTURE], ignored.text

    ex.drag(app, (40.0, 40.0), (200.0, 160.0))
    drawn = ex.get_app_state(app)
    assert drawn.image is not None and drawn.image.data != ignored.image.data
    assert IDENTICAL_CAPTURE not in _notices(drawn.text), drawn.text


def _resolved(ex, pid: int):
    try:
        app = ex.resolve(str(pid))
    except NativeError:
        return None
    return app if ex.key_window(app) is not None else None
