"""GTK 4 (4.8) apps: gnome-calculator's buttons and gnome-text-editor's text view get handles
(GTK 4 sets VISIBLE but not SHOWING below the window, and a fresh instance's cache holds only
the focus chain, so these are read by a walk); the effects are checked from the app's side."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from _apps import Apps
from _observe import handle, state_with

from deskhand.backends.linux.executor import LinuxExecutor

pytestmark = pytest.mark.slow


@pytest.mark.matrix("gnome-calculator", "observe", "click")
def test_calculator_buttons_clicked_by_handle_compute_the_result(apps: Apps, mex: LinuxExecutor) -> None:
    running = apps.gnome_calculator()
    app = mex.resolve(str(running.pid))
    state = state_with(mex, app, r"push button = =")
    print(f"gnome-calculator: state {len(state)} chars")
    assert "GtkButton" not in state and "clipboard.copy" not in state, state
    for name in ("1", "2", "×", "3", "="):
        mex.click(app, element=handle(state, rf"push button {re.escape(name)} {re.escape(name)}(,|$)"))
        state = mex.get_app_state(app, disable_diff=True).text
    # The result is what the app's display (its equation view) now holds.
    state = state_with(mex, app, r"text \(settable, string\) Value: 36$")
    assert re.search(r"text \(settable, string\) Value: 36$", state, re.M), state


@pytest.fixture(scope="module")
def editor(apps: Apps, mex: LinuxExecutor, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    doc = tmp_path_factory.mktemp("gte") / "notes.txt"
    doc.write_text("alpha beta gamma\n")
    running = apps.gnome_text_editor(doc)
    return {"app": mex.resolve(str(running.pid)), "doc": doc}


VIEW = r"text \(settable, string\) EditorSourceView, Value: "


@pytest.mark.matrix("gnome-text-editor", "observe", "type", "save")
def test_text_editor_shows_its_text_types_and_saves(editor: dict[str, Any], mex: LinuxExecutor) -> None:
    app, doc = editor["app"], editor["doc"]
    state = state_with(mex, app, VIEW + "alpha beta gamma")
    print(f"gnome-text-editor: state {len(state)} chars")
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
@pytest.mark.xfail(
    reason="GTK 4.8 answers Text.SetSelection False when nothing is selected, and applies AddSelection "
    "without replying; the actor (acting, not this module) reports the selection unverified",
    strict=True,
)
def test_text_editor_select_text_replaces_a_word(editor: dict[str, Any], mex: LinuxExecutor) -> None:
    app = editor["app"]
    state = state_with(mex, app, VIEW + "alpha beta gamma")
    result = mex.select_text(app, handle(state, VIEW), "beta")
    assert result.structured.get("verified") is True, result
    mex.type_text(app, "BETA")
    state_with(mex, app, VIEW + "alpha BETA gamma", timeout_s=10)
