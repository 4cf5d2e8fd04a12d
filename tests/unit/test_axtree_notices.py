"""Advisory notices after the tree (section 3.2, last bullet): which facts give which notice."""

from __future__ import annotations

from typing import Any

import pytest

from deskhand.core.axtree.diff import DIFF_HEADER_PREFIX, NO_CHANGE_PREFIX, REMOVED_PREFIX
from deskhand.core.axtree.indexmap import IndexMap
from deskhand.core.axtree.notices import (
    ALL_OFF_SCREEN,
    COVERED,
    IDENTICAL_CAPTURE,
    OFF_SCREEN,
    SHELL_TREE_ADVICE,
    Facts,
    actionable_lines,
    notices,
)
from deskhand.core.geometry import Rect

RICH = [
    "App=org.example.Editor (pid 42)",
    'Window: "Doc", App: Editor.',
    "g3:0 frame Doc",
    "\tg3:1 push button Save",
    "\tg3:2 text (settable, string) Name",
    "\tg3:3 check box Wrap, Value: off",
    "",
    "The focused UI element is g3:2 text (settable, string) Name.",
]
SCREEN = Rect(0, 0, 1280, 1024)


def quiet(**kw: Any) -> list[str]:
    """Notices for a rich tree plus ``kw``."""
    return notices(Facts(lines=RICH, **kw))


def test_rich_tree_on_screen_uncovered_and_new_capture_gives_no_notice() -> None:
    assert quiet(window=Rect(40, 40, 600, 400), screen=SCREEN, capture_hash="b", previous_capture_hash="a") == []


def test_actionable_lines_count_roles_settable_and_secondary_actions() -> None:
    lines = [
        "g1:0 window Main",
        "\tg1:1 label Hello",
        "\tg1:2 static text Hi",
        "\tg1:3 text (settable, string) Name",
        "\tg1:4 image Logo, Secondary Actions: show menu",
        "\tg1:5 push button OK",
        "\tg1:6 button Cancel",
        "\tg1:7 toggle button (selected) Bold",
        "\tg1:8 label (selected, settable, string) Editable",
    ]
    assert actionable_lines(lines) == 6


def test_role_must_be_the_whole_role_text() -> None:
    # "buttons panel" is not a "button"; a title in parentheses is not a trait.
    assert actionable_lines(["\tg1:1 buttons panel", "\tg1:2 label Save (settable)"]) == 0


def test_menu_bar_and_its_items_do_not_count() -> None:
    lines = [
        "g2:0 window Shell",
        "\tg2:1 push button Close",
        "g2:2 menu bar",
        "\tg2:3 menu File",
        "\t\tg2:4 menu item Open",
        "\t\tg2:5 menu item Save",
        "\t\tg2:6 menu item Quit",
    ]
    assert actionable_lines(lines) == 1
    assert notices(Facts(lines=lines)) == [SHELL_TREE_ADVICE]


def test_lines_after_the_menu_bar_count_again() -> None:
    lines = ["g2:0 menu bar", "\tg2:1 menu item Open", "g2:2 window W", "\tg2:3 push button A"]
    assert actionable_lines(lines) == 1


@pytest.mark.parametrize("count", [0, 1, 2])
def test_two_or_fewer_actionable_lines_give_the_shell_tree_advice(count: int) -> None:
    lines = ["g1:0 window W"] + [f"\tg1:{i + 1} push button B{i}" for i in range(count)]
    assert notices(Facts(lines=lines)) == [SHELL_TREE_ADVICE]


def test_three_actionable_lines_are_not_chrome_only() -> None:
    lines = ["g1:0 window W"] + [f"\tg1:{i + 1} push button B{i}" for i in range(3)]
    assert notices(Facts(lines=lines)) == []


def test_an_incomplete_tree_gets_no_shell_tree_advice() -> None:
    assert notices(Facts(lines=["g1:0 window W"], tree_complete=False)) == []


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        (Rect(0, 0, 1280, 1024), []),
        (Rect(1000, 100, 600, 400), [OFF_SCREEN]),
        (Rect(-50, 100, 600, 400), [OFF_SCREEN]),
        (Rect(100, 900, 600, 400), [OFF_SCREEN]),
        (Rect(1280, 0, 600, 400), [ALL_OFF_SCREEN]),
        (Rect(-600, -400, 600, 400), [ALL_OFF_SCREEN]),
    ],
)
def test_off_screen_notice_from_frame_and_screen(window: Rect, expected: list[str]) -> None:
    assert quiet(window=window, screen=SCREEN) == expected


def test_unknown_geometry_gives_no_off_screen_notice() -> None:
    assert quiet(window=Rect(-50, 0, 10, 10)) == []
    assert quiet(screen=SCREEN) == []


def test_covered_window_notice() -> None:
    assert quiet(covered=True) == [COVERED]


def test_identical_capture_needs_an_equal_previous_one_and_an_action_the_app_did_not_react_to() -> None:
    assert quiet(capture_hash="a", previous_capture_hash="a", acted=True) == [IDENTICAL_CAPTURE]
    assert quiet(capture_hash="a", previous_capture_hash=None, acted=True) == []
    assert quiet(capture_hash=None, previous_capture_hash=None, acted=True) == []
    assert quiet(capture_hash="a", previous_capture_hash="b", acted=True) == []
    # no action since the previous capture: an unchanged screen is expected, not news
    assert quiet(capture_hash="a", previous_capture_hash="a") == []
    # the app reacted (events, drawing): the action got there, whatever the pixels show
    assert quiet(capture_hash="a", previous_capture_hash="a", acted=True, reacted=True) == []


def test_notices_come_in_a_fixed_order() -> None:
    facts = Facts(
        lines=["g1:0 window W"],
        window=Rect(1200, 0, 200, 200),
        screen=SCREEN,
        covered=True,
        capture_hash="h",
        previous_capture_hash="h",
        acted=True,
    )
    assert notices(facts) == [SHELL_TREE_ADVICE, OFF_SCREEN, COVERED, IDENTICAL_CAPTURE]


ALL = [SHELL_TREE_ADVICE, OFF_SCREEN, ALL_OFF_SCREEN, COVERED, IDENTICAL_CAPTURE]


@pytest.mark.parametrize("text", ALL)
def test_each_notice_is_one_line_and_reads_as_no_tree_line(text: str) -> None:
    assert "\n" not in text and text == text.strip()
    assert not text.startswith(("+", "~", "\t", "g", DIFF_HEADER_PREFIX, NO_CHANGE_PREFIX, REMOVED_PREFIX))


def test_notices_after_a_no_change_text_keep_the_index_map() -> None:
    index = IndexMap()
    index.remember("\n".join(RICH))
    index.remember(f'{NO_CHANGE_PREFIX} for Window: "Doc".' + "\n\n" + "\n".join(ALL))
    assert dict(index) == {0: "g3:0", 1: "g3:1", 2: "g3:2", 3: "g3:3"}
