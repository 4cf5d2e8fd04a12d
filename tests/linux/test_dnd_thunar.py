"""Drag-and-drop that drops: a file dragged onto a folder in Thunar moves into it (checked on the
file system), through the contract's 5-event drag and the Linux XDND wait (``_pointer``,
``_xdnd``). Thunar's icon view exposes no items, so the test switches to the detailed list view
(ctrl+2), whose rows are table cells named after the files.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from _act_support import bind, mousepad_env, nothing_held, poll

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


def _cell(bound: Any, name: str) -> str | None:
    bound.text = bound.ex.get_app_state(bound.app, disable_diff=True).text
    m = re.search(rf"(g\d+:\d+) table cell {re.escape(name)}\b", bound.text)
    return m.group(1) if m else None


def test_a_file_dragged_onto_a_folder_lands_in_it(thunar: tuple[Any, Path], ex: Any, desktop: Any) -> None:
    bound, root = thunar
    app = bound.app
    ex.press_key(app, "ctrl+2")  # the detailed list view: rows are accessible cells
    poll(lambda: _cell(bound, "moveme.txt") and _cell(bound, "box"), 10.0, "the list view's rows")
    src = bound.frame(str(_cell(bound, "moveme.txt")))
    dst = bound.frame(str(_cell(bound, "box")))
    start = bound.pixels(src.x + min(30.0, src.width / 2), src.center.y)
    end = bound.pixels(dst.x + min(30.0, dst.width / 2), dst.center.y)
    got = ex.drag(app, start, end)
    assert got.structured["xdnd"]["started"], got
    poll((root / "box" / "moveme.txt").exists, 10.0, f"moveme.txt inside box/ after {got}")
    assert not (root / "moveme.txt").exists()
    assert (root / "box" / "moveme.txt").read_text() == "payload\n"
    assert nothing_held(desktop)[0] == ()  # the button is up
