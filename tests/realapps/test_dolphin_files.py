"""Dolphin's files acted on by their handles: its view modes switched by their toolbar buttons,
a file selected and renamed, each checked on disk and in Dolphin's own tree.

Dolphin's file view is a table whose Table interface says 0 rows while it has one named cell per
file: the state reads it by its children. Its view-mode buttons are Qt check boxes whose only
action is "Toggle", which flips the button and leaves the view as it was: a click by handle on
them is a real click.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from _apps import Apps
from _display import MatrixExecutor, frame_of
from _observe import handle, state_with

from deskhand.core.geometry import Rect

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

NAMES = ("alpha-notes.txt", "beta-report.txt", "gamma-data.txt")


def cell(name: str) -> str:
    return rf"table cell (?:\(selected\) )?{re.escape(name)}$"


def frames(mex: MatrixExecutor, app: object, state: str) -> list[Rect]:
    """The observed frames of the files' cells, in the order of ``NAMES``."""
    out = []
    for name in NAMES:
        frame = frame_of(mex, app, handle(state, cell(name)))  # type: ignore[arg-type]
        assert frame is not None, name
        out.append(frame)
    return out


@pytest.fixture(scope="module")
def dolphin(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    root = tmp_path_factory.mktemp("dolphin-files")
    for name in NAMES:
        (root / name).write_text(name)
    app = mex.resolve(str(apps.dolphin(root).pid))
    state = state_with(mex, app, cell(NAMES[-1]), timeout_s=60)
    assert all(re.search(cell(n), state, re.M) for n in NAMES), state
    return app, root


@pytest.mark.matrix("Dolphin", "observe", "view modes")
def test_the_details_view_mode_is_switched_by_its_button(dolphin: tuple[object, Path], mex: MatrixExecutor) -> None:
    app, _root = dolphin
    state = state_with(mex, app, r"check box Icons, Description: Icons view mode, Value: on")
    icons = frames(mex, app, state)
    assert len({f.y for f in icons}) == 1, icons  # the icon view lays the files out side by side
    mex.click(app, element=handle(state, r"check box Details, Description"))  # type: ignore[arg-type]
    state = state_with(mex, app, r"check box Icons, Description: Icons view mode, Value: off")
    assert re.search(r"check box Details, Description: Details view mode, Value: on", state), state
    deadline = time.monotonic() + 20
    details = frames(mex, app, state)
    while len({f.x for f in details}) != 1:  # one file a row
        assert time.monotonic() < deadline, details
        time.sleep(0.1)  # polling Dolphin's tree with a deadline
        details = frames(mex, app, mex.get_app_state(app, disable_diff=True).text)
    assert details[0].y < details[1].y < details[2].y, details


@pytest.mark.matrix("Dolphin", "select", "rename")
def test_a_file_selected_by_handle_is_renamed(dolphin: tuple[object, Path], mex: MatrixExecutor) -> None:
    app, root = dolphin
    state = state_with(mex, app, cell("beta-report.txt"))
    mex.click(app, element=handle(state, cell("beta-report.txt")))  # type: ignore[arg-type]
    state = state_with(mex, app, r"table cell \(selected\) beta-report\.txt$", timeout_s=10)
    # the element lines (the focus line names the selected cell too, since it names a view's current item)
    assert re.findall(r"^\s*g\d+:\d+ table cell \(selected\) (.*)$", state, re.M) == ["beta-report.txt"], state
    assert re.search(r"Description: beta-report\.txt \(plain text document", state), state  # its status bar
    mex.press_key(app, "F2")  # Dolphin edits the name in place, the stem selected
    state_with(mex, app, r"text \(settable, string\) Value: beta-report\.txt")
    mex.type_text(app, "delta-report\n")
    deadline = time.monotonic() + 20
    while not (root / "delta-report.txt").exists():
        assert time.monotonic() < deadline, sorted(p.name for p in root.iterdir())
        time.sleep(0.1)  # polling the folder with a deadline
    assert not (root / "beta-report.txt").exists()
    state_with(mex, app, cell("delta-report.txt"))
