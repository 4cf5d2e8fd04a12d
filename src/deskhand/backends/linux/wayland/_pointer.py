"""The pointer composites every compositor's input shares, written once over each device's requests.

A device (``wlroots.devices.Devices``, ``kwin.fakeinput.FakeInput``, ``gnome.compositor.GnomeInput``)
sends a motion, a button and one axis's wheel notches its own way; a click (the motion, then each
press and release) and a wheel scroll (each axis that moves, vertical first) are written once over
those requests, in :class:`PointerDevice`, which each device's class extends. Buttons are X button
numbers (1, 2, 3, 8, 9) in the seam and Linux evdev codes on every Wayland wire (:data:`BUTTONS`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Final

from deskhand.core.errors import ArgumentError

__all__ = ()

#: Linux evdev button codes for X buttons 1, 2, 3 (left, middle, right), 8 and 9 (back, forward).
BUTTONS: Final = {1: 0x110, 2: 0x112, 3: 0x111, 8: 0x113, 9: 0x114}
#: The X button number of each evdev code (what ``compositor.Held`` reports).
X_NUMBER: Final = {code: number for number, code in BUTTONS.items()}
#: wl_pointer's axes, as every wire here numbers them.
AXIS_VERTICAL: Final = 0
AXIS_HORIZONTAL: Final = 1
#: The axis value of one wheel notch, as libinput reports a wheel click.
WHEEL_STEP: Final = 15.0


def evdev_button(button: int) -> int:
    """The evdev code of X button ``button``; ``ArgumentError`` for a button the seat has not."""
    code = BUTTONS.get(button)
    if code is None:
        raise ArgumentError(f"no pointer button {button}")
    return code


class PointerDevice(ABC):
    """A device's pointer: :meth:`move`, :meth:`button` and :meth:`axis` are its own requests;
    :meth:`click` and :meth:`wheel` are written here once over them (pynput's base class)."""

    @abstractmethod
    def move(self, x: float, y: float) -> None:
        """Put the pointer at global ``(x, y)``."""

    @abstractmethod
    def button(self, button: int, down: bool) -> None:
        """Press or release X button ``button``."""

    @abstractmethod
    def axis(self, axis: int, clicks: int) -> None:
        """Wheel notches on one axis (:data:`AXIS_VERTICAL` or :data:`AXIS_HORIZONTAL`)."""

    def click(self, x: float, y: float, button: int = 1, count: int = 1) -> None:
        """Move to ``(x, y)``, then press and release ``button`` ``count`` times; a button the
        seat has not is refused before the motion is sent."""
        evdev_button(button)
        self.move(x, y)
        for _ in range(count):
            self.button(button, True)
            self.button(button, False)

    def wheel(self, clicks_y: int, clicks_x: int = 0) -> None:
        """Scroll by wheel notches (positive: down / right): each axis that moves, vertical first."""
        for which, clicks in ((AXIS_VERTICAL, clicks_y), (AXIS_HORIZONTAL, clicks_x)):
            if clicks:
                self.axis(which, clicks)
