"""A typed deskhand error across the Ray boundary: sent as data, raised again as the same class.

Some errors take positional arguments other than the message (``NativeError(code, message)``), which
pickling an exception cannot replay; so the host sends the class name and the fields, and the lease
holder builds the same class with the same ``message``, ``code``, ``dispatched`` and ``details``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from deskhand.core import errors

ERROR_KEY: Final = "__deskhand_error__"


def pack(exc: errors.DeskhandError) -> dict[str, object]:
    return {
        ERROR_KEY: {
            "class": type(exc).__name__,
            "message": exc.message,
            "code": exc.code,
            "dispatched": exc.dispatched,
            "details": dict(exc.details),
        }
    }


def unpack(value: object) -> errors.DeskhandError | None:
    """The error ``value`` carries, or None for an ordinary result."""
    if not isinstance(value, Mapping) or not isinstance(fields := value.get(ERROR_KEY), Mapping):
        return None
    cls = getattr(errors, str(fields["class"]), None)
    if not (isinstance(cls, type) and issubclass(cls, errors.DeskhandError)):
        cls = errors.DeskhandError
    exc = cls.__new__(cls)
    Exception.__init__(exc, fields["message"])
    exc.message = str(fields["message"])
    exc.code = str(fields["code"])
    exc.dispatched = fields["dispatched"]
    exc.details = dict(fields["details"])
    return exc
