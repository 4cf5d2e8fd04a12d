"""Kate (Qt 5, KDE Frameworks): the state's focus line names the editor, the widget that takes
the keys, checked by typing into the app and reading the file it saves.

Qt marks FOCUSED every widget whose focus proxy has the focus (Kate's view space, its status bar
buttons) and the current item of every view (the document's tab, its file tree item): the focus
line named the first of them in the tree, never the editor.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from _apps import Apps, need
from _display import MatrixExecutor
from _observe import state_with

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

FOCUS = r"^The focused UI element is (g\d+:\d+) text \(settable, string\) notes\.txt, Value: "


@pytest.mark.matrix("Kate", "focus line")
def test_the_focus_line_names_the_editor_that_takes_the_keys(apps: Apps, mex: MatrixExecutor, tmp_path: Path) -> None:
    doc = tmp_path / "notes.txt"
    doc.write_text("first line\n")
    running = apps.run([need("kate"), "-n", str(doc)], "kate", timeout_s=90.0)
    app = mex.resolve(str(running.pid))
    state = state_with(mex, app, FOCUS + r"first line")
    focused = re.search(FOCUS, state, re.M)
    assert focused is not None
    # the element the line names is the editor: what is typed now lands in the document
    mex.press_key(app, "ctrl+End")
    mex.type_text(app, "typed here")
    state_with(mex, app, FOCUS + r"first line\\ntyped here")
    mex.press_key(app, "ctrl+s")
    deadline = time.monotonic() + 20
    while doc.read_text() != "first line\ntyped here\n" and doc.read_text() != "first line\ntyped here":
        assert time.monotonic() < deadline, doc.read_text()
        time.sleep(0.1)  # polling the saved file with a deadline
