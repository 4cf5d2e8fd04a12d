"""LibreOffice Calc right after it opens: the first click by handle lands on the cell asked for
(LibreOffice places a new window's cells 25 px too high until a pointer event reaches it: the
click reads the frame again after its hover), a selected range is listed once, and an open menu's
items keep their handles between two observations, so a click by the earlier handle works. Each
checked by Calc itself: its Name Box, and the dialog the menu item opens."""

from __future__ import annotations

import collections
import re
from collections.abc import Iterator
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import HANDLE, handle, state_with
from _office import convert

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

#: Calc's Name Box: the cell (or range) that has the cursor.
NAME_BOX = r"text \(settable, string\) Value: "


@pytest.fixture(scope="module")
def calc(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("calc-fresh")
    seed = tmp / "grid.csv"
    seed.write_text("a1,b1,c1,d1\na2,b2,c2,d2\na3,b3,c3,d3\n")
    sheet = convert(seed, "ods", tmp, tmp / "convert-profile")
    running = apps.soffice("calc", sheet)
    yield {"running": running, "app": mex.resolve(str(running.pid))}


@pytest.mark.matrix("LibreOffice Calc", "first click after launch")
def test_the_first_click_after_launch_lands_on_the_cell_asked_for(calc: dict[str, Any], mex: MatrixExecutor) -> None:
    app = calc["app"]
    state = state_with(mex, app, r"table cell C2, Value: c2")
    mex.click(app, element=handle(state, r"table cell C2"))
    state_with(mex, app, NAME_BOX + r"C2$")
    mex.type_text(app, "typed\n")
    state_with(mex, app, r"table cell C2, Value: typed")


@pytest.mark.matrix("LibreOffice Calc", "no duplicate lines")
def test_a_selected_range_is_listed_once(calc: dict[str, Any], mex: MatrixExecutor) -> None:
    app = calc["app"]
    state = state_with(mex, app, r"table cell B2, Value: b2")
    mex.click(app, element=handle(state, r"table cell B2"))
    mex.press_key(app, "shift+Down")
    mex.press_key(app, "shift+Right")
    state = state_with(mex, app, NAME_BOX + r"B2:C3$")
    assert re.search(r"table cell \(selected\) C3", state), state
    rows = [re.sub(rf"^\s*{HANDLE} ", "", line) for line in state.splitlines() if re.match(rf"^\s*{HANDLE} ", line)]
    cells = collections.Counter(r for r in rows if r.startswith("table cell"))
    assert [c for c, n in cells.items() if n > 1] == [], state
    handles = re.findall(rf"^\s*({HANDLE}) ", state, re.M)
    assert len(handles) == len(set(handles)), state
    mex.press_key(app, "ctrl+Home")


@pytest.mark.matrix("LibreOffice Calc", "menu item handles")
def test_an_open_menus_items_keep_their_handles_and_the_earlier_one_clicks(
    calc: dict[str, Any], mex: MatrixExecutor
) -> None:
    app = calc["app"]
    state_with(mex, app, r"table cell A1")
    mex.press_key(app, "alt+i")
    first = state_with(mex, app, r"menu item Function\.\.\.")
    again = mex.get_app_state(app, disable_diff=True).text
    item = r"menu item Function\.\.\."
    assert handle(again, item) == handle(first, item), again
    mex.click(app, element=handle(first, item))
    wizard = state_with(mex, app, r"Function Wizard")
    mex.press_key(app, "Escape")
    assert "Function Wizard" in wizard
