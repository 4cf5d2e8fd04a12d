"""AXError codes (HIServices ``AXError.h``) and their contract error codes, for the macOS backend.

Pure: no pyobjc import. ``_ax.py`` passes every returned status through :func:`check` so a native
failure becomes a ``NativeError`` with the contract's code at the boundary, and nothing is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from deskhand.core.errors import NativeError

SUCCESS: Final = 0
FAILURE: Final = -25200
ILLEGAL_ARGUMENT: Final = -25201
INVALID_UI_ELEMENT: Final = -25202
INVALID_UI_ELEMENT_OBSERVER: Final = -25203
CANNOT_COMPLETE: Final = -25204
ATTRIBUTE_UNSUPPORTED: Final = -25205
ACTION_UNSUPPORTED: Final = -25206
NOTIFICATION_UNSUPPORTED: Final = -25207
NOT_IMPLEMENTED: Final = -25208
NOTIFICATION_ALREADY_REGISTERED: Final = -25209
NOTIFICATION_NOT_REGISTERED: Final = -25210
API_DISABLED: Final = -25211
NO_VALUE: Final = -25212
PARAMETERIZED_ATTRIBUTE_UNSUPPORTED: Final = -25213
NOT_ENOUGH_PRECISION: Final = -25214

NAMES: Final[Mapping[int, str]] = MappingProxyType(
    {
        FAILURE: "kAXErrorFailure", ILLEGAL_ARGUMENT: "kAXErrorIllegalArgument",
        INVALID_UI_ELEMENT: "kAXErrorInvalidUIElement", INVALID_UI_ELEMENT_OBSERVER: "kAXErrorInvalidUIElementObserver",
        CANNOT_COMPLETE: "kAXErrorCannotComplete", ATTRIBUTE_UNSUPPORTED: "kAXErrorAttributeUnsupported",
        ACTION_UNSUPPORTED: "kAXErrorActionUnsupported", NOTIFICATION_UNSUPPORTED: "kAXErrorNotificationUnsupported",
        NOT_IMPLEMENTED: "kAXErrorNotImplemented",
        NOTIFICATION_ALREADY_REGISTERED: "kAXErrorNotificationAlreadyRegistered",
        NOTIFICATION_NOT_REGISTERED: "kAXErrorNotificationNotRegistered", API_DISABLED: "kAXErrorAPIDisabled",
        NO_VALUE: "kAXErrorNoValue", PARAMETERIZED_ATTRIBUTE_UNSUPPORTED: "kAXErrorParameterizedAttributeUnsupported",
        NOT_ENOUGH_PRECISION: "kAXErrorNotEnoughPrecision",
    }
)  # fmt: skip

#: Statuses that only say "this element has no such attribute/value": not failures of a read.
MISSING: Final = frozenset({NO_VALUE, ATTRIBUTE_UNSUPPORTED, PARAMETERIZED_ATTRIBUTE_UNSUPPORTED, NOT_IMPLEMENTED})

#: AXError → contract code. Anything else is ``ax_failed``.
CODES: Final[Mapping[int, str]] = MappingProxyType(
    {
        INVALID_UI_ELEMENT: "stale_element",
        API_DISABLED: "not_trusted",
        ACTION_UNSUPPORTED: "no_action",
        ATTRIBUTE_UNSUPPORTED: "not_settable",
    }
)

NOT_TRUSTED_MESSAGE: Final = (
    "Accessibility access is not granted to this process. Add the app running deskhand (Terminal, "
    "your editor or python) in System Settings > Privacy & Security > Accessibility, then restart it."
)


def name(status: int) -> str:
    return NAMES.get(status, f"AXError {status}")


def is_missing(status: int) -> bool:
    return status in MISSING


def to_error(status: int, operation: str, *, dispatched: bool | None = False) -> NativeError:
    """The ``NativeError`` for a failed AX status (``CANNOT_COMPLETE`` is the 2 s messaging timeout)."""
    code = CODES.get(status, "ax_failed")
    if code == "not_trusted":
        return NativeError(code, NOT_TRUSTED_MESSAGE, dispatched=False)
    if code == "stale_element":
        return NativeError(code, f"{operation}: the element is stale. Observe the app again.", dispatched=False)
    if status == CANNOT_COMPLETE:
        message = f"{operation}: the app did not answer within the accessibility timeout (it may be busy or hung)."
    else:
        message = f"{operation} failed ({name(status)})."
    return NativeError(code, message, dispatched=dispatched, details={"ax_error": status})


def check(status: int, operation: str, *, dispatched: bool | None = False) -> None:
    """Raise :func:`to_error` unless ``status`` is success."""
    if status != SUCCESS:
        raise to_error(status, operation, dispatched=dispatched)
