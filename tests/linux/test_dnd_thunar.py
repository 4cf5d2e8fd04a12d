"""Drag-and-drop that drops: a file dragged onto a folder in Thunar moves into it (checked on the
file system), through the contract's 5-event drag and the Linux XDND wait (``act.pointer``,
``x11.xdnd``). Thunar's icon view exposes no items, so the test switches to the detailed list view
(ctrl+2), whose rows are table cells named after the files.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from _act_support import bind, mousepad_env, nothing_held, poll

from deskhand.core.geometry import Rect

pytestmark = pytest.mark.desktop

THUNAR = shutil.which("thunar")


@pytest.fixture
def thunar(launch: Any, ex: Any, tmp_path: Path) -> tuple[Any, Path]:
    if THUNAR is None:
        pytest.skip("thunar is not installed")
    root = tmp_path / "files"
    (root / "box").mkdir(parents=True)
    (root / "moveme.txt").write_text("payload\n")
    home = tmp_path / "home"
    home.mkdir()
    env = {**mousepad_env(home), "HOME": str(home), "GTK_MODULES": "gail:atk-bridge"}
    running = launch([THUNAR, str(root)], env=env)
    bound = bind(ex, running.pid)
    return bound, root


#: The size cell after each file's name cell (the name cell may be shown without its name;
#: Thunar writes the sizes with a no-break space).
SIZE_CELLS = {"moveme.txt": "8 bytes", "box": "4.0 KiB"}


def _rows(bound: Any) -> dict[str, Rect] | None:
    """The name cells' frames of both files: named after the file, or the cell right before its
    size cell (Thunar writes sizes with a no-break space)."""
    ex, app = bound.ex, bound.app
    ex.mark_mutation(app)  # read the tree again, not the cache from before the key
    text = ex.get_app_state(app, disable_diff=True).text
    out: dict[str, Rect] = {}
    for name, size in SIZE_CELLS.items():
        spaced = r"\s".join(re.escape(part) for part in size.split(" "))
        m = re.search(rf"(g\d+:\d+) table cell {re.escape(name)}\b", text) or re.search(
            rf"(g\d+:\d+) table cell[^\n]*\n\s*g\d+:\d+ table cell {spaced},", text
        )
        if m is None:
            return None
        # the observed frame, without the executor's fingerprint check: that check finds every
        # GtkTreeView cell "stale" (its live extents differ from the observed ones), see the report
        frame = ex.observer.element(app.view, m.group(1), identity=app.identity).frame
        if frame is None or frame.width <= 0:
            return None
        out[name] = frame
    return out


def test_a_file_dragged_onto_a_folder_lands_in_it(thunar: tuple[Any, Path], ex: Any, desktop: Any) -> None:
    bound, root = thunar
    app = bound.app
    ex.press_key(app, "ctrl+2")  # the detailed list view: rows are accessible cells
    rows = poll(lambda: _rows(bound), 20.0, "the list view's rows")
    src, dst = rows["moveme.txt"], rows["box"]
    start = bound.pixels(src.x + min(30.0, src.width / 2), src.center.y)
    end = bound.pixels(dst.x + min(30.0, dst.width / 2), dst.center.y)
    got = ex.drag(app, start, end)
    assert got.structured["xdnd"]["started"], got
    poll((root / "box" / "moveme.txt").exists, 10.0, f"moveme.txt inside box/ after {got}")
    assert not (root / "moveme.txt").exists()
    assert (root / "box" / "moveme.txt").read_text() == "payload\n"
    assert nothing_held(desktop)[0] == ()  # the button is up
