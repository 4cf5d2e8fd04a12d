"""Scroll math: pages of a target's extent into precise two-axis pixel deltas (native-contract.md 6.7).

``delta = round(extent × pages)`` with ties away from zero, negative for down and right. The
extent is the element's frame for an indexed target and the bound window's frame for a
coordinate target, even when a nested scroll view sits under the point. Both axes are kept.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal, cast

from deskhand.core.errors import ArgumentError
from deskhand.core.geometry import Point, Rect

Direction = Literal["up", "down", "left", "right"]

MAX_PAGES: Final = 10.0
DEFAULT_PAGES: Final = 1.0
INT32_MAX: Final = 2**31 - 1

DIRECTION_MESSAGE: Final = "direction must be up, down, left, or right"
PAGES_MESSAGE: Final = "pages must be a finite number > 0"
#: Ours: the contract fixes the limit (0 < pages ≤ 10) but not this text.
PAGES_MAX_MESSAGE: Final = "pages must be at most 10"

DIRECTION_ALIASES: Final[Mapping[str, Direction]] = MappingProxyType(
    {"up": "up", "u": "up", "down": "down", "d": "down", "left": "left", "l": "left", "right": "right", "r": "right"}
)
#: Each direction's reverse (a wheel scroll that overshot is corrected back).
OPPOSITE: Final[Mapping[Direction, Direction]] = MappingProxyType(
    {"up": "down", "down": "up", "left": "right", "right": "left"}
)
#: The semantic tools' ``direction`` schema enum (1.4): exact names, in the contract's order.
TOOL_DIRECTION_NAMES: Final = ("up", "down", "left", "right", "u", "d", "l", "r")
#: X11 wheel buttons for the wheel route on Linux.
X_WHEEL_BUTTONS: Final[Mapping[Direction, int]] = MappingProxyType({"up": 4, "down": 5, "left": 6, "right": 7})


@dataclass(frozen=True, slots=True)
class ScrollDelta:
    """Pixel deltas: dx for horizontal, dy for vertical; negative is down or right."""

    dx: int
    dy: int


@dataclass(frozen=True, slots=True)
class ScrollPlan:
    """Where to scroll (a global point) and by how much."""

    point: Point
    delta: ScrollDelta


def parse_direction(value: object) -> Direction:
    """up/down/left/right or u/d/l/r, trimmed and case-insensitive."""
    direction = DIRECTION_ALIASES.get(value.strip().lower()) if isinstance(value, str) else None
    if direction is None:
        raise ArgumentError(DIRECTION_MESSAGE)
    return direction


def check_js_pages(pages: object) -> None:
    """The JS facade's rule (2.3): absent (None), or a finite number > 0; the host adds ≤ 10."""
    if pages is None:
        return
    if isinstance(pages, bool) or not isinstance(pages, int | float):
        raise ArgumentError(PAGES_MESSAGE)
    if (isinstance(pages, float) and not math.isfinite(pages)) or pages <= 0:  # an int is never converted
        raise ArgumentError(PAGES_MESSAGE)


def check_pages(pages: object) -> float:
    """Absent means 1; otherwise a finite number with 0 < pages ≤ 10."""
    check_js_pages(pages)
    if pages is None:
        return DEFAULT_PAGES
    if cast("float", pages) > MAX_PAGES:  # compared before float(): a huge JSON integer overflows a float
        raise ArgumentError(PAGES_MAX_MESSAGE)
    return float(cast("float", pages))


def round_half_away(value: float) -> int:
    """Round to nearest, ties away from zero (Swift's ``.rounded()``)."""
    magnitude = abs(value)
    whole = math.floor(magnitude)
    if magnitude - whole >= 0.5:  # exact for doubles, unlike floor(x + 0.5)
        whole += 1
    return int(math.copysign(whole, value)) if whole else 0


def extent(direction: Direction, frame: Rect) -> float:
    """Height for vertical scrolling, width for horizontal."""
    return frame.height if direction in ("up", "down") else frame.width


def scroll_delta(direction: Direction, pages: float, extent_points: float) -> ScrollDelta:
    """``round(extent × pages)``, clamped to Int32.max, signed and placed on its axis."""
    if math.isnan(extent_points) or extent_points < 0:
        raise ArgumentError("scroll extent must be a size >= 0")
    magnitude = round_half_away(min(extent_points * check_pages(pages), float(INT32_MAX)))
    signed = -magnitude if direction in ("down", "right") else magnitude
    return ScrollDelta(0, signed) if direction in ("up", "down") else ScrollDelta(signed, 0)


def plan_indexed(direction: Direction, pages: float, element_frame: Rect) -> ScrollPlan:
    """Indexed target: the element's frame gives the extent; the point is its centre."""
    return ScrollPlan(element_frame.center, scroll_delta(direction, pages, extent(direction, element_frame)))


def plan_at_point(direction: Direction, pages: float, point: Point, window_frame: Rect) -> ScrollPlan:
    """Coordinate target: the bound window's frame gives the extent."""
    return ScrollPlan(point, scroll_delta(direction, pages, extent(direction, window_frame)))


@dataclass(frozen=True, slots=True)
class PageAction:
    """How a page-scroll secondary action is performed: the scroll bar's page button (6.8)."""

    scroll_bar_attribute: str
    button_subrole: str
    direction: Direction


#: Raw AX page-scroll action -> the scroll bar attribute and page-button subrole that perform it.
PAGE_SCROLL_ACTIONS: Final[Mapping[str, PageAction]] = MappingProxyType(
    {
        "AXScrollUpByPage": PageAction("AXVerticalScrollBar", "AXDecrementPage", "up"),
        "AXScrollDownByPage": PageAction("AXVerticalScrollBar", "AXIncrementPage", "down"),
        "AXScrollLeftByPage": PageAction("AXHorizontalScrollBar", "AXDecrementPage", "left"),
        "AXScrollRightByPage": PageAction("AXHorizontalScrollBar", "AXIncrementPage", "right"),
    }
)
