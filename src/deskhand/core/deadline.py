"""The deadline of the call in progress, carried down to every native call (issue 14 item 2).

A ``js`` cell has ``timeout_ms``; each native call it makes runs ``within`` the cell's remaining
time, and every wait below (an AT-SPI call, a ping's answer, a window's activation, a chunk of
typed text) asks ``remaining`` for its bound instead of using its own fixed timeout alone. The
value lives in a context variable, so it follows the call into the worker thread that runs it.

A call may also be given a ``stop`` flag: once its owner sets it (``js_reset``, an MCP
cancellation), the deadline counts as passed, so the call ends at its next deadline check (a typed
text at its next chunk) instead of running on for the rest of the cell's time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

__all__ = ("bound", "expired", "remaining", "within")

_AT: Final[ContextVar[float | None]] = ContextVar("deskhand_deadline", default=None)
_STOPS: Final[ContextVar[tuple[threading.Event, ...]]] = ContextVar("deskhand_deadline_stops", default=())


@contextmanager
def within(seconds: float | None, *, stop: threading.Event | None = None) -> Iterator[None]:
    """Run the block with at most ``seconds`` left (an enclosing, earlier deadline still wins; None
    adds no time bound), and passed at once when ``stop`` is set."""
    outer = _AT.get()
    at = outer if seconds is None else time.monotonic() + max(0.0, seconds)
    token = _AT.set(at if outer is None or at is None else min(at, outer))
    stops = _STOPS.set((*_STOPS.get(), stop)) if stop is not None else None
    try:
        yield
    finally:
        if stops is not None:
            _STOPS.reset(stops)
        _AT.reset(token)


def remaining() -> float | None:
    """Seconds left of the current deadline (0 when passed or stopped), or None when there is none."""
    if any(stop.is_set() for stop in _STOPS.get()):
        return 0.0
    at = _AT.get()
    return None if at is None else max(0.0, at - time.monotonic())


def bound(seconds: float) -> float:
    """``seconds``, or less when the current deadline comes first."""
    left = remaining()
    return seconds if left is None else min(seconds, left)


def expired() -> bool:
    left = remaining()
    return left is not None and left <= 0.0
