"""Dolphin's location bar in ONE `js` cell (issue 27 item 3): ``ctrl+l``, ``typeText(path)``,
``Return``, several times in a row, idle and under two CPU hogs, each checked on Dolphin's side
(its view then lists the folder's files) and in what typeText reported.

Dolphin focuses an editable combo box that has no Text interface; its line edit, a child, holds
the text (``Focus.with_text``), so typing is read back there: ``confirmed``, or ``partial`` with
the count that arrived, never ``unverifiable``. Typed as keys (a path ending in a line break is
typed with Return), the keys go one a round trip (``core.barrier.keys_per_burst``): sent at once,
Dolphin's completion rewrote the field under them and dropped characters (``/tmp/p/...`` for
``/tmp/kp/...``) in 5 of 20 runs under two CPU hogs; paced, 20 of 20 arrived.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from _apps import Apps
from _cells import run_cell

from deskhand.desktop import VirtualDesktop
from proc_support import cpu_hogs

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway", "kwin")]

#: Two folders with names long enough for a completion to catch up with the keys, and their files.
FOLDERS = {"tutorial-materials-folder": "material-one.txt", "second-target-folder": "zeta-notes.txt"}
RUNS = 4


def _cell(pid: int, path: Path, typed: str) -> str:
    """The chain under test, after the observation that pins keys to Dolphin's window; ``typed``:
    ``path`` then a Return key, or ``newline``: the path and a line break in one typeText."""
    typing = (
        f"const t = await app.typeText({str(path)!r});\nawait app.pressKey('Return');"
        if typed == "return"
        else f"const t = await app.typeText({str(path) + chr(10)!r});"
    )
    return (
        f'const app = await cua.getApp("{pid}");\n'
        "await app.getAXState({disableDiffing: true, emit: false});\n"
        f"await app.pressKey('ctrl+l');\n{typing}\n"
        "nodeRepl.write('TYPED' + JSON.stringify(t) + 'END');"
    )


def _lists(desktop: VirtualDesktop, pid: int, name: str, timeout_s: float = 20.0) -> str:
    """Dolphin's state once its view lists ``name`` (polled with a deadline)."""
    code = (
        f'const app = await cua.getApp("{pid}");\n'
        "nodeRepl.write(await app.getAXState({disableDiffing: true, emit: false}));"
    )
    deadline = time.monotonic() + timeout_s
    while True:
        state = run_cell(desktop, code).text
        if re.search(rf"table cell (?:\(selected\) )?{re.escape(name)}$", state, re.M):
            return state
        assert time.monotonic() < deadline, f"Dolphin's view never listed {name}:\n{state[-2500:]}"
        time.sleep(0.3)  # polling Dolphin's tree with a deadline


@pytest.fixture(scope="module")
def dolphin(apps: Apps, tmp_path_factory: pytest.TempPathFactory, matrix_desktop: VirtualDesktop) -> tuple[int, Path]:
    root = tmp_path_factory.mktemp("dolphin-location")
    (root / "start").mkdir()
    (root / "start" / "first.txt").write_text("first\n")
    for folder, name in FOLDERS.items():
        (root / folder).mkdir()
        (root / folder / name).write_text(name)
    pid = apps.dolphin(root / "start").pid
    _lists(matrix_desktop, pid, "first.txt", timeout_s=60.0)
    return pid, root


@pytest.mark.matrix("Dolphin", "cell chain", "location bar", "type a path")
@pytest.mark.parametrize("load", [False, True], ids=["idle", "two_cpu_hogs"])
@pytest.mark.parametrize("typed", ["return", "newline"])
def test_dolphin_ctrl_l_path_return_in_one_cell_opens_the_folder(
    dolphin: tuple[int, Path], matrix_desktop: VirtualDesktop, typed: str, load: bool
) -> None:
    pid, root = dolphin
    for run in range(RUNS):
        folder, name = list(FOLDERS.items())[run % 2]
        with cpu_hogs(load):
            result = run_cell(matrix_desktop, _cell(pid, root / folder, typed))
        assert not result.is_error, result.text
        found = re.search(r"TYPED(.*?)END", result.text, re.S)
        assert found is not None, result.text
        outcome = json.loads(found.group(1))
        # read back in the location bar's line edit: all of it arrived, or it says how much did
        assert outcome["effect"] in ("confirmed", "partial"), (run, outcome)
        assert outcome["effect"] == "confirmed", (run, outcome)
        _lists(matrix_desktop, pid, name)  # Dolphin's view lists the folder's file
