"""The matrix's display-server helpers live in ``tests/display_support.py`` (shared with
``tests/linux``); re-exported here for the matrix modules that import them from ``_display``."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

from display_support import (
    DISPLAYS,
    SWAY_SIZE,
    MatrixExecutor,
    a11y_of,
    element_ref,
    frame_of,
    is_wayland,
    key_rect,
    move_window,
    on_sway,
    sway_desktop_or_skip,
    to_pixels,
    transform_of,
)

T = TypeVar("T")
#: The sway column of an app whose toolkit draws only on X11 (GTK 2, Java's AWT/Swing): it does not
#: start on the headless sway, which runs without XWayland, and deskhand says why when asked for it.
X11_ONLY = (
    "{toolkit} has no Wayland backend: {app} draws only on an X display (XWayland), and deskhand's headless "
    "sway runs without XWayland, so it does not start there; asked for it on Wayland, deskhand answers that "
    "it needs XWayland (target_not_running with the toolkit's note) and drives it only on an X display"
)


def _exe(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def launched(ex: MatrixExecutor, name: str, launch: Callable[[], T]) -> T:
    """What ``launch()`` returns; when the app exits before it shows a window (an X11-only toolkit
    on a Wayland desktop without XWayland: "Cannot open display"), what deskhand answers an agent
    that asks for ``name`` then: its refusal (``NativeError``) is raised."""
    try:
        return launch()
    except RuntimeError:
        ex.resolve(name)
        raise


def soffice_pid(ex: MatrixExecutor, timeout_s: float = 90.0) -> int:
    """The pid of LibreOffice's ``soffice.bin`` once it shows a window (the latest one: it starts
    again once on a fresh profile)."""
    deadline = time.monotonic() + timeout_s
    while True:
        pids = [w.pid for w in ex.list_windows() if _exe(w.pid).endswith("soffice.bin")]
        if pids:
            return pids[-1]
        assert time.monotonic() < deadline, "soffice.bin never showed a window"
        time.sleep(0.5)  # polling LibreOffice's start with a deadline


__all__ = [
    "DISPLAYS",
    "SWAY_SIZE",
    "X11_ONLY",
    "MatrixExecutor",
    "a11y_of",
    "element_ref",
    "frame_of",
    "is_wayland",
    "key_rect",
    "launched",
    "move_window",
    "on_sway",
    "soffice_pid",
    "sway_desktop_or_skip",
    "to_pixels",
    "transform_of",
]
