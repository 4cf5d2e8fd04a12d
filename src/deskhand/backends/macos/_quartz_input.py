"""Posting CGEvent plans to one process on macOS (pointer, wheel, keys, Unicode text).

UNTESTED HERE: this module calls CoreGraphics through pyobjc (and the private
``CGEventSetWindowLocation`` through ctypes when the system has it) and runs only on a Mac with
the Accessibility permission; Linux CI only type-checks it. The plans (types, fields, order)
come from ``_events``, which is unit-tested.

Every event of a burst is created and filled before the first one is posted (an allocation
failure posts nothing), then the burst goes out with ``CGEventPostToPid`` and no pauses. The
event source uses ``kCGEventSourceStateHIDSystemState``; events are never posted to the HID tap.
Timestamps are stamped at post time from the uptime clock in nanoseconds.
"""

from __future__ import annotations

import ctypes
import sys
import time
from collections.abc import Sequence
from functools import cache
from typing import Any

import objc
import Quartz  # pyobjc-framework-Quartz

from deskhand.backends.macos._events import FIELD_PRESSURE, KeyPlan, MousePlan, WheelPlan
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point

_CG_PATH = "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics"


class _CGPoint(ctypes.Structure):
    _fields_ = (("x", ctypes.c_double), ("y", ctypes.c_double))


@cache
def _set_window_location() -> Any:
    """The private ``CGEventSetWindowLocation`` when this macOS exports it, else None."""
    try:
        fn = getattr(ctypes.CDLL(_CG_PATH), "CGEventSetWindowLocation", None)
    except OSError:
        return None
    if fn is not None:
        fn.argtypes = (ctypes.c_void_p, _CGPoint)
        fn.restype = None
    return fn


def _stamp_window_location(event: Any, local: Point) -> None:
    fn = _set_window_location()
    if fn is not None:
        fn(ctypes.c_void_p(objc.pyobjc_id(event)), _CGPoint(local.x, local.y))


@cache
def _source() -> Any:
    return Quartz.CGEventSourceCreate(Quartz.kCGEventSourceStateHIDSystemState)


def _now_ns() -> int:
    """Nanoseconds of the uptime clock (the base CGEvent timestamps count from)."""
    if sys.platform == "darwin":
        return time.clock_gettime_ns(time.CLOCK_UPTIME_RAW)
    return time.monotonic_ns()  # never reached: this module is imported on macOS only


def session_flags() -> int:
    """The combined session state's modifier flags (the baseline of a key burst)."""
    return int(Quartz.CGEventSourceFlagsState(Quartz.kCGEventSourceStateCombinedSessionState))


def _created(event: Any) -> Any:
    if event is None:
        raise NativeError(
            "input_failed", "Quartz could not create an input event; nothing was posted.", dispatched=False
        )
    return event


def _mouse_event(plan: MousePlan) -> Any:
    event = _created(
        Quartz.CGEventCreateMouseEvent(_source(), plan.type, (plan.location.x, plan.location.y), plan.button)
    )
    for number, value in plan.int_fields:
        Quartz.CGEventSetIntegerValueField(event, number, value)
    Quartz.CGEventSetDoubleValueField(event, FIELD_PRESSURE, plan.pressure)
    _stamp_window_location(event, plan.window_location)
    return event


def _wheel_event(plan: WheelPlan) -> Any:
    event = _created(
        Quartz.CGEventCreateScrollWheelEvent2(_source(), plan.units, plan.wheel_count, plan.wheel1, plan.wheel2, 0)
    )
    Quartz.CGEventSetLocation(event, (plan.location.x, plan.location.y))
    for number, value in plan.int_fields:
        Quartz.CGEventSetIntegerValueField(event, number, value)
    _stamp_window_location(event, plan.window_location)
    return event


def _key_event(plan: KeyPlan) -> Any:
    if plan.kind == "flags":
        event = _created(Quartz.CGEventCreate(_source()))
        Quartz.CGEventSetType(event, Quartz.kCGEventFlagsChanged)
    else:
        event = _created(Quartz.CGEventCreateKeyboardEvent(_source(), plan.keycode, plan.kind == "down"))
    Quartz.CGEventSetFlags(event, plan.flags)
    return event


def _post_all(pid: int, events: Sequence[Any]) -> None:
    for event in events:
        Quartz.CGEventSetTimestamp(event, _now_ns())
        Quartz.CGEventPostToPid(pid, event)


def post_mouse(pid: int, plans: Sequence[MousePlan]) -> None:
    _post_all(pid, [_mouse_event(p) for p in plans])


def post_wheel(pid: int, plan: WheelPlan) -> None:
    _post_all(pid, [_wheel_event(plan)])


def post_keys(pid: int, plans: Sequence[KeyPlan]) -> None:
    _post_all(pid, [_key_event(p) for p in plans])


def post_unicode(pid: int, chunk: str) -> None:
    """One Unicode chunk as a keycode-0 down/up pair carrying the string (6.6 route 2)."""
    units = len(chunk.encode("utf-16-le")) // 2
    events = []
    for down in (True, False):
        event = _created(Quartz.CGEventCreateKeyboardEvent(_source(), 0, down))
        Quartz.CGEventKeyboardSetUnicodeString(event, units, chunk)
        events.append(event)
    _post_all(pid, events)
