"""LibreOffice dialogs' spin buttons: ``setValue`` gives the dialog the number (the Value the
dialog reads, not only the field's text), and the effect shows in the saved document: Writer's
Insert Table makes a 3-column, 4-row table, Calc's Format Cells three decimal places."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import handle, state_with
from _office import convert

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

_TABLE_NS = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_OFFICE_NS = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"


@pytest.fixture(scope="module")
def office(apps: Apps, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("office-values")
    yield {"apps": apps, "tmp": tmp}


def _saved(path: Path, mtime: int, ok: Any, timeout_s: float = 40.0) -> Any:
    """``ok(path)`` once the file was saved again and reads as wanted (None until then)."""
    deadline = time.monotonic() + timeout_s
    got = None
    while time.monotonic() < deadline:
        if path.stat().st_mtime_ns != mtime:
            try:
                got = ok(path)
            except (zipfile.BadZipFile, KeyError, OSError):
                got = None
            if got:
                return got
        time.sleep(0.2)  # polling the saved file with a deadline
    return got


def _table_shape(odt: Path) -> tuple[int, int] | None:
    """(columns, rows) of the first table in an ODF text document's content.xml."""
    with zipfile.ZipFile(odt) as z:
        root = ET.fromstring(z.read("content.xml"))
    table = root.find(f".//{{{_TABLE_NS}}}table")
    if table is None:
        return None
    cols = sum(
        int(c.get(f"{{{_TABLE_NS}}}number-columns-repeated", "1")) for c in table.iter(f"{{{_TABLE_NS}}}table-column")
    )
    return cols, len(list(table.iter(f"{{{_TABLE_NS}}}table-row")))


@pytest.mark.matrix("LibreOffice Writer", "dialog spin setValue", "save")
def test_insert_table_spin_buttons_set_by_value_make_a_3_by_4_table(
    office: dict[str, Any], mex: MatrixExecutor
) -> None:
    tmp = office["tmp"]
    seed = tmp / "table.txt"
    seed.write_text("\n")
    doc = convert(seed, "odt", tmp, tmp / "convert-profile")
    running = office["apps"].soffice("writer", doc)
    app = mex.resolve(str(running.pid))
    state_with(mex, app, r"document text ")
    mex.press_key(app, "ctrl+F12")  # Table > Insert Table...
    state = state_with(mex, app, r"^Window: \"Insert Table\"")
    cols = handle(state, r"spin button .*number of columns")
    rows = handle(state, r"spin button .*number of rows")
    for element, value in ((cols, "3"), (rows, "4")):
        result = mex.set_value(app, element, value)
        assert result.outcome.effect == "confirmed", result
        assert result.outcome.measured["after"] == float(value), result
    # The dialog itself holds the numbers: the next state shows them.
    state = state_with(mex, app, r"spin button .*number of columns.*, Value: 3$")
    assert re.search(r"spin button .*number of rows.*, Value: 4$", state, re.M), state
    mex.click(app, element=handle(state, r"push button Insert"))
    state = state_with(mex, app, r"table cell C4")
    assert "table cell D1" not in state and "table cell A5" not in state, state
    mtime = doc.stat().st_mtime_ns
    mex.press_key(app, "ctrl+s")
    shape = _saved(doc, mtime, _table_shape)
    if shape is None:
        state_with(mex, app, r"push button Use Word|Keep Current Format", timeout_s=5)
    assert shape == (3, 4), shape


@pytest.mark.matrix("LibreOffice Calc", "dialog spin setValue", "save")
def test_format_cells_decimal_places_set_by_value_is_saved(office: dict[str, Any], mex: MatrixExecutor) -> None:
    tmp = office["tmp"]
    seed = tmp / "numbers.csv"
    seed.write_text("1.5\n")
    sheet = convert(seed, "ods", tmp, tmp / "convert-profile")
    running = office["apps"].soffice("calc", sheet)
    app = mex.resolve(str(running.pid))
    state_with(mex, app, r"table cell A1, Value: 1.5")
    mex.press_key(app, "ctrl+Home")
    mex.press_key(app, "ctrl+1")  # Format > Cells...
    state = state_with(mex, app, r"spin button .*Decimal places|spin button .*decimal places")
    places = handle(state, r"spin button [^\n]*[Dd]ecimal places")
    result = mex.set_value(app, places, "3")
    assert result.outcome.effect == "confirmed", result
    state = state_with(mex, app, r"spin button [^\n]*[Dd]ecimal places[^\n]*, Value: 3$")
    mex.click(app, element=handle(state, r"push button OK"))
    # The cell's value stays 1.5; the status bar shows it as the sheet does, with 3 places.
    state_with(mex, app, r"label Average: 1\.500; Sum: 1\.500$")
    mtime = sheet.stat().st_mtime_ns
    mex.press_key(app, "ctrl+s")

    def three_places(path: Path) -> bool:
        """The saved cell holds 1.5 and the text Calc rendered for it with 3 decimal places."""
        with zipfile.ZipFile(path) as z:
            root = ET.fromstring(z.read("content.xml"))
        return any(
            cell.get(f"{{{_OFFICE_NS}}}value") == "1.5" and "".join(cell.itertext()) == "1.500"
            for cell in root.iter(f"{{{_TABLE_NS}}}table-cell")
        )

    if not _saved(sheet, mtime, three_places):
        with zipfile.ZipFile(sheet) as z:
            raise AssertionError(z.read("content.xml").decode()[:4000])
