"""The deadline of the call in progress, carried down to every native call (issue 14 item 2).

A ``js`` cell has ``timeout_ms``; each native call it makes runs ``within`` the cell's remaining
time, and every wait below (an AT-SPI call, a ping's answer, a window's activation, a chunk of
typed text) asks ``remaining`` for its bound instead of using its own fixed timeout alone. The
value lives in a context variable, so it follows the call into the worker thread that runs it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

__all__ = ("bound", "expired", "remaining", "within")

_AT: Final[ContextVar[float | None]] = ContextVar("deskhand_deadline", default=None)


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Run the block with at most ``seconds`` left (an enclosing, earlier deadline still wins)."""
    at = time.monotonic() + max(0.0, seconds)
    outer = _AT.get()
    token = _AT.set(at if outer is None else min(at, outer))
    try:
        yield
    finally:
        _AT.reset(token)


def remaining() -> float | None:
    """Seconds left of the current deadline (0 when passed), or None when there is none."""
    at = _AT.get()
    return None if at is None else max(0.0, at - time.monotonic())


def bound(seconds: float) -> float:
    """``seconds``, or less when the current deadline comes first."""
    left = remaining()
    return seconds if left is None else min(seconds, left)


def expired() -> bool:
    left = remaining()
    return left is not None and left <= 0.0
