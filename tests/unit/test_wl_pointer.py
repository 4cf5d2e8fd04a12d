"""The pointer composites every Wayland compositor's input shares (``wayland._pointer.PointerDevice``),
over a device that records its requests (the devices' wire requests run in tests/wayland and
tests/realapps)."""

from __future__ import annotations

from typing import Any

import pytest

from deskhand.backends.linux.wayland import _pointer
from deskhand.core.errors import ArgumentError


class _Device(_pointer.PointerDevice):
    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def move(self, x: float, y: float) -> None:
        self.sent.append(("move", x, y))

    def button(self, button: int, down: bool) -> None:
        self.sent.append(("button", _pointer.evdev_button(button), down))

    def axis(self, axis: int, clicks: int) -> None:
        self.sent.append(("axis", axis, clicks))


def test_a_click_is_the_motion_then_each_press_and_release() -> None:
    device = _Device()
    device.click(10.5, 20, button=3, count=2)
    assert device.sent == [("move", 10.5, 20), *[("button", 0x111, True), ("button", 0x111, False)] * 2]


def test_a_button_the_seat_has_not_is_refused_before_the_motion() -> None:
    device = _Device()
    with pytest.raises(ArgumentError, match="no pointer button 4"):
        device.click(1, 2, button=4)
    assert device.sent == []


@pytest.mark.parametrize(
    ("clicks_y", "clicks_x", "axes"),
    [(3, 0, [(0, 3)]), (0, -2, [(1, -2)]), (-1, 4, [(0, -1), (1, 4)]), (0, 0, [])],
)
def test_a_wheel_scroll_is_each_axis_that_moves_vertical_first(
    clicks_y: int, clicks_x: int, axes: list[tuple[int, int]]
) -> None:
    device = _Device()
    device.wheel(clicks_y, clicks_x)
    assert device.sent == [("axis", *a) for a in axes]


def test_every_seam_button_has_an_evdev_code_and_back() -> None:
    assert {b: _pointer.X_NUMBER[_pointer.evdev_button(b)] for b in (1, 2, 3, 8, 9)} == {1: 1, 2: 2, 3: 3, 8: 8, 9: 9}
