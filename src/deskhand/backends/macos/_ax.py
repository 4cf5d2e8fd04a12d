"""The AX boundary on macOS: AXUIElement reads, writes, actions and hit tests through pyobjc.

UNTESTED HERE: this module calls HIServices through pyobjc and runs only on a Mac with the
Accessibility permission; Linux CI type-checks it (``mypy --platform darwin``) and never imports it.
It converts every value at the boundary (AXValue → tuples/ranges, NSNumber → bool/int/float,
NSURL → str, arrays → lists) and checks every AXError through ``_axerrors``: a status is never
dropped. Each application element gets the contract's 2 s messaging timeout; child elements
inherit it from the application element they were read through.
"""

from __future__ import annotations

from typing import Any, Final

import HIServices  # pyobjc-framework-ApplicationServices
from CoreFoundation import CFGetTypeID, CFRangeMake

from deskhand.backends.macos import _axerrors
from deskhand.backends.macos._mapping import BATCH, Raw, needs_settable_check

#: The AX messaging timeout of the contract (3.2).
MESSAGING_TIMEOUT_S: Final = 2.0

#: An AXUIElementRef from pyobjc; opaque to everything above this module.
AXRef = Any


def is_trusted() -> bool:
    return bool(HIServices.AXIsProcessTrusted())


def application(pid: int) -> AXRef:
    """The app's AX element with the 2 s messaging timeout set."""
    app = HIServices.AXUIElementCreateApplication(pid)
    _axerrors.check(HIServices.AXUIElementSetMessagingTimeout(app, MESSAGING_TIMEOUT_S), "set the AX timeout")
    return app


def _convert(value: Any) -> object:
    """pyobjc value → plain Python (AXUIElementRefs pass through as refs)."""
    if value is None:
        return None
    type_id = CFGetTypeID(value)
    if type_id == HIServices.AXValueGetTypeID():
        return _axvalue(value)
    if type_id == HIServices.AXUIElementGetTypeID():
        return value
    if isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "absoluteString"):  # NSURL
        return str(value.absoluteString())
    if hasattr(value, "objCType"):  # NSNumber: 'c' and 'B' are booleans
        kind = value.objCType()
        if kind in (b"c", b"B", "c", "B"):
            return bool(value)
        return float(value) if kind in (b"d", b"f", "d", "f") else int(value)
    if isinstance(value, list | tuple) or (hasattr(value, "count") and hasattr(value, "objectAtIndex_")):
        return [_convert(v) for v in value]
    return str(value)


class _AXErrorValue:
    """An attribute the batch could not read (AXValue of type kAXValueAXErrorType)."""

    def __init__(self, status: int) -> None:
        self.status = status


def _axvalue(value: Any) -> object:
    kind = HIServices.AXValueGetType(value)
    if kind == HIServices.kAXValueCGPointType:
        _ok, p = HIServices.AXValueGetValue(value, kind, None)
        return (float(p.x), float(p.y))
    if kind == HIServices.kAXValueCGSizeType:
        _ok, s = HIServices.AXValueGetValue(value, kind, None)
        return (float(s.width), float(s.height))
    if kind == HIServices.kAXValueCFRangeType:
        _ok, r = HIServices.AXValueGetValue(value, kind, None)
        return (int(r.location), int(r.length))
    if kind == HIServices.kAXValueAXErrorType:
        _ok, status = HIServices.AXValueGetValue(value, kind, None)
        return _AXErrorValue(int(status))
    return None


def read(ref: AXRef) -> Raw | None:
    """One element: the BATCH in one call, its action names, and AXValue settability when it matters.

    None when the element is gone or the app did not answer (the walk leaves it out).
    """
    err, values = HIServices.AXUIElementCopyMultipleAttributeValues(ref, list(BATCH), 0, None)
    if err != _axerrors.SUCCESS:
        if err in (_axerrors.INVALID_UI_ELEMENT, _axerrors.CANNOT_COMPLETE):
            return None
        raise _axerrors.to_error(err, "read accessibility attributes")
    attrs: dict[str, object] = {}
    for name, value in zip(BATCH, values or (), strict=False):
        converted = _convert(value)
        if converted is not None and not isinstance(converted, _AXErrorValue):
            attrs[name] = converted
    err, names = HIServices.AXUIElementCopyActionNames(ref, None)
    actions = tuple(str(n) for n in names) if err == _axerrors.SUCCESS and names else ()
    settable = False
    if needs_settable_check(attrs):
        settable = is_settable(ref, "AXValue")
    return Raw(attrs, actions, settable)


def attribute(ref: AXRef, name: str) -> object:
    """One attribute, converted; None when the element has no such value."""
    err, value = HIServices.AXUIElementCopyAttributeValue(ref, name, None)
    if err == _axerrors.SUCCESS:
        return _convert(value)
    if _axerrors.is_missing(err):
        return None
    raise _axerrors.to_error(err, f"read {name}")


def is_settable(ref: AXRef, name: str) -> bool:
    err, settable = HIServices.AXUIElementIsAttributeSettable(ref, name, None)
    return err == _axerrors.SUCCESS and bool(settable)


def set_attribute(ref: AXRef, name: str, value: object) -> int:
    """Write one attribute; returns the AXError status (the caller decides what a failure means)."""
    return int(HIServices.AXUIElementSetAttributeValue(ref, name, value))


def set_range(ref: AXRef, name: str, location: int, length: int) -> int:
    """Write a CFRange attribute such as AXSelectedTextRange (UTF-16 units)."""
    value = HIServices.AXValueCreate(HIServices.kAXValueCFRangeType, CFRangeMake(location, length))
    return set_attribute(ref, name, value)


def perform(ref: AXRef, action: str) -> int:
    return int(HIServices.AXUIElementPerformAction(ref, action))


def element_at(app: AXRef, x: float, y: float) -> AXRef | None:
    """The element at a global point (AX hit test, bounded by the app's messaging timeout)."""
    err, found = HIServices.AXUIElementCopyElementAtPosition(app, x, y, None)
    return found if err == _axerrors.SUCCESS else None


def pid_of(ref: AXRef) -> int | None:
    err, pid = HIServices.AXUIElementGetPid(ref, None)
    return int(pid) if err == _axerrors.SUCCESS else None
