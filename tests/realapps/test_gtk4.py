"""GTK 4 (4.8) apps: gnome-calculator's buttons and gnome-text-editor's text view get handles
(GTK 4 sets VISIBLE but not SHOWING below the window, and a fresh instance's cache holds only
the focus chain, so these are read by a walk); the effects are checked from the app's side. On
X11 and on sway (GTK 4 is a native Wayland client there)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor, frame_of, key_rect, move_window, to_pixels, transform_of
from _observe import handle, inside, state_with

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway", "kwin", "gnome")]


@pytest.fixture(scope="module")
def calculator(apps: Apps, mex: MatrixExecutor) -> Any:
    """One gnome-calculator for the module (a second launch would hand over to the first)."""
    return mex.resolve(str(apps.gnome_calculator().pid))


@pytest.mark.matrix("gnome-calculator", "observe", "click")
def test_calculator_buttons_clicked_by_handle_compute_the_result(calculator: Any, mex: MatrixExecutor) -> None:
    app = calculator
    state = state_with(mex, app, r"push button = =")
    print(f"gnome-calculator: state {len(state)} chars")
    assert "GtkButton" not in state and "clipboard.copy" not in state, state
    for name in ("1", "2", "×", "3", "="):
        mex.click(app, element=handle(state, rf"push button {re.escape(name)} {re.escape(name)}(,|$)"))
        state = mex.get_app_state(app, disable_diff=True).text
    # The result is what the app's display (its equation view) now holds.
    state = state_with(mex, app, r"text \(settable, string\) Value: 36$")
    assert re.search(r"text \(settable, string\) Value: 36$", state, re.M), state


@pytest.mark.matrix("gnome-calculator", "frames")
def test_calculator_frames_are_on_the_screen_and_a_click_at_one_lands(calculator: Any, mex: MatrixExecutor) -> None:
    """GTK 4.8 answers bounds relative to its window: the state's frames are placed on the screen,
    so a click at the centre of a button's frame (a point, not its handle) presses that button."""
    app = calculator
    client = move_window(mex, app, 310, 170)
    button = r"push button 7 7(,|$)"
    state = state_with(mex, app, button)
    frame = frame_of(mex, app, handle(state, button))
    assert frame is not None and inside(frame, client), (frame, client)
    t = transform_of(mex, app)
    assert t is not None
    mex.click(app, point=to_pixels(t, frame.x + frame.width / 2, frame.y + frame.height / 2))
    # The app's display (its equation view) shows the digit pressed.
    state_with(mex, app, r"text \(settable, string\) Value: 7$")


@pytest.fixture(scope="module")
def editor(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    doc = tmp_path_factory.mktemp("gte") / "notes.txt"
    doc.write_text("alpha beta gamma\n")
    running = apps.gnome_text_editor(doc)
    return {"app": mex.resolve(str(running.pid)), "doc": doc}


VIEW = r"text \(settable, string\) EditorSourceView, Value: "


@pytest.mark.matrix("gnome-text-editor", "observe", "type", "save")
def test_text_editor_shows_its_text_types_and_saves(editor: dict[str, Any], mex: MatrixExecutor) -> None:
    app, doc = editor["app"], editor["doc"]
    state = state_with(mex, app, VIEW + "alpha beta gamma")
    print(f"gnome-text-editor: state {len(state)} chars")
    # GTK 4.8's window-relative bounds are placed on the screen: the text view is in its window.
    view, key = frame_of(mex, app, handle(state, VIEW)), key_rect(mex, app)
    assert view is not None and key is not None and inside(view, key), (view, key)
    # Hidden info bars and the empty-state page are VISIBLE with no size: not shown.
    assert "Could Not Open File" not in state and "Start or Open a Document" not in state, state
    mex.press_key(app, "ctrl+End")
    mex.type_text(app, " delta")
    state_with(mex, app, VIEW + "alpha beta gamma delta")
    mex.press_key(app, "ctrl+s")
    deadline = time.monotonic() + 20
    while doc.read_text() != "alpha beta gamma delta\n":
        assert time.monotonic() < deadline, doc.read_text()
        time.sleep(0.1)  # polling the saved file with a deadline


@pytest.mark.matrix("gnome-text-editor", "selectText")
@pytest.mark.displays("x11", "sway", "kwin", "gnome")
def test_text_editor_select_text_replaces_a_word(editor: dict[str, Any], mex: MatrixExecutor) -> None:
    app = editor["app"]
    state = state_with(mex, app, VIEW + "alpha beta gamma")
    result = mex.select_text(app, handle(state, VIEW), "beta")
    assert result.structured.get("verified") is True, result
    mex.type_text(app, "BETA")
    state_with(mex, app, VIEW + "alpha BETA gamma", timeout_s=10)
    # The saved file has the word replaced (and only that word).
    mex.press_key(app, "ctrl+s")
    doc = editor["doc"]
    deadline = time.monotonic() + 20
    while not doc.read_text().startswith("alpha BETA gamma"):
        assert time.monotonic() < deadline, doc.read_text()
        time.sleep(0.1)  # polling the saved file with a deadline
