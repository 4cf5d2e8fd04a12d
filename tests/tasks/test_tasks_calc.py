"""Spreadsheet tasks in LibreOffice Calc: fill a formula down a column, sum a column, rename a
sheet, add a sheet; each checked from the saved .ods's content.xml. One Calc serves the module."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from _agent import Agent, js, need
from _odf import cells, content, make_ods, q, sheets
from _soffice import Office

from realapps._apps import Apps

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

#: The Name Box: the first field of the Formula Tool Bar, showing the current cell's reference.
NAME_BOX = r"text (?:\(focused\) )?\(settable, string\) Value: \$?[A-Z]+\$?\d+(?::\$?[A-Z]+\$?\d+)?$"
VALUES = [[3.0], [5.0], [7.0], [11.0], [13.0]]


@pytest.fixture(scope="module")
def calc(apps: Apps, agent: Agent) -> Iterator[Office]:
    yield Office(apps, agent, "calc")


def saved(path: Path, check: Callable[[ET.Element], None], timeout_s: float = 30.0) -> None:
    """``check`` of the saved sheet's content.xml, polled until it passes (the save may still be writing)."""
    mtime = path.stat().st_mtime_ns
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if path.stat().st_mtime_ns != mtime:
                check(content(path))
                return
        except (AssertionError, KeyError, ET.ParseError, OSError, ValueError) as e:
            if time.monotonic() > deadline:
                raise AssertionError(f"{path}: {e}") from e
        assert time.monotonic() < deadline, f"{path} was not saved"
        time.sleep(0.2)  # polling the saved file with a deadline


def goto(ref: str) -> Callable[[str], str]:
    """A cell body that selects ``ref`` through the Name Box (its field, the reference, Return)."""
    return lambda s: (
        f"await app.click({js(need(s, NAME_BOX))}); await app.pressKey('ctrl+a');"
        f" await app.typeText({js(ref)}); await app.pressKey('Return');"
    )


def column(root: ET.Element, col: int) -> list[tuple[str | None, str | None]]:
    """(formula, value) of column ``col`` of the first sheet, for the rows of the input."""
    rows = cells(sheets(root)[0])[: len(VALUES) + 1]
    return [
        (r[col].get(q("table:formula")), r[col].get(q("office:value"))) if len(r) > col else (None, None) for r in rows
    ]


@pytest.mark.task("LibreOffice Calc")
def test_fill_a_formula_down_a_column(calc: Office, agent: Agent, tmp_path: Path) -> None:
    sheet = make_ods(tmp_path / "double.ods", "Data", VALUES)
    calc.open(sheet, "double.ods")
    agent.act(calc.pid, goto("B1")).expect_ok()
    agent.act(calc.pid, lambda _s: "await app.typeText('=A1*2\\n');").expect_ok()
    agent.act(calc.pid, goto("B1:B5")).expect_ok()
    agent.act(calc.pid, lambda _s: "await app.pressKey('ctrl+d'); await app.pressKey('ctrl+s');").expect_ok()

    def check(root: ET.Element) -> None:
        got = column(root, 1)[:5]
        assert got == [(f"of:=[.A{i}]*2", str(int(2 * v[0]))) for i, v in enumerate(VALUES, 1)], got

    saved(sheet, check)


@pytest.mark.task("LibreOffice Calc")
def test_sum_a_column(calc: Office, agent: Agent, tmp_path: Path) -> None:
    sheet = make_ods(tmp_path / "sum.ods", "Data", VALUES)
    calc.open(sheet, "sum.ods")
    agent.act(calc.pid, goto("A6")).expect_ok()
    agent.act(calc.pid, lambda _s: "await app.typeText('=SUM(A1:A5)\\n'); await app.pressKey('ctrl+s');").expect_ok()

    def check(root: ET.Element) -> None:
        assert column(root, 0)[5] == ("of:=SUM([.A1:.A5])", "39"), column(root, 0)

    saved(sheet, check)


def sheet_dialog(agent: Agent, pid: int, item: str, title: str, name: str) -> None:
    """Sheet > ``item``: the dialog titled ``title`` gets ``name`` in its field, Return; then save."""
    agent.act(pid, lambda s: f"await app.click({js(need(s, r'(?:menu )?Sheet$'))});").expect_ok()
    agent.until(pid, rf"menu item {item}")
    agent.act(pid, lambda s: f"await app.click({js(need(s, rf'menu item {item}'))});").expect_ok()
    agent.until(pid, rf"Window: \"{title}(?s:.*)text")
    agent.act(
        pid, lambda _s: f"await app.pressKey('ctrl+a'); await app.typeText({js(name)}); await app.pressKey('Return');"
    ).expect_ok()
    agent.until(pid, r"Window: \"[^\"]+\.ods - LibreOffice Calc")
    agent.act(pid, lambda _s: "await app.pressKey('ctrl+s');").expect_ok()


@pytest.mark.task("LibreOffice Calc")
def test_rename_a_sheet(calc: Office, agent: Agent, tmp_path: Path) -> None:
    sheet = make_ods(tmp_path / "rename.ods", "Sheet1", VALUES)
    calc.open(sheet, "rename.ods")
    sheet_dialog(agent, calc.pid, r"Rename Sheet", "Rename Sheet", "Budget")
    saved(sheet, lambda root: _names(root, ["Budget"]))


@pytest.mark.task("LibreOffice Calc")
def test_add_a_sheet_at_the_end(calc: Office, agent: Agent, tmp_path: Path) -> None:
    sheet = make_ods(tmp_path / "add.ods", "Data", VALUES)
    calc.open(sheet, "add.ods")
    sheet_dialog(agent, calc.pid, r"Insert Sheet at End", "Append Sheet", "Summary")
    saved(sheet, lambda root: _names(root, ["Data", "Summary"]))


def _names(root: ET.Element, want: list[str]) -> None:
    got = [t.get(q("table:name")) for t in sheets(root)]
    assert got == want, got
