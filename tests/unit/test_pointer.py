"""Pointer events: the 5-event drag, click state, cancel release (native-contract.md 6.3, 6.4, 7.2)."""

from __future__ import annotations

import pytest

from deskhand.core.errors import ArgumentError
from deskhand.core.geometry import Point
from deskhand.core.pointer import (
    CG_BUTTONS,
    X_BUTTONS,
    Button,
    PointerEvent,
    button_from_js,
    button_from_tool,
    check_click_count,
    click_events,
    drag_events,
    event_numbers,
    hover_event,
    release_after,
)

DRAGS = {
    "stationary": (Point(100, 100), Point(100, 100)),
    "one_px": (Point(100, 100), Point(101, 100)),
    "long": (Point(0, 0), Point(2410, 1749)),
    "negative": (Point(-40, -30), Point(-10, 5)),
}
BUTTONS: tuple[Button, ...] = ("left", "right", "middle")


@pytest.mark.parametrize("button", BUTTONS)
@pytest.mark.parametrize("name", list(DRAGS))
def test_mouse_drag_event_tests_five_event_types_and_locations(name: str, button: Button) -> None:
    """MouseDragEventTests: type and location sequence for stationary, 1-px, long, negative drags."""
    origin, destination = DRAGS[name]
    events = drag_events(origin, destination, button, event_numbers())
    assert [e.kind for e in events] == ["down", "dragged", "dragged", "dragged", "up"]
    assert [e.button for e in events] == [button] * 5
    mid = Point((origin.x + destination.x) / 2, (origin.y + destination.y) / 2)
    assert [e.point for e in events] == [origin, origin, mid, destination, destination]


def test_mouse_drag_event_tests_click_state_and_number_pairing() -> None:
    """MouseDragEventTests: click state [1,0,0,0,1]; down==up, 3 motion numbers equal, motion != down."""
    events = drag_events(Point(1, 2), Point(3, 4), "left", event_numbers(7))
    assert [e.click_state for e in events] == [1, 0, 0, 0, 1]
    down, d1, d2, d3, up = (e.event_number for e in events)
    assert down == up == 7
    assert d1 == d2 == d3 == 8
    assert d1 != down


def test_drag_midpoint_keeps_the_fraction() -> None:
    events = drag_events(Point(100, 100), Point(101, 100), "left", event_numbers())
    assert events[2].point == Point(100.5, 100)
    events = drag_events(Point(0, 0), Point(2410, 1749), "left", event_numbers())
    assert events[2].point == Point(1205, 874.5)


def test_zero_distance_drag_keeps_all_five_and_is_not_a_click() -> None:
    events = drag_events(Point(5, 5), Point(5, 5), "left", event_numbers())
    assert len(events) == 5
    assert events[1] == PointerEvent("dragged", "left", Point(5, 5), 0, events[1].event_number)


def test_drag_needs_two_distinct_numbers() -> None:
    with pytest.raises(ArgumentError):
        drag_events(Point(0, 0), Point(1, 1), "left", iter([4, 4]))


def test_consecutive_drags_never_share_numbers() -> None:
    numbers = event_numbers()
    first = {e.event_number for e in drag_events(Point(0, 0), Point(1, 1), "left", numbers)}
    second = {e.event_number for e in drag_events(Point(0, 0), Point(1, 1), "left", numbers)}
    assert not first & second


@pytest.mark.parametrize("count", [1, 2, 3])
def test_mouse_click_state_tests_button_transitions_1_to_n(count: int) -> None:
    """MouseClickStateTests: button transitions carry click state 1..N; press and release share a number."""
    events = click_events(Point(10, 20), "left", count, event_numbers(40))
    assert [(e.kind, e.click_state) for e in events] == [
        (kind, state) for state in range(1, count + 1) for kind in ("down", "up")
    ]
    numbers = [e.event_number for e in events]
    assert numbers == [n for n in range(40, 40 + count) for _ in (0, 1)]
    assert all(e.point == Point(10, 20) for e in events)


def test_mouse_click_state_tests_movement_events_have_click_state_0() -> None:
    """MouseClickStateTests: movement events have click state 0 (the dragged events)."""
    events = drag_events(Point(0, 0), Point(9, 9), "left", event_numbers())
    assert {e.click_state for e in events if e.kind == "dragged"} == {0}


def test_mouse_click_state_tests_lone_events_get_unique_numbers() -> None:
    """MouseClickStateTests: lone events get unique numbers (the hover before a click)."""
    numbers = event_numbers()
    hover = hover_event(Point(1, 1), numbers)
    clicks = click_events(Point(1, 1), "right", 2, numbers)
    assert hover.kind == "moved"
    assert hover.click_state == 1
    assert hover.event_number not in {e.event_number for e in clicks}


@pytest.mark.parametrize("count", [0, 4, -1, 1.0, True, "2"])
def test_click_count_is_1_to_3(count: object) -> None:
    with pytest.raises(ArgumentError):
        check_click_count(count)


def test_release_after_each_post_of_a_drag() -> None:
    """MouseDragEventTests: cancellation after each post releases only an outstanding down,
    at the last posted point, with the original event number."""
    events = drag_events(Point(0, 0), Point(10, 20), "right", event_numbers(3))
    assert release_after(events, 0) is None
    for posted in range(1, 5):
        release = release_after(events, posted)
        assert release == PointerEvent("up", "right", events[posted - 1].point, 1, 3)
    assert release_after(events, 5) is None


def test_release_after_a_cancelled_click() -> None:
    events = click_events(Point(7, 8), "left", 3, event_numbers(20))
    assert release_after(events, 1) == PointerEvent("up", "left", Point(7, 8), 1, 20)
    assert release_after(events, 2) is None
    assert release_after(events, 5) == PointerEvent("up", "left", Point(7, 8), 3, 22)
    assert release_after(events, 6) is None


@pytest.mark.parametrize(
    ("value", "button"),
    [
        ("left", "left"), ("l", "left"), (" Right ", "right"), ("R", "right"), ("middle", "middle"),
        ("m", "middle"), ("back", "back"), ("forward", "forward"), (1, "left"), (2, "middle"),
        (3, "right"), (4, "back"), (5, "forward"),
    ],
)  # fmt: skip
def test_tool_mouse_button_aliases(value: object, button: Button) -> None:
    assert button_from_tool(value) == button


@pytest.mark.parametrize("value", ["", "centre", 0, 6, True, None, 1.5])
def test_tool_mouse_button_rejects(value: object) -> None:
    with pytest.raises(ArgumentError):
        button_from_tool(value)


@pytest.mark.parametrize(
    ("value", "button"),
    [(0, "left"), (1, "right"), (2, "middle"), (" L ", "left"), ("r", "right"), ("Middle", "middle")],
)
def test_repl_api_mouse_button_aliases(value: object, button: Button) -> None:
    """replApi.test.ts: mouseButton aliases (0/1/2 and l/r/m) and trimmed case-insensitive strings."""
    assert button_from_js(value) == button


def test_repl_api_mouse_button_errors() -> None:
    with pytest.raises(ArgumentError, match=r"^mouseButton number must be 0, 1, or 2$"):
        button_from_js(3)
    with pytest.raises(ArgumentError, match=r"^mouseButton must be left, right, middle, l, r, m, 0, 1, or 2$"):
        button_from_js("back")


def test_native_button_numbers() -> None:
    assert X_BUTTONS == {"left": 1, "middle": 2, "right": 3, "back": 8, "forward": 9}
    assert (CG_BUTTONS["left"], CG_BUTTONS["right"], CG_BUTTONS["middle"]) == (0, 1, 2)
