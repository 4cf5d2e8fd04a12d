"""Scroll math with the seeds' values (native-contract.md 6.7, 7.1 replApi, 7.2 NativeScrollTests)."""

from __future__ import annotations

import math

import pytest

from deskhand.core.errors import ArgumentError
from deskhand.core.geometry import Point, Rect
from deskhand.core.scroll import (
    INT32_MAX,
    PAGE_SCROLL_ACTIONS,
    X_WHEEL_BUTTONS,
    Direction,
    ScrollDelta,
    ScrollPlan,
    check_js_pages,
    check_pages,
    parse_direction,
    plan_at_point,
    plan_indexed,
    round_half_away,
    scroll_delta,
)

ELEMENT_720x210 = Rect(100, 50, 720, 210)
WINDOW_552_HIGH = Rect(0, 0, 800, 552)


@pytest.mark.parametrize(
    ("direction", "pages", "expected"),
    [
        ("down", 0.5, ScrollDelta(0, -105)),
        ("down", 1.5, ScrollDelta(0, -315)),
        ("down", 0.123, ScrollDelta(0, -26)),
        ("up", 0.5, ScrollDelta(0, 105)),
        ("right", 0.5, ScrollDelta(-360, 0)),
        ("left", 1.5, ScrollDelta(1080, 0)),
    ],
)
def test_native_scroll_tests_indexed_deltas(direction: Direction, pages: float, expected: ScrollDelta) -> None:
    """NativeScrollTests: the delta values of 6.7 for an element 720 wide and 210 high."""
    plan = plan_indexed(direction, pages, ELEMENT_720x210)
    assert plan == ScrollPlan(Point(460, 155), expected)


def test_native_scroll_tests_window_extent_for_coordinates() -> None:
    """A 552-high window: down 0.5 -> -276 (and up 0.5 -> +276, seed 1), whatever lies under the point."""
    assert plan_at_point("down", 0.5, Point(30, 40), WINDOW_552_HIGH) == ScrollPlan(Point(30, 40), ScrollDelta(0, -276))
    assert plan_at_point("up", 0.5, Point(30, 40), WINDOW_552_HIGH).delta == ScrollDelta(0, 276)


@pytest.mark.parametrize(("value", "expected"), [(0.5, 1), (1.5, 2), (2.5, 3), (-0.5, -1), (-2.5, -3), (25.83, 26)])
def test_rounding_ties_away_from_zero(value: float, expected: int) -> None:
    assert round_half_away(value) == expected


def test_rounding_just_below_a_half() -> None:
    assert round_half_away(0.49999999999999994) == 0


def test_delta_clamped_to_int32_max() -> None:
    assert scroll_delta("up", 10, 1e300) == ScrollDelta(0, INT32_MAX)
    assert scroll_delta("right", 10, math.inf) == ScrollDelta(-INT32_MAX, 0)


def test_zero_extent_gives_zero() -> None:
    assert scroll_delta("down", 1, 0) == ScrollDelta(0, 0)


@pytest.mark.parametrize(
    ("value", "direction"),
    [
        ("up", "up"),
        ("u", "up"),
        (" Down ", "down"),
        ("D", "down"),
        ("left", "left"),
        ("l", "left"),
        ("RIGHT", "right"),
        ("r", "right"),
    ],
)
def test_repl_api_scroll_aliases_work(value: str, direction: Direction) -> None:
    """replApi.test.ts: scroll aliases work."""
    assert parse_direction(value) == direction


@pytest.mark.parametrize("value", ["", "upward", "north", 1, None])
def test_repl_api_invalid_directions_reject(value: object) -> None:
    """replApi.test.ts: invalid directions reject without a call."""
    with pytest.raises(ArgumentError, match=r"^direction must be up, down, left, or right$"):
        parse_direction(value)


@pytest.mark.parametrize("pages", [0, -1, math.inf, math.nan, -math.inf, "1", True])
def test_repl_api_invalid_pages_reject(pages: object) -> None:
    """replApi.test.ts / NativeScrollTests: invalid pages (0, -1, inf, NaN) reject."""
    with pytest.raises(ArgumentError, match=r"^pages must be a finite number > 0$"):
        check_pages(pages)


def test_js_pages_rule_has_no_upper_limit_and_a_huge_integer_is_refused_by_the_host_rule() -> None:
    check_js_pages(None)
    check_js_pages(11)
    with pytest.raises(ArgumentError, match=r"^pages must be a finite number > 0$"):
        check_js_pages(math.inf)
    with pytest.raises(ArgumentError, match="at most 10"):
        check_pages(10**400)  # compared as an integer: no OverflowError


def test_pages_at_most_10() -> None:
    assert check_pages(10) == 10.0
    assert check_pages(None) == 1.0
    assert check_pages(1e-9) == 1e-9
    with pytest.raises(ArgumentError, match="at most 10"):
        check_pages(10.000001)


def test_x_wheel_buttons() -> None:
    assert X_WHEEL_BUTTONS == {"up": 4, "down": 5, "left": 6, "right": 7}


def test_native_scroll_tests_page_action_to_axis_and_subrole() -> None:
    """NativeScrollTests: page action to axis and subrole (6.8 table)."""
    table = {raw: (a.scroll_bar_attribute, a.button_subrole, a.direction) for raw, a in PAGE_SCROLL_ACTIONS.items()}
    assert table == {
        "AXScrollUpByPage": ("AXVerticalScrollBar", "AXDecrementPage", "up"),
        "AXScrollDownByPage": ("AXVerticalScrollBar", "AXIncrementPage", "down"),
        "AXScrollLeftByPage": ("AXHorizontalScrollBar", "AXDecrementPage", "left"),
        "AXScrollRightByPage": ("AXHorizontalScrollBar", "AXIncrementPage", "right"),
    }
