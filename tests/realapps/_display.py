"""The matrix's display-server helpers live in ``tests/display_support.py`` (shared with
``tests/linux``); re-exported here for the matrix modules that import them from ``_display``."""

from __future__ import annotations

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

__all__ = [
    "DISPLAYS",
    "SWAY_SIZE",
    "MatrixExecutor",
    "a11y_of",
    "element_ref",
    "frame_of",
    "is_wayland",
    "key_rect",
    "move_window",
    "on_sway",
    "sway_desktop_or_skip",
    "to_pixels",
    "transform_of",
]
