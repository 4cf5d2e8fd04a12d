"""LibreOffice Writer: paragraphs show their full text once (the root pane has two parents; the
text is read with ``GetText(0, -1)``), and two typed paragraphs are what LibreOffice itself reads
from the saved file. On X11 and on sway (the
gtk3 VCL plugin is a native Wayland client there)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import handle, state_with
from _office import convert

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

FIRST = "First paragraph of the matrix test."
SECOND = "Second paragraph, typed after the first."


@pytest.fixture(scope="module")
def writer(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("writer")
    seed = tmp / "letter.txt"
    seed.write_text("\n")
    doc = convert(seed, "odt", tmp, tmp / "convert-profile")
    running = apps.soffice("writer", doc)
    yield {"running": running, "app": mex.resolve(str(running.pid)), "doc": doc, "tmp": tmp}


@pytest.mark.matrix("LibreOffice Writer", "observe", "type", "save")
def test_two_typed_paragraphs_show_once_and_are_saved(writer: dict[str, Any], mex: MatrixExecutor) -> None:
    app, doc, tmp = writer["app"], writer["doc"], writer["tmp"]
    state_with(mex, app, r"document text .*\n\t+g\d+:\d+ paragraph \(settable, string\)")
    mex.type_text(app, FIRST)
    mex.press_key(app, "Return")
    mex.type_text(app, SECOND)
    state = state_with(mex, app, re.escape(SECOND) + "$")
    assert len(re.findall(rf"g\d+:\d+ paragraph \(settable, string\) {re.escape(FIRST)}$", state, re.M)) == 1, state
    assert len(re.findall(rf"g\d+:\d+ paragraph \(settable, string\) {re.escape(SECOND)}$", state, re.M)) == 1, state
    assert state.count("document text") == 1, state
    print(f"writer: state {len(state)} chars")
    assert len(state) < 10_000
    assert "Value: 0\n" not in state and ";;" not in state

    mtime = doc.stat().st_mtime_ns
    mex.press_key(app, "ctrl+s")
    deadline = time.monotonic() + 30
    text = ""
    while time.monotonic() < deadline:
        if doc.stat().st_mtime_ns != mtime:
            text = convert(doc, "txt:Text", tmp / "out", tmp / "convert-profile").read_text(encoding="utf-8-sig")
            if SECOND in text:
                break
        time.sleep(0.2)  # polling the saved file with a deadline
    assert [line for line in text.splitlines() if line.strip()] == [FIRST, SECOND], text


@pytest.mark.matrix("LibreOffice Writer", "diff")
def test_a_changed_paragraph_is_one_diff_line(writer: dict[str, Any], mex: MatrixExecutor) -> None:
    app = writer["app"]
    state_with(mex, app, re.escape(SECOND) + "$")
    mex.get_app_state(app)  # the state the diff is taken against
    mex.type_text(app, " More.")
    deadline = time.monotonic() + 20
    while True:
        diff = mex.get_app_state(app).text
        if "More." in diff or time.monotonic() > deadline:
            break
        time.sleep(0.1)  # polling the app's state with a deadline
    assert diff.startswith("The following is a diff"), diff
    changed = [line for line in diff.splitlines() if line.startswith("~") and "More." in line]
    assert len(changed) == 1, diff


@pytest.mark.matrix("LibreOffice Writer", "menu item right after its menu opened")
def test_a_menu_item_clicked_as_soon_as_its_menu_shows_opens_its_dialog(
    writer: dict[str, Any], mex: MatrixExecutor
) -> None:
    """GTK 3 ignores a button release on a menu within 500 ms of the click that opened it: the
    item's click, sent as soon as the menu is in the state, must still open its dialog (on sway it
    was lost before deskhand waited that out; runs last: it leaves the document's Format menu)."""
    app = writer["app"]
    state = state_with(mex, app, r"(?:menu )?Format$")
    mex.click(app, element=handle(state, r"(?:menu )?Format$"))
    state = state_with(mex, app, r"menu item Character")
    mex.click(app, element=handle(state, r"menu item Character"))
    state = state_with(mex, app, r'^Window: "Character"', timeout_s=20)
    mex.press_key(app, "Escape")
    state_with(mex, app, r'^Window: "letter\.odt')
