"""Observation helpers for the matrix tests: poll an app's state with a deadline."""

from __future__ import annotations

import re
import time
from typing import Any

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

HANDLE = r"g\d+:\d+"


def state_with(ex: LinuxExecutor, app: Any, pattern: str, timeout_s: float = 40.0) -> str:
    """The full state text once ``pattern`` is in it. An app still starting may not answer its
    first reads in time (``ax_failed``): those are retried until the deadline."""
    deadline = time.monotonic() + timeout_s
    text = ""
    while True:
        try:
            text = ex.get_app_state(app, disable_diff=True).text
        except NativeError as e:
            if e.code != "ax_failed" or time.monotonic() >= deadline:
                raise
            text = f"<{e.message}>"
        if re.search(pattern, text, re.M):
            return text
        assert time.monotonic() < deadline, f"{pattern!r} never appeared in:\n{text}"
        time.sleep(0.1)  # polling the app's state with a deadline


def handle(text: str, pattern: str) -> str:
    """The handle of the first line matching `` <pattern>`` after a handle."""
    m = re.search(rf"({HANDLE}) {pattern}", text, re.M)
    assert m is not None, f"{pattern!r} not in:\n{text}"
    return m.group(1)


def inside(inner: Rect, outer: Rect) -> bool:
    """Whether ``inner`` lies wholly within ``outer``."""
    return (
        outer.x <= inner.x
        and outer.y <= inner.y
        and inner.x + inner.width <= outer.x + outer.width
        and inner.y + inner.height <= outer.y + outer.height
    )
