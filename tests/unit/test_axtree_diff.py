"""The diff text (section 3.4); ``test_axtreediff_*`` are the section 7.2 AXTreeDiffTests counterparts."""

from __future__ import annotations

import pytest

from deskhand.core.axtree.diff import DiffLine, compare, diff_text, removed_summary

HEADER = (
    'The following is a diff from the previous accessibility tree for Window: "Docs" with ~ and + '
    "representing changed and added elements, respectively. Removed elements are summarized by ID range."
)


def test_axtreediff_changed_and_added_lines_use_markers_before_the_tabs() -> None:
    old = [DiffLine(0, "g7:0 window"), DiffLine(1, "\tg7:1 button A")]
    new = [DiffLine(0, "g7:0 window"), DiffLine(1, "\tg7:1 button B"), DiffLine(2, "\tg7:2 button C")]
    result = compare(old, new)
    assert result.marked == ("~\tg7:1 button B", "+\tg7:2 button C")
    assert result.removed == ()


def test_axtreediff_removed_ids_are_sparse_ranges() -> None:
    old = [DiffLine(i, f"g7:{i} item") for i in (0, 1, 2, 4, 7, 8, 9)]
    new = [DiffLine(i, f"g7:{i} item") for i in (0, 4)]
    result = compare(old, new)
    assert result.removed == (1, 2, 7, 8, 9)
    assert removed_summary(result.removed) == "Removed element IDs: 1-2, 7-9"


@pytest.mark.parametrize(
    ("ids", "text"),
    [
        ([5], "Removed element IDs: 5"),
        ([3, 1, 2, 2], "Removed element IDs: 1-3"),
        ([4, 67], "Removed element IDs: 4, 67"),
    ],
)
def test_removed_summary_sorts_and_deduplicates(ids: list[int], text: str) -> None:
    assert removed_summary(ids) == text


def test_removed_summary_of_nothing_is_none() -> None:
    assert removed_summary([]) is None


def test_axtreediff_no_change_text_is_exact_and_keeps_the_context_tail() -> None:
    state = [DiffLine(0, "g7:0 window")]
    assert diff_text(state, state, "Docs", ["", "The focused UI element is g7:0 window."]) == (
        'There has been no change in the accessibility tree for Window: "Docs".\n\n'
        "The focused UI element is g7:0 window."
    )


def test_axtreediff_value_change_marks_changed() -> None:
    result = compare([DiffLine(0, "\tg7:0 text field Value: old")], [DiffLine(0, "\tg7:0 text field Value: new")])
    assert result.marked == ("~\tg7:0 text field Value: new",)


def test_axtreediff_identical_display_lines_render_no_change() -> None:
    assert compare([DiffLine(6, "\tg1:6 ruler Ruler")], [DiffLine(6, "\tg1:6 ruler Ruler")]).is_empty


def test_axtreediff_sibling_insertion_renders_removed_and_added() -> None:
    result = compare([DiffLine(6, "\tg1:6 ruler Ruler")], [DiffLine(7, "\tg1:7 ruler Ruler")])
    assert result.removed == (6,)
    assert result.marked == ("+\tg1:7 ruler Ruler",)


def test_full_diff_text_order() -> None:
    old = [DiffLine(0, "g7:0 window"), DiffLine(1, "\tg7:1 button A"), DiffLine(2, "\tg7:2 button B")]
    new = [DiffLine(0, "g7:0 window"), DiffLine(2, "\tg7:2 button B!"), DiffLine(3, "\tg7:3 button C")]
    assert diff_text(old, new, "Docs", []) == "\n".join(
        [HEADER, "Removed element IDs: 1", "~\tg7:2 button B!", "+\tg7:3 button C"]
    )


def test_a_diff_with_only_removals_has_no_marked_lines() -> None:
    old = [DiffLine(0, "g7:0 window"), DiffLine(1, "\tg7:1 button A")]
    assert diff_text(old, old[:1], "Docs", []) == f"{HEADER}\nRemoved element IDs: 1"


def test_axtreediff_duplicate_line_ids_are_rejected() -> None:
    with pytest.raises(ValueError, match="duplicate old"):
        compare([DiffLine(1, "a"), DiffLine(1, "b")], [])
    with pytest.raises(ValueError, match="duplicate new"):
        compare([], [DiffLine(1, "a"), DiffLine(1, "b")])
