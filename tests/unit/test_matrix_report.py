"""The matrix report: outcomes into a Markdown table, and the table into the README."""

from __future__ import annotations

import pytest

from matrix_report import BEGIN, END, splice, table


def test_table_has_apps_by_operations_with_the_worst_outcome_per_cell() -> None:
    got = table(
        {
            ("Calc", "observe"): ["pass", "pass"],
            ("Calc", "save"): ["pass", "FAIL"],
            ("Thunar", "observe"): ["skip"],
            ("Thunar", "select"): ["xfail", "pass"],
        }
    )
    assert got.splitlines() == [
        "| app | observe | save | select |",
        "|---|---|---|---|",
        "| Calc | pass | FAIL |  |",
        "| Thunar | skip |  | xfail |",
    ]


def test_splice_replaces_only_what_is_between_the_markers() -> None:
    readme = f"# Title\n{BEGIN}\nold table\n{END}\nafter\n"
    assert splice(readme, "| new |\n") == f"# Title\n{BEGIN}\n| new |\n{END}\nafter\n"
    with pytest.raises(ValueError, match="marker"):
        splice("no markers", "x")
