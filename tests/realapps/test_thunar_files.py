"""Thunar's files acted on by their handles: selected in the detailed view, renamed, moved into a
folder and deleted, each checked on disk and in Thunar's own tree.

The name cells of Thunar's detailed list are GTK container cells (an icon and a text renderer):
their own accessible name is empty and the state shows their parts' texts. The pre-action check
reads the cell's own name again, so a handle from a fresh observation is never refused as stale;
and a click on a cell is a real click (a cell's "activate" would open the file), which selects its
row. Thunar's icon view (its default) exposes no items at all: a strict xfail says so. On X11
and on sway (Thunar natively on Wayland there).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import handle, state_with

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway", "kwin", "gnome")]

NAMES = ("alpha-notes.txt", "beta-report.txt", "gamma-data.txt")
#: A file's name cell in the detailed list (selected or not).
NAME_CELL = r"table cell (?:\(selected\) )?{}, Secondary Actions"


def wait_on_disk(check: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)  # polling the folder with a deadline


def cell(name: str) -> str:
    return NAME_CELL.format(re.escape(name))


@pytest.fixture(scope="module")
def thunar(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    """Thunar in the detailed view of a folder with three files and a folder ``box``."""
    root = tmp_path_factory.mktemp("thunar-files")
    for name in NAMES:
        (root / name).write_text(name)
    (root / "box").mkdir()
    app = mex.resolve(str(apps.thunar(root).pid))
    state_with(mex, app, r"container 1 folder  \|  3 files: ")
    mex.press_key(app, "ctrl+2")
    state_with(mex, app, cell(NAMES[-1]))
    return app, root


def select(mex: MatrixExecutor, app: object, name: str) -> str:
    """Click the file's name cell by its handle (from a fresh observation); the state once its
    row is selected."""
    state = state_with(mex, app, cell(name))
    mex.click(app, element=handle(state, cell(name)))  # type: ignore[arg-type]
    return state_with(mex, app, rf"table cell \(selected\) {re.escape(name)}, Secondary Actions", timeout_s=10)


@pytest.mark.matrix("Thunar", "select")
def test_a_file_is_selected_by_its_handle_in_the_detailed_view(
    thunar: tuple[object, Path], mex: MatrixExecutor
) -> None:
    app, root = thunar
    state = select(mex, app, "gamma-data.txt")
    selected = re.findall(r"table cell \(selected\) ([\w-]+\.txt|box), Secondary Actions", state, re.M)
    assert selected == ["gamma-data.txt"], state
    assert re.search(r'container "gamma-data\.txt"', state), state  # Thunar's status bar names it
    assert sorted(p.name for p in root.iterdir()) == sorted([*NAMES, "box"])  # a click opened nothing


@pytest.mark.matrix("Thunar", "rename")
def test_a_file_selected_by_handle_is_renamed(thunar: tuple[object, Path], mex: MatrixExecutor) -> None:
    app, root = thunar
    select(mex, app, "beta-report.txt")
    mex.press_key(app, "F2")
    state = state_with(mex, app, r"dialog Rename \"beta-report\.txt\"")
    mex.type_text(app, "delta-report")  # Thunar selects the stem: the typing replaces it
    state = state_with(mex, app, r"text \(settable, string\) Value: delta-report\.txt")
    mex.click(app, element=handle(state, r"push button Rename$"))  # type: ignore[arg-type]
    wait_on_disk((root / "delta-report.txt").exists, "the renamed file never showed on disk")
    assert not (root / "beta-report.txt").exists()
    assert (root / "delta-report.txt").read_text() == "beta-report.txt"
    state_with(mex, app, cell("delta-report.txt"))


@pytest.mark.matrix("Thunar", "move")
def test_a_file_selected_by_handle_is_moved_into_a_folder(thunar: tuple[object, Path], mex: MatrixExecutor) -> None:
    app, root = thunar
    select(mex, app, "alpha-notes.txt")
    mex.press_key(app, "ctrl+x")
    state = state_with(mex, app, cell("box"))
    mex.click(app, element=handle(state, cell("box")), count=2)  # type: ignore[arg-type]
    state_with(mex, app, r"container Folder is empty|container 0 items")
    mex.press_key(app, "ctrl+v")
    wait_on_disk((root / "box" / "alpha-notes.txt").exists, "the file never arrived in box")
    assert not (root / "alpha-notes.txt").exists()
    mex.press_key(app, "alt+Up")  # Thunar lists the folder it left without the file
    state = state_with(mex, app, cell("box"))
    assert not re.search(cell("alpha-notes.txt"), state), state


@pytest.mark.matrix("Thunar", "delete")
def test_a_file_selected_by_handle_is_deleted(thunar: tuple[object, Path], mex: MatrixExecutor) -> None:
    app, root = thunar
    select(mex, app, "gamma-data.txt")
    mex.press_key(app, "Delete")
    # Without a trash service (no gvfs on the desktop) Thunar asks to delete for good.
    state = state_with(mex, app, r"permanently delete \"gamma-data\.txt\"")
    mex.click(app, element=handle(state, r"push button Delete$"))  # type: ignore[arg-type]
    wait_on_disk(lambda: not (root / "gamma-data.txt").exists(), "the file was never deleted")
    deadline = time.monotonic() + 20
    while re.search(cell("gamma-data.txt"), state := mex.get_app_state(app, disable_diff=True).text):
        assert time.monotonic() < deadline, f"Thunar still lists the deleted file:\n{state}"
        time.sleep(0.1)  # polling the app's state with a deadline
    assert re.search(cell("box"), state), state


@pytest.mark.matrix("Thunar", "select in the icon view")
@pytest.mark.xfail(
    strict=True,
    reason="Thunar's icon view (ExoIconView, its default) exposes no items over AT-SPI: a panel "
    "with no children and no Table or Selection interface, and hit-testing it (GetAccessibleAtPoint) "
    "answers null over its files; only its detailed view (ctrl+2) has them",
)
def test_a_file_is_selected_by_its_handle_in_the_icon_view(apps: Apps, mex: MatrixExecutor, tmp_path: Path) -> None:
    for name in NAMES:
        (tmp_path / name).write_text(name)
    app = mex.resolve(str(apps.thunar(tmp_path).pid))
    state = state_with(mex, app, r"container Icon view")
    assert re.search(rf"\b{re.escape(NAMES[0])}\b", state), state
    select(mex, app, NAMES[0])
