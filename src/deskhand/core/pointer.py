"""Pointer event factories: the 5-event drag, click pairs, the hover and the cancel release.

native-contract.md 6.3 (click) and 6.4 (drag). Every gesture is allocated as a complete list
before the first post; a backend posts the list in order with no pauses, and when posting stops
early it posts :func:`release_after` so that no button stays pressed.

Event numbers come from an iterator the caller owns (:func:`event_numbers`), so a session keeps
one monotonic sequence and tests can pass fixed numbers.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Final, Literal

from deskhand.core.errors import ArgumentError
from deskhand.core.geometry import Point

Button = Literal["left", "right", "middle", "back", "forward"]
EventKind = Literal["down", "up", "dragged", "moved"]

BUTTONS: Final[tuple[Button, ...]] = ("left", "right", "middle", "back", "forward")
MAX_CLICK_COUNT: Final = 3

#: The semantic tools' ``mouse_button`` names and aliases (1.4); trimmed, case-insensitive.
BUTTON_ALIASES: Final[Mapping[str, Button]] = MappingProxyType(
    {
        "left": "left", "l": "left", "right": "right", "r": "right", "middle": "middle", "m": "middle",
        "back": "back", "forward": "forward",
    }
)  # fmt: skip
#: The semantic tools' ``mouse_button`` schema enum (1.4): exact names, in the contract's order.
TOOL_BUTTON_NAMES: Final = ("left", "middle", "right", "back", "forward", "l", "m", "r")
#: The semantic tools' legacy numeric buttons.
LEGACY_BUTTON_NUMBERS: Final[Mapping[int, Button]] = MappingProxyType(
    {1: "left", 2: "middle", 3: "right", 4: "back", 5: "forward"}
)
#: The JS facade's numeric ``mouseButton`` (2.3).
JS_BUTTON_NUMBERS: Final[Mapping[int, Button]] = MappingProxyType({0: "left", 1: "right", 2: "middle"})
JS_BUTTON_NAMES: Final = ("left", "right", "middle", "l", "r", "m")

#: X11 core pointer buttons (back and forward are 8 and 9 by X convention).
X_BUTTONS: Final[Mapping[Button, int]] = MappingProxyType({"left": 1, "middle": 2, "right": 3, "back": 8, "forward": 9})
#: CGMouseButton raw values. Back and forward were not read from the source (section 8); 3 and 4
#: are the numbers AppKit reports for those buttons.
CG_BUTTONS: Final[Mapping[Button, int]] = MappingProxyType(
    {"left": 0, "right": 1, "middle": 2, "back": 3, "forward": 4}
)


@dataclass(frozen=True, slots=True)
class PointerEvent:
    """One pointer event at a global point, with the click state and event number it carries."""

    kind: EventKind
    button: Button
    point: Point
    click_state: int
    event_number: int


def event_numbers(start: int = 1) -> Iterator[int]:
    """A monotonic event-number source for one session."""
    return itertools.count(start)


def button_from_tool(value: object) -> Button:
    """A semantic tool's ``mouse_button``: a name or alias, or a legacy number 1..5."""
    if isinstance(value, int) and not isinstance(value, bool) and value in LEGACY_BUTTON_NUMBERS:
        return LEGACY_BUTTON_NUMBERS[value]
    if isinstance(value, str) and value.strip().lower() in BUTTON_ALIASES:
        return BUTTON_ALIASES[value.strip().lower()]
    raise ArgumentError("mouse_button must be left, middle, right, back, forward, l, m, or r")


def button_from_js(value: object) -> Button:
    """The JS facade's ``mouseButton``: 0/1/2 or left/right/middle/l/r/m (2.3)."""
    if isinstance(value, bool):
        raise ArgumentError("mouseButton must be left, right, middle, l, r, m, 0, 1, or 2")
    if isinstance(value, int | float):
        if value in JS_BUTTON_NUMBERS:
            return JS_BUTTON_NUMBERS[int(value)]
        raise ArgumentError("mouseButton number must be 0, 1, or 2")
    name = value.strip().lower() if isinstance(value, str) else ""
    if name in JS_BUTTON_NAMES:
        return BUTTON_ALIASES[name]
    raise ArgumentError("mouseButton must be left, right, middle, l, r, m, 0, 1, or 2")


def check_click_count(count: object) -> int:
    """Native click count: an integer 1..3."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_CLICK_COUNT:
        raise ArgumentError("click_count must be an integer from 1 to 3")
    return count


def hover_event(point: Point, numbers: Iterator[int]) -> PointerEvent:
    """The pre-focus hover before a synthetic click: one move, click count 1, its own number."""
    return PointerEvent("moved", "left", point, 1, next(numbers))


def click_events(point: Point, button: Button, count: int, numbers: Iterator[int]) -> tuple[PointerEvent, ...]:
    """Click pairs: for i in 1..count, down then up with click state i and one shared number k_i."""
    pairs: list[PointerEvent] = []
    for state in range(1, check_click_count(count) + 1):
        number = next(numbers)
        pairs.append(PointerEvent("down", button, point, state, number))
        pairs.append(PointerEvent("up", button, point, state, number))
    return tuple(pairs)


def midpoint(a: Point, b: Point) -> Point:
    """(a + b) / 2 with the fraction kept."""
    return Point((a.x + b.x) / 2, (a.y + b.y) / 2)


def drag_events(origin: Point, destination: Point, button: Button, numbers: Iterator[int]) -> tuple[PointerEvent, ...]:
    """The 5-event drag: down, dragged at origin, midpoint and destination, up (6.4).

    The gesture number goes on the down and the up (click state 1); one different motion number
    goes on the three dragged events (click state 0). A zero-distance drag keeps all five.
    """
    gesture = next(numbers)
    motion = next(numbers)
    if motion == gesture:
        raise ArgumentError("drag needs two different event numbers")
    return (
        PointerEvent("down", button, origin, 1, gesture),
        PointerEvent("dragged", button, origin, 0, motion),
        PointerEvent("dragged", button, midpoint(origin, destination), 0, motion),
        PointerEvent("dragged", button, destination, 0, motion),
        PointerEvent("up", button, destination, 1, gesture),
    )


def release_after(events: Sequence[PointerEvent], failed_index: int) -> PointerEvent | None:
    """The up to post when posting stopped before ``events[failed_index]``, or None.

    The release goes to the last posted point and reuses the outstanding down's button, number
    and click state. The unsent tail is never posted.
    """
    posted = events[: max(failed_index, 0)]
    pressed: dict[tuple[Button, int], PointerEvent] = {}
    for event in posted:
        if event.kind == "down":
            pressed[event.button, event.event_number] = event
        elif event.kind == "up":
            pressed.pop((event.button, event.event_number), None)
    if not pressed:
        return None
    down = list(pressed.values())[-1]
    return replace(down, kind="up", point=posted[-1].point)
