"""Advisory notices on real windows: a key window covered by another app's window, and an
unchanged capture observed twice."""

from __future__ import annotations

import pytest

from deskhand.core.axtree.diff import NO_CHANGE_PREFIX
from deskhand.core.axtree.notices import COVERED, IDENTICAL_CAPTURE
from deskhand.core.geometry import Rect

pytestmark = pytest.mark.desktop

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

    # Observe until two captures in a row are the same bytes; the notice says so exactly then.
    prev = first
    for _ in range(MAX_OBSERVATIONS):
        state = ex.get_app_state(app)
        assert state.image is not None and prev.image is not None
        same = state.image.data == prev.image.data
        assert (IDENTICAL_CAPTURE in _notices(state.text)) == same, state.text
        if same:
            break
        prev = state
    else:
        pytest.fail(f"the covered window kept redrawing over {MAX_OBSERVATIONS} observations")
    # The notices follow the no-change text after a blank line; they do not make it a diff.
    assert state.text.startswith(f"{NO_CHANGE_PREFIX} for Window: "), state.text
    assert _notices(state.text)[-2:] == [COVERED, IDENTICAL_CAPTURE]
