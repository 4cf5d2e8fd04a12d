"""selectText matching (native-contract.md 6.9, sdk-contract.md 6.2 and its Rust table)."""

from __future__ import annotations

import pytest

from deskhand.core.errors import ArgumentError, NativeError
from deskhand.core.textmatch import (
    TextRange,
    code_point_to_utf16,
    find_occurrences,
    parse_selection,
    select_range,
    to_code_points,
    unique_range,
    utf16_length,
    utf16_to_code_point,
)


@pytest.mark.parametrize(
    ("source", "needle", "prefix", "suffix", "expected"),
    [
        ("banana", "ana", "b", "", TextRange(1, 3)),
        ("left cat right cat end", "cat", "right ", " end", TextRange(15, 3)),
        ("🙂中文 cafe\u0301", "中文", "", "", TextRange(2, 2)),
        ("🙂中文 cafe\u0301", "caf\u00e9", "", "", TextRange(5, 5)),
        ("a🙂b", "🙂", "", "", TextRange(1, 2)),
    ],
)
def test_unique_range_rust_table_matches(
    source: str, needle: str, prefix: str, suffix: str, expected: TextRange
) -> None:
    """sdk-contract 6.2 unique_range tests that find one range."""
    assert unique_range(source, needle, prefix, suffix) == expected


def test_unique_range_rust_table_banana_is_ambiguous() -> None:
    with pytest.raises(NativeError) as caught:
        unique_range("banana", "ana")
    assert caught.value.code == "ambiguous_text"
    assert caught.value.dispatched is False


@pytest.mark.parametrize(
    ("source", "needle", "prefix"),
    [("left cat end", "cat", "left"), ("hello", "HELLO", "")],
)
def test_unique_range_rust_table_not_found(source: str, needle: str, prefix: str) -> None:
    with pytest.raises(NativeError) as caught:
        unique_range(source, needle, prefix)
    assert caught.value.code == "text_not_found"


def test_empty_needle_is_refused() -> None:
    with pytest.raises(ArgumentError, match=r"^text must not be empty$"):
        unique_range("hello", "")
    assert find_occurrences("hello", "") == []


def test_overlapping_occurrences_count() -> None:
    """6.9: aaa / aa gives 2."""
    assert find_occurrences("aaa", "aa") == [TextRange(0, 2), TextRange(1, 2)]
    with pytest.raises(NativeError, match="2 were found"):
        unique_range("aaa", "aa")
    assert unique_range("aaa", "aa", prefix="a") == TextRange(1, 2)
    assert unique_range("aaa", "aa", suffix="a") == TextRange(0, 2)


def test_context_must_be_immediately_adjacent() -> None:
    assert unique_range("Status: draft, Title: draft", "draft", prefix="Status: ") == TextRange(8, 5)
    with pytest.raises(NativeError) as caught:
        unique_range("Status:  draft", "draft", prefix="Status: x")
    assert caught.value.code == "text_not_found"
    with pytest.raises(NativeError):
        unique_range("draft end", "draft", suffix="end")


def test_case_sensitive() -> None:
    assert unique_range("Draft draft", "draft") == TextRange(6, 5)


def test_match_never_splits_a_combining_sequence() -> None:
    with pytest.raises(NativeError) as caught:
        unique_range("cafe\u0301", "cafe")
    assert caught.value.code == "text_not_found"
    assert unique_range("cafe\u0301 cafe", "cafe") == TextRange(6, 4)


def test_modes_on_astral_text() -> None:
    """SDK test text: ' target_😀 ' between 前 and 后, with every selection mode."""
    source = "前 target_😀 后 target_😀 "
    base = {"prefix": "前", "suffix": "后"}
    assert select_range(source, " target_😀 ", **base, mode="text") == TextRange(1, 11)
    assert select_range(source, " target_😀 ", **base, mode="cursor_before") == TextRange(1, 0)
    assert select_range(source, " target_😀 ", **base, mode="cursor_after") == TextRange(12, 0)


@pytest.mark.parametrize(
    ("value", "mode"),
    [(None, "text"), ("text", "text"), ("cursor_before", "cursor_before"), ("cursor_after", "cursor_after")],
)
def test_parse_selection(value: object, mode: str) -> None:
    assert parse_selection(value) == mode


@pytest.mark.parametrize("value", ["all", ["text"], 0, "Text"])
def test_parse_selection_rejects(value: object) -> None:
    with pytest.raises(ArgumentError, match=r"^selection must be text, cursor_before, or cursor_after$"):
        parse_selection(value)


# --- UTF-16 <-> code points -----------------------------------------------------------------------


def test_utf16_lengths() -> None:
    assert utf16_length("") == 0
    assert utf16_length("abc") == 3
    assert utf16_length("😀") == 2
    assert utf16_length("a🙂b") == 4
    assert utf16_length("𝄞中") == 3  # U+1D11E MUSICAL SYMBOL G CLEF


def test_conversions_with_emoji_and_astral_characters() -> None:
    text = "a😀b𝄞c"
    assert [code_point_to_utf16(text, i) for i in range(6)] == [0, 1, 3, 4, 6, 7]
    assert [utf16_to_code_point(text, u) for u in (0, 1, 3, 4, 6, 7)] == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("offset", [2, 5, 8, -1])
def test_utf16_offset_inside_a_pair_or_outside_is_an_error(offset: int) -> None:
    with pytest.raises(ValueError, match=r"(splits|outside)"):
        utf16_to_code_point("a😀b𝄞c", offset)


def test_code_point_index_outside_is_an_error() -> None:
    with pytest.raises(ValueError, match="outside"):
        code_point_to_utf16("ab", 3)


def test_to_code_points_for_atspi() -> None:
    source = "🙂中文 cafe\u0301"
    found = unique_range(source, "caf\u00e9")
    assert to_code_points(source, found) == (4, 9)
