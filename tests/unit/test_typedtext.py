"""``core.typedtext``: how much of a typed text a field's change shows (typing's read-back)."""

from __future__ import annotations

import pytest

from deskhand.core.typedtext import (
    ALL,
    SOME,
    Child,
    arrived,
    digits_shown,
    inserted,
    segments,
    shown_by_change,
    shown_in,
    text_child,
)

URL = "http://127.0.0.1:8000/form?from=firefox"


@pytest.mark.parametrize(
    ("before", "after", "want"),
    [
        ("", "abc", "abc"),
        ("hello", "hellolo", "lo"),  # the common end never overlaps the common start
        ("abc", "xy", "xy"),  # a selection replaced
        ("a b", "a  b", " "),
        ("same", "same", ""),
        ("ab", "", ""),
    ],
)
def test_inserted_is_what_replaced_the_middle(before: str, after: str, want: str) -> None:
    assert inserted(before, after) == want


def test_a_field_holding_the_whole_first_segment_shows_all() -> None:
    assert shown_by_change(URL, "http://127.0.0.1:8000/long", URL) == ALL
    assert shown_by_change("teh cat", "", "the cat") == ALL  # autocorrect rewrites, the length holds
    assert shown_by_change("secret", "", "\u2022" * 6) == ALL  # a password's bullets
    assert shown_by_change("41\t42\n=A2+B2\n", "", "41") == ALL  # the tab took the rest to the next cell


def test_a_field_holding_only_the_first_keys_shows_some() -> None:
    # Firefox slow to take ctrl+l: 'h' went into the page's field, the rest into the address bar
    assert shown_by_change(URL, "", "h") == SOME
    assert shown_by_change("12345", "", "123") == SOME  # a maxlength field kept part of it


def test_an_unchanged_field_shows_nothing() -> None:
    assert shown_by_change(URL, "abc", "abc") is None


def test_a_text_starting_with_a_break_counts_any_change() -> None:
    assert segments("\nrest") == ["", "rest"]
    assert shown_by_change("\nrest", "x", "x\n") == ALL


def test_another_element_shows_the_longest_or_the_last_segment() -> None:
    assert shown_in(URL, f"{URL}/ autofilled")
    assert not shown_in(URL, "127.0.0.1:8000/form?from=firefox")  # a row's trimmed URL is not the text
    assert shown_in("a much longer first line\nlast", "last")  # where the caret ended
    assert not shown_in("a much longer first line\nab", "ab")  # too short a last segment to tell
    assert not shown_in("\n\t", "anything")


def test_a_typed_segment_sharing_the_old_text_start_shows_all() -> None:
    # ctrl+l selected the old URL; the new one shares its start, so less than it reads as inserted
    assert inserted("http://127.0.0.1:8000/long", URL) == "form?from=firefox"
    assert shown_by_change(URL, "http://127.0.0.1:8000/long", URL) == ALL


def test_a_segment_already_there_shows_only_when_it_shows_once_more() -> None:
    assert shown_by_change("abc", "abc abc", "aabc abc") == SOME  # only the 'a' arrived
    assert shown_by_change("abc", "abc abc", "abcabc abc") == ALL


def test_the_characters_that_arrived_are_counted_between_the_kept_text() -> None:
    # Dolphin's location bar, all selected by ctrl+l: its completion ate 'k' of /tmp/kp/...
    assert arrived("/tmp/kp/second-target-folder", "/tmp/p/second-target-folder") == 27
    assert arrived("/tmp/kp/tutorial-materials-dir", "/tmp/rial-materials-dir") == 23
    # typed at the caret between kept text: only the middle counts
    assert arrived("abc", "head ac tail", "head ", " tail") == 2
    assert arrived("abc", "head abc tail", "head ", " tail") == 3
    assert arrived("abc", "head  tail", "head ", " tail") == 0


def test_no_count_when_the_field_was_rewritten_around_the_typing() -> None:
    assert arrived("abc", "something else", "head ", " tail") is None
    assert arrived("abc", "he", "head", "") is None
    assert arrived("abc", "ab", "ab", "b") is None  # the kept parts cannot overlap


def test_extra_characters_the_app_added_do_not_count_as_typed() -> None:
    assert arrived("/tmp/kp", "/tmp/kp/") == 7  # a completion's trailing slash
    assert arrived("abc", "a/bc") == 3


def test_the_text_of_a_focused_combo_box_is_its_editable_child() -> None:
    # Dolphin: combo box (focused, no Text) > list, text (Text, EditableText)
    children = [Child(text=False, editable=False, focused=False), Child(text=True, editable=True, focused=False)]
    assert text_child(children) == 1


def test_a_focused_child_with_text_is_preferred() -> None:
    children = [Child(text=True, editable=True, focused=False), Child(text=True, editable=False, focused=True)]
    assert text_child(children) == 1
    assert text_child([]) is None
    assert text_child([Child(text=False, editable=True, focused=True)]) is None
    assert text_child([Child(text=True, editable=False, focused=False)]) is None  # a label's text


def test_a_sectioned_field_shows_the_digits_typed_in_order() -> None:
    """A time edit overwrites its sections and draws its own separators (VLC's Go to Time)."""
    assert digits_shown("0:01:30", "00H:01m:30s")
    assert not digits_shown("0:01:30", "00H:01m:02s")
    assert not digits_shown("abc", "abc")  # no digits: nothing to go by
