"""The matrix report: outcomes into a Markdown table, and the table into the README."""

from __future__ import annotations

import pytest

from matrix_report import BEGIN, COLUMN_NOTES, END, splice, table


def test_table_has_a_row_per_app_and_operation_and_a_column_per_display_server() -> None:
    got = table(
        {
            ("Calc", "observe", "X11"): ["pass", "pass"],
            ("Calc", "save", "X11"): ["pass", "FAIL"],
            ("Thunar", "observe", "sway"): ["pass"],
            ("Thunar", "observe", "X11"): ["skip"],
            ("Calc", "select", "sway"): ["xfail", "pass"],
            ("Thunar", "select", "sway"): ["xfail"],
            ("Thunar", "select", "X11"): ["xfail"],
            ("Thunar", "chain", "sway"): ["xpass", "pass"],
        },
        {
            ("Calc", "select", "sway"): ["refused: unsupported_platform"],
            ("Thunar", "select", "sway"): ["refused: unsupported_platform"],
            ("Thunar", "chain", "sway"): ["a race"],
        },
    )
    assert got.splitlines() == [
        "| app | operation | X11 | sway |",
        "|---|---|---|---|",
        "| Calc | observe | pass |  |",
        "| Calc | save | FAIL |  |",
        "| Calc | select |  | xfail [1] |",
        "| Thunar | observe | skip | pass |",
        "| Thunar | select | xfail | xfail [1] |",
        "| Thunar | chain |  | xpass [2] |",
        "",
        "- [1] sway: refused: unsupported_platform",
        "- [2] sway: a race",
        *(f"- sway: {note}" for note in COLUMN_NOTES["sway"]),  # the column's own notes, after the xfails'
    ]


def test_a_run_on_one_display_server_has_its_column_only() -> None:
    got = table({("Calc", "observe", "X11"): ["pass"]})
    assert got.splitlines() == ["| app | operation | X11 |", "|---|---|---|", "| Calc | observe | pass |"]


def test_splice_replaces_only_what_is_between_the_markers() -> None:
    readme = f"# Title\n{BEGIN}\nold table\n{END}\nafter\n"
    assert splice(readme, "| new |\n") == f"# Title\n{BEGIN}\n| new |\n{END}\nafter\n"
    with pytest.raises(ValueError, match="marker"):
        splice("no markers", "x")


def test_a_task_run_on_another_display_server_counts_under_its_own_row() -> None:
    from matrix_report import task_table  # noqa: PLC0415

    got = task_table({"Chromium": ["pass", "pass"], "Chromium (sway)": ["pass", "xfail"]})
    assert got.splitlines()[2:4] == ["| Chromium | 2 | 2 | 0 | 0 |", "| Chromium (sway) | 2 | 1 | 1 | 0 |"]


def test_a_test_run_twice_is_listed_under_its_own_table_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import matrix_report  # noqa: PLC0415

    cell = (("Kate", "typeText", "KWin"),)
    monkeypatch.setattr(matrix_report, "_LAST", {"a": (cell, None, "pass", None), "t": ((), "Calc", "pass", None)})
    monkeypatch.setattr(matrix_report, "_RERUN", {"a": "no file saved", "t": "the cell timed out"})
    under_matrix, under_tasks = matrix_report._reruns_note(tasks=False), matrix_report._reruns_note(tasks=True)
    assert "- `a`: no file saved" in under_matrix and "`t`" not in under_matrix
    assert "- `t`: the cell timed out" in under_tasks and "`a`" not in under_tasks
    monkeypatch.setattr(matrix_report, "_RERUN", {})
    assert matrix_report._reruns_note(tasks=False) == matrix_report._reruns_note(tasks=True) == ""
