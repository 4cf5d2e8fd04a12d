"""The event log both fixture apps write: one JSON object per line, flushed per line.

Shared by ``gtk_fixture.py`` (Debian's system python with python3-gi) and
``qt_fixture.py`` (the venv python with PySide6), so it uses the standard library only.

Every line carries ``"t"`` (``time.monotonic()`` in seconds, the same clock a test
process on this machine reads) and ``"type"``. The file is named by the
``DESKHAND_EVENT_LOG`` environment variable; without it the lines go to stdout.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, TextIO

ENV_VAR = "DESKHAND_EVENT_LOG"

# Canvas quadrant colours (RGB), identical in both fixtures, so a screenshot test
# can compare pixels: the canvas is 400x300 and each quadrant is 200x150.
CANVAS_SIZE = (400, 300)
QUADRANT_COLOURS = {
    "top_left": (220, 30, 30),
    "top_right": (30, 170, 60),
    "bottom_left": (30, 70, 220),
    "bottom_right": (240, 200, 20),
}

SCROLL_AREA_SIZE = (720, 210)
SCROLL_CONTENT_SIZE = (2000, 1500)
LIST_ROWS = 40

# X11 core modifier and button bits of an event's state field, low bit first.
_STATE_BITS = (
    "shift",
    "lock",
    "control",
    "mod1",
    "mod2",
    "mod3",
    "mod4",
    "mod5",
    "button1",
    "button2",
    "button3",
    "button4",
    "button5",
)


def state_names(state: int) -> list[str]:
    """Names of the X11 core bits set in ``state`` (mod1 is Alt, mod4 is Super on Xvfb's keymap)."""
    return [name for bit, name in enumerate(_STATE_BITS) if state & (1 << bit)]


class EventLog:
    """Writes one JSON line per event and flushes it at once."""

    def __init__(self, toolkit: str) -> None:
        self.toolkit = toolkit
        path = os.environ.get(ENV_VAR)
        self._stream: TextIO = open(path, "a", encoding="utf-8") if path else sys.stdout  # noqa: SIM115
        self._last: dict[tuple[str, str], Any] = {}

    def emit(self, type_: str, **fields: Any) -> None:
        record = {"t": time.monotonic(), "type": type_, **fields}
        self._stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._stream.flush()

    def emit_changed(self, type_: str, name: str, key: Any, **fields: Any) -> None:
        """Emit only when ``key`` differs from the last value seen for (type, name)."""
        if self._last.get((type_, name), object()) == key:
            return
        self._last[(type_, name)] = key
        self.emit(type_, name=name, **fields)
