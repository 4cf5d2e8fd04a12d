"""macOS backend, pure: CGEvent plans from the core's pointer, scroll and key decisions; layout lookup."""

from __future__ import annotations

import pytest

from deskhand.backends.macos import _events as ev
from deskhand.backends.macos._keylayout import build_reverse_map, lookup
from deskhand.core import keys as corekeys
from deskhand.core import pointer as corepointer
from deskhand.core import scroll as corescroll
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect

ORIGIN = Point(100, 50)


def test_five_event_drag_plan_carries_the_contract_fields() -> None:
    events = corepointer.drag_events(Point(110, 60), Point(131, 80), "left", iter([7, 8]))
    plans = ev.mouse_plans(events, 4242, ORIGIN)
    assert [p.type for p in plans] == [ev.LEFT_DOWN, ev.LEFT_DRAGGED, ev.LEFT_DRAGGED, ev.LEFT_DRAGGED, ev.LEFT_UP]
    assert [p.field(ev.FIELD_CLICK_STATE) for p in plans] == [1, 0, 0, 0, 1]
    assert [p.field(ev.FIELD_EVENT_NUMBER) for p in plans] == [7, 8, 8, 8, 7]
    assert plans[2].location == Point(120.5, 70)  # the fractional midpoint is kept
    assert plans[2].window_location == Point(20.5, 20)
    for p in plans:
        assert p.field(ev.FIELD_SUBTYPE) == 3
        assert p.field(91) == p.field(92) == 4242
        assert p.field(ev.FIELD_BUTTON_NUMBER) == 0 and p.button == 0 and p.pressure == 1.0


@pytest.mark.parametrize(
    ("button", "down", "up", "number"),
    [("left", 1, 2, 0), ("right", 3, 4, 1), ("middle", 25, 26, 2), ("back", 25, 26, 3), ("forward", 25, 26, 4)],
)
def test_click_pairs_per_button(button: corepointer.Button, down: int, up: int, number: int) -> None:
    plans = ev.mouse_plans(corepointer.click_events(Point(1, 2), button, 3, iter([10, 11, 12])), 9, ORIGIN)
    assert [p.type for p in plans] == [down, up] * 3
    assert [(p.field(ev.FIELD_CLICK_STATE), p.field(ev.FIELD_EVENT_NUMBER)) for p in plans] == [
        (1, 10), (1, 10), (2, 11), (2, 11), (3, 12), (3, 12),
    ]  # fmt: skip
    assert {p.field(ev.FIELD_BUTTON_NUMBER) for p in plans} == {number}


def test_hover_is_a_mouse_moved_with_click_count_one() -> None:
    plan = ev.mouse_plan(corepointer.hover_event(Point(5, 5), iter([3])), 1, ORIGIN)
    assert plan.type == ev.MOUSE_MOVED and plan.field(ev.FIELD_CLICK_STATE) == 1


def test_wheel_plan_uses_pixels_two_wheels_and_the_window_fields() -> None:
    plan = corescroll.plan_indexed("down", 0.5, Rect(0, 0, 100, 210))
    wheel = ev.wheel_plan(plan, 77, Point(0, 0))
    assert (wheel.units, wheel.wheel_count, wheel.wheel1, wheel.wheel2) == (0, 2, -105, 0)
    assert dict(wheel.int_fields) == {51: 77, 91: 77, 92: 77}
    right = ev.wheel_plan(corescroll.plan_indexed("right", 0.5, Rect(0, 0, 720, 10)), 1, Point(0, 0))
    assert (right.wheel1, right.wheel2) == (0, -360)


def _no_layout(_: str) -> tuple[int, frozenset[str]] | None:
    return None


def test_cmd_v_is_four_events_with_the_chord_and_baseline_flags() -> None:
    (chord,) = corekeys.parse_keys("cmd+v")
    plans = ev.key_burst(chord, lambda ch: (9, frozenset()) if ch == "v" else None, baseline_flags=0x100)
    assert [(p.kind, p.keycode, p.flags) for p in plans] == [
        ("flags", 0, 0x100000), ("down", 9, 0x100000), ("flags", 0, 0x100), ("up", 9, 0x100000),
    ]  # fmt: skip


def test_named_keys_use_carbon_codes_and_implied_shift() -> None:
    plans = ev.key_bursts(corekeys.parse_keys("ctrl+Return exclam"), _no_layout, 0)
    assert [p.keycode for p in plans if p.kind == "down"] == [36, 18]
    assert plans[1].flags == 0x40000 and plans[5].flags == 0x20000
    assert len(plans) == 8


def test_layout_modifiers_are_added_and_unknown_characters_refuse_the_whole_string() -> None:
    (chord,) = corekeys.parse_keys("?")
    assert ev.chord_key(chord, lambda ch: (44, frozenset({"shift"}))) == (44, frozenset({"shift"}))
    with pytest.raises(NativeError) as info:
        ev.key_bursts(corekeys.parse_keys("Return é"), _no_layout, 0)
    assert info.value.code == "unknown_key" and info.value.dispatched is False


def test_baseline_keeps_device_independent_bits_only() -> None:
    assert ev.baseline_flags(0x00100108) == 0x00100000


def _us_translate(code: int, state: int) -> str:
    table = {0: ("a", "A", "å", "Å"), 44: ("/", "?", "÷", "¿"), 18: ("1", "!", "¡", "⁄"), 9: ("v", "V", "√", "◊")}
    row = table.get(code)
    return row[(0, 0x02, 0x08, 0x0A).index(state)] if row else ""


def test_reverse_layout_map_first_match_wins_and_lowercase_fallback() -> None:
    reverse = build_reverse_map(_us_translate)
    assert reverse["a"] == (0, frozenset())
    assert reverse["?"] == (44, frozenset({"shift"}))
    assert reverse["å"] == (0, frozenset({"alt"}))
    assert reverse["¿"] == (44, frozenset({"shift", "alt"}))
    assert lookup(reverse, "v") == (9, frozenset())
    assert lookup({"ß": (1, frozenset())}, "ẞ") == (1, frozenset({"shift"}))
    assert lookup(reverse, "€") is None
