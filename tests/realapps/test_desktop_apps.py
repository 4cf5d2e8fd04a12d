"""The desktop apps of the matrix: KCalc (Qt 5), galculator (GTK 3), Thunar and Mousepad, each
driven through the executor and checked from the app's side (its display, a folder's files, a
saved file), on X11 and on sway (natively on Wayland there)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from _apps import Apps
from _display import MatrixExecutor, a11y_of, element_ref, transform_of
from _observe import handle, state_with

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway", "kwin", "gnome")]


#: The type cell of a file's row in Thunar's detailed list.
TYPE_CELL = r"table cell (\(selected\) )?plain text document, Secondary Actions: Expand Or Contract, Edit$"


def press_all(ex: MatrixExecutor, app: object, state: str, pattern: str, names: list[str]) -> None:
    """Click the buttons named ``names`` by their handles (``pattern`` has a ``{}`` for the name)."""
    for name in names:
        ex.click(app, element=handle(state, pattern.format(re.escape(name))))  # type: ignore[arg-type]


@pytest.mark.matrix("KCalc", "observe", "click")
def test_kcalc_buttons_compute_on_its_display(apps: Apps, mex: MatrixExecutor) -> None:
    app = mex.resolve(str(apps.kcalc().pid))
    state = state_with(mex, app, r"push button =, Description: Result")
    print(f"kcalc: state {len(state)} chars")
    press_all(mex, app, state, r"push button {}(,|$)", ["7", "×", "6", "="])
    state_with(mex, app, r"frame 42, Description: Result Display")


@pytest.fixture(scope="module")
def galculator(apps: Apps, mex: MatrixExecutor) -> tuple[object, str]:
    app = mex.resolve(str(apps.galculator().pid))
    state = state_with(mex, app, r"toggle button =, Description: Enter")
    print(f"galculator: state {len(state)} chars")
    press_all(mex, app, state, r"toggle button {}, Description", ["9", "+", "4", "="])
    return app, state_with(mex, app, r"text Value: 13$")


@pytest.mark.matrix("galculator", "observe", "click")
def test_galculator_buttons_compute_on_its_display(galculator: tuple[object, str]) -> None:
    assert re.search(r"text Value: 13$", galculator[1], re.M)


@pytest.mark.matrix("galculator", "no button left pressed")
def test_galculator_buttons_are_not_left_pressed(galculator: tuple[object, str]) -> None:
    pressed = re.findall(r"toggle button .*Value: on.*$", galculator[1], re.M)
    assert pressed == [], f"buttons left pressed: {pressed}"


@pytest.mark.matrix("Thunar", "observe", "type")
def test_thunar_lists_the_files_of_a_folder(apps: Apps, mex: MatrixExecutor, tmp_path: Path) -> None:
    names = ["alpha-notes.txt", "beta-report.txt", "gamma-data.txt"]
    for name in names:
        (tmp_path / name).write_text(name)
    app = mex.resolve(str(apps.thunar(tmp_path).pid))
    state = state_with(mex, app, r"container 3 files: ")
    print(f"thunar: state {len(state)} chars")
    # The detailed list: one row of cells (name, size, type, date) per file. The name cell is a
    # GTK container cell (icon and text): its name is the text of its parts.
    mex.press_key(app, "ctrl+2")
    state = state_with(mex, app, TYPE_CELL)
    assert len(re.findall(TYPE_CELL, state, re.M)) == len(names), state
    shown = re.findall(r"table cell (?:\(selected\) )?([\w-]+\.txt), Secondary Actions", state, re.M)
    assert shown == names, state
    mex.type_text(app, "beta")  # type-ahead selects the file
    state = state_with(mex, app, r"table cell \(selected\) plain text document")
    assert re.findall(TYPE_CELL, state, re.M) == ["", "(selected) ", ""], state
    assert re.search(r"table cell \(selected\) beta-report\.txt, Secondary Actions", state, re.M), state


@pytest.mark.matrix("Mousepad", "observe", "type", "save")
def test_mousepad_types_and_saves(apps: Apps, mex: MatrixExecutor, tmp_path: Path) -> None:
    doc = tmp_path / "list.txt"
    doc.write_text("")
    app = mex.resolve(str(apps.mousepad(doc).pid))
    state_with(mex, app, r"text \(settable, string\)")
    t0 = time.monotonic()
    state = mex.get_app_state(app, disable_diff=True).text
    print(f"mousepad: state {len(state)} chars, {1000 * (time.monotonic() - t0):.0f} ms")
    mex.type_text(app, "milk\nbread\n")
    state_with(mex, app, r"Value: milk\\nbread\\n")
    mex.press_key(app, "ctrl+s")
    deadline = time.monotonic() + 20
    while doc.read_text() != "milk\nbread\n":
        assert time.monotonic() < deadline, repr(doc.read_text())
        time.sleep(0.1)  # polling the saved file with a deadline


@pytest.mark.matrix("Mousepad", "scroll")
@pytest.mark.displays("x11", "sway", "kwin", "gnome")
def test_mousepad_wheel_scroll_is_measured_on_its_text(apps: Apps, mex: MatrixExecutor, tmp_path: Path) -> None:
    """A GTK 3 text view keeps its bounds while its text scrolls (and hit-testing stops at
    Mousepad's notebook): the wheel is measured on the character under the point, and the app's
    own view agrees, the line at its top having moved by the distance reported."""
    line = "line {:04d} " + "x" * 40 + "\n"
    doc = tmp_path / "long.txt"
    doc.write_text("".join(line.format(i) for i in range(3000)))
    app = mex.resolve(str(apps.mousepad(doc).pid))
    view_pattern = r"text \(settable, string\)"
    state = state_with(mex, app, view_pattern)
    a11y = a11y_of(mex)
    element, view = element_ref(mex, app, handle(state, view_pattern))
    frame = element.frame
    assert frame is not None
    length = len(line.format(0))

    def top_line() -> int:
        """The line at the top of the app's view, by its own hit-test of its text."""
        offset = a11y.offset_at_point(view, round(frame.x + frame.width / 2), round(frame.y + 3))
        assert offset is not None
        return offset // length

    def line_y(n: int) -> int:
        ext = a11y.character_extents(view, n * length)
        assert ext is not None
        return ext[1]

    before = top_line()
    height = line_y(before + 1) - line_y(before)
    assert height > 0
    t = transform_of(mex, app)
    assert t is not None
    at = (
        (frame.x + frame.width / 2 - t.origin_x) * t.pixels_per_point,
        (frame.y + frame.height / 2 - t.origin_y) * t.pixels_per_point,
    )
    t0 = time.monotonic()
    result = mex.scroll(app, direction="down", pages=1.0, point=at)
    print(f"mousepad: wheel scroll {1000 * (time.monotonic() - t0):.0f} ms, {result.structured}")
    assert result.structured["route"] == "wheel"
    assert result.outcome is not None and result.outcome.effect == "confirmed", result
    achieved, requested = -result.structured["achieved"][1], -result.structured["requested"][1]  # type: ignore[index]
    assert achieved > requested / 2
    moved = top_line() - before  # what the app shows at its top now
    assert abs(moved * height - achieved) <= height, (moved, height, achieved)
