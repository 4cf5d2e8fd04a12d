"""LibreOffice Calc: observing a sheet never harms it (its table reports 2147483647 children and
manages its descendants: only the visible cells are read), and the app still takes typing and
saves, as LibreOffice itself reads the saved file back. On X11 and on sway (the gtk3 VCL plugin is
a native Wayland client there)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import handle, state_with
from _office import convert, sample

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

OBSERVATIONS = 10
#: Memory the app may gain over all the observations (it grew by gigabytes when a read listed
#: the sheet's children).
MAX_RSS_GROWTH_KB = 150_000


@pytest.fixture(scope="module")
def calc(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("calc")
    seed = tmp / "seed.csv"
    seed.write_text("seed\n")
    sheet = convert(seed, "ods", tmp, tmp / "convert-profile")
    running = apps.soffice("calc", sheet)
    app = mex.resolve(str(running.pid))
    yield {"running": running, "app": app, "sheet": sheet, "tmp": tmp}


@pytest.mark.matrix("LibreOffice Calc", "observe", "no harm")
def test_repeated_observation_reads_only_visible_cells_and_leaves_the_app_well(
    calc: dict[str, Any], mex: MatrixExecutor
) -> None:
    app, pid = calc["app"], calc["running"].pid
    first = state_with(mex, app, r"table cell A1, Value: seed")
    assert re.search(r"table Sheet seed, Visible: rows 1-\d+, columns 1-\d+ of 1048576 x 16384", first), first
    before = sample(pid)
    sizes = [len(mex.get_app_state(app, disable_diff=True).text) for _ in range(OBSERVATIONS)]
    after = sample(pid)
    print(f"calc: {OBSERVATIONS} observations, state {max(sizes)} chars, CPU {after.cpu_s - before.cpu_s:.2f} s, "
          f"RSS {before.rss_kb} -> {after.rss_kb} kB")  # fmt: skip
    assert after.rss_kb - before.rss_kb < MAX_RSS_GROWTH_KB
    assert max(sizes) < 10_000


@pytest.mark.matrix("LibreOffice Calc", "type", "save")
def test_values_typed_after_observing_are_saved(calc: dict[str, Any], mex: MatrixExecutor) -> None:
    app, sheet, tmp = calc["app"], calc["sheet"], calc["tmp"]
    state_with(mex, app, r"table cell A1, Value: seed")
    mtime = sheet.stat().st_mtime_ns
    mex.press_key(app, "ctrl+Home")
    mex.press_key(app, "Down")
    mex.type_text(app, "41\t42\n=A2+B2\n")
    state = state_with(mex, app, r"table cell A3, Value: 83")
    assert re.search(r"table cell B2, Value: 42", state), state
    mex.press_key(app, "ctrl+s")
    deadline = time.monotonic() + 30
    while sheet.stat().st_mtime_ns == mtime:
        if time.monotonic() > deadline:
            # LibreOffice asks whether to keep the format; the state shows the dialog.
            raise AssertionError(mex.get_app_state(app, disable_diff=True).text)
        time.sleep(0.1)  # polling the file with a deadline
    # The save may still be writing: read it back once LibreOffice converts it cleanly.
    deadline = time.monotonic() + 30
    while True:
        csv = convert(sheet, "csv", tmp / "out", tmp / "convert-profile").read_text()
        if csv.splitlines()[:3] == ["seed,", "41,42", "83,"] or time.monotonic() > deadline:
            break
        time.sleep(0.2)  # polling the saved file with a deadline
    assert csv.splitlines()[:3] == ["seed,", "41,42", "83,"], csv


@pytest.mark.matrix("LibreOffice Calc", "stable handles")
def test_an_edited_cell_keeps_its_handle_across_reads(calc: dict[str, Any], mex: MatrixExecutor) -> None:
    """Calc gives a cell it edited a new accessible object on every read; the cell keeps its
    handle (runs last: it edits A1 after the save was checked)."""
    app = calc["app"]
    state_with(mex, app, r"table cell A1, Value: ")
    mex.press_key(app, "ctrl+Home")
    mex.type_text(app, "edited\n")
    cell = r"table cell A1, Value: edited"
    first = state_with(mex, app, cell)
    again = mex.get_app_state(app, disable_diff=True).text
    assert handle(again, cell) == handle(first, cell), again
    diff = mex.get_app_state(app).text
    assert "table cell A1" not in diff, diff
