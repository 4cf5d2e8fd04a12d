"""CGEvent plans for the core's pointer, scroll and key decisions (macOS; native-contract 6.3-6.5, 6.7).

Pure: no pyobjc import. Every gesture is planned completely before the first post; a plan holds
the CGEventType, the location, and every integer field the contract sets, so ``_quartz_input``
only creates, stamps and posts. Field numbers are ``CGEventField`` raw values; 51, 91 and 92 are
the window fields the contract names (91/92 are ``kCGMouseEventWindowUnderMousePointer`` and
``...ThatCanHandleThisEvent``; 51 is unnamed in the public headers and used as the contract says).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

from deskhand.core import carbonkeys
from deskhand.core import keys as corekeys
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point
from deskhand.core.pointer import CG_BUTTONS, Button, PointerEvent
from deskhand.core.scroll import ScrollPlan

# CGEventType raw values.
LEFT_DOWN, LEFT_UP, RIGHT_DOWN, RIGHT_UP, MOUSE_MOVED = 1, 2, 3, 4, 5
LEFT_DRAGGED, RIGHT_DRAGGED = 6, 7
KEY_DOWN, KEY_UP, FLAGS_CHANGED = 10, 11, 12
SCROLL_WHEEL = 22
OTHER_DOWN, OTHER_UP, OTHER_DRAGGED = 25, 26, 27

# CGEventField raw values.
FIELD_EVENT_NUMBER: Final = 0  # kCGMouseEventNumber
FIELD_CLICK_STATE: Final = 1  # kCGMouseEventClickState
FIELD_PRESSURE: Final = 2  # kCGMouseEventPressure (a double field)
FIELD_BUTTON_NUMBER: Final = 3  # kCGMouseEventButtonNumber
FIELD_SUBTYPE: Final = 7  # kCGMouseEventSubtype
FIELD_SCROLL_WINDOW: Final = 51
FIELD_WINDOW_UNDER_POINTER: Final = 91
FIELD_WINDOW_THAT_CAN_HANDLE: Final = 92
#: The subtype value the contract puts on every pointer event (field 7 = 3).
POINTER_SUBTYPE: Final = 3
PRESSURE: Final = 1.0
#: kCGScrollEventUnitPixel, and the two wheels (wheel1 = dy, wheel2 = dx).
SCROLL_UNIT_PIXEL: Final = 0
SCROLL_WHEEL_COUNT: Final = 2

_TYPES: Final[Mapping[tuple[str, str], int]] = MappingProxyType(
    {
        ("down", "left"): LEFT_DOWN, ("up", "left"): LEFT_UP, ("dragged", "left"): LEFT_DRAGGED,
        ("down", "right"): RIGHT_DOWN, ("up", "right"): RIGHT_UP, ("dragged", "right"): RIGHT_DRAGGED,
        ("down", "other"): OTHER_DOWN, ("up", "other"): OTHER_UP, ("dragged", "other"): OTHER_DRAGGED,
    }
)  # fmt: skip


def event_type(kind: str, button: Button) -> int:
    """The CGEventType of a core pointer event (middle, back and forward use the ``other`` types)."""
    if kind == "moved":
        return MOUSE_MOVED
    side = button if button in ("left", "right") else "other"
    return _TYPES[kind, side]


@dataclass(frozen=True, slots=True)
class MousePlan:
    """One pointer CGEvent: ``CGEventCreateMouseEvent(type, location, button)`` plus its fields."""

    type: int
    button: int
    location: Point
    #: Window-local location (global − window origin, not flipped) for ``CGEventSetWindowLocation``.
    window_location: Point
    int_fields: tuple[tuple[int, int], ...]
    pressure: float = PRESSURE

    def field(self, number: int) -> int | None:
        return dict(self.int_fields).get(number)


def mouse_plan(event: PointerEvent, window_id: int, window_origin: Point) -> MousePlan:
    button = CG_BUTTONS[event.button]
    fields = (
        (FIELD_EVENT_NUMBER, event.event_number),
        (FIELD_CLICK_STATE, event.click_state),
        (FIELD_BUTTON_NUMBER, button),
        (FIELD_SUBTYPE, POINTER_SUBTYPE),
        (FIELD_WINDOW_UNDER_POINTER, window_id),
        (FIELD_WINDOW_THAT_CAN_HANDLE, window_id),
    )
    local = Point(event.point.x - window_origin.x, event.point.y - window_origin.y)
    return MousePlan(event_type(event.kind, event.button), button, event.point, local, fields)


def mouse_plans(events: Sequence[PointerEvent], window_id: int, window_origin: Point) -> tuple[MousePlan, ...]:
    """The whole gesture, allocated before the first post (6.3, 6.4)."""
    return tuple(mouse_plan(e, window_id, window_origin) for e in events)


@dataclass(frozen=True, slots=True)
class WheelPlan:
    """One ``CGEventCreateScrollWheelEvent2(source, pixel, 2, dy, dx, 0)`` at a point (6.7)."""

    location: Point
    window_location: Point
    wheel1: int
    wheel2: int
    int_fields: tuple[tuple[int, int], ...]
    units: int = SCROLL_UNIT_PIXEL
    wheel_count: int = SCROLL_WHEEL_COUNT


def wheel_plan(plan: ScrollPlan, window_id: int, window_origin: Point) -> WheelPlan:
    fields = tuple(
        (f, window_id) for f in (FIELD_SCROLL_WINDOW, FIELD_WINDOW_UNDER_POINTER, FIELD_WINDOW_THAT_CAN_HANDLE)
    )
    local = Point(plan.point.x - window_origin.x, plan.point.y - window_origin.y)
    return WheelPlan(plan.point, local, plan.delta.dy, plan.delta.dx, fields)


KeyKind = Literal["flags", "down", "up"]


@dataclass(frozen=True, slots=True)
class KeyPlan:
    """One keyboard CGEvent: a flagsChanged (keycode unused) or a keyDown/keyUp with its flags."""

    kind: KeyKind
    keycode: int
    flags: int


#: Character → (virtual keycode, layout modifiers), from the current layout (``_keylayout``).
CharLookup = Callable[[str], tuple[int, frozenset[str]] | None]


def chord_key(chord: corekeys.Chord, lookup: CharLookup) -> tuple[int, frozenset[str]]:
    """The chord's keycode and all its modifiers (layout modifiers of a character added).

    Raises:
        NativeError: ``unknown_key`` when the current layout has no key for the character.
    """
    code = carbonkeys.carbon_key_code(chord)
    if code is not None:
        return code, chord.modifiers
    found = lookup(chord.key)
    if found is None:
        raise NativeError("unknown_key", f'The current keyboard layout has no key for "{chord.key}".', dispatched=False)
    keycode, layout_mods = found
    return keycode, chord.modifiers | layout_mods


def key_burst(chord: corekeys.Chord, lookup: CharLookup, baseline_flags: int) -> tuple[KeyPlan, ...]:
    """flagsChanged(chord), keyDown, flagsChanged(baseline), keyUp (6.5): four events per chord."""
    keycode, mods = chord_key(chord, lookup)
    flags = carbonkeys.carbon_flags(mods)
    return (
        KeyPlan("flags", 0, flags),
        KeyPlan("down", keycode, flags),
        KeyPlan("flags", 0, baseline_flags),
        KeyPlan("up", keycode, flags),
    )


def key_bursts(chords: Sequence[corekeys.Chord], lookup: CharLookup, baseline_flags: int) -> tuple[KeyPlan, ...]:
    """Every chord's burst, all allocated before posting (an unknown key refuses the whole string)."""
    return tuple(plan for chord in chords for plan in key_burst(chord, lookup, baseline_flags))


#: ``NSEvent.modifierFlags`` device-independent mask: the baseline keeps only these bits.
DEVICE_INDEPENDENT_MASK: Final = 0xFFFF0000


def baseline_flags(session_flags: int) -> int:
    """The baseline flags for the third event: the combined session state's modifier bits."""
    return session_flags & DEVICE_INDEPENDENT_MASK
