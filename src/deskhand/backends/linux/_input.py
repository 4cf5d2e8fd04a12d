"""XTest pointer and key posting on X11, tracking everything held down so nothing stays pressed.

One ``XInput`` wraps one X connection. Events are queued with ``XTestFakeInput`` and flushed
together by ``flush()`` (one ``XSync``), so a burst reaches the server with no pause between
events. Every press is recorded until its release is posted; ``release_all()`` releases what is
still held (buttons at the last posted point, keys in reverse order), which is how a failed or
cancelled gesture ends.

X11 facts this relies on: a button press happens where the pointer is, so a gesture at a point
starts with a motion to it; a motion to the pointer's current position is still delivered to the
client as a MotionNotify (checked on Xvfb), so the drag's "dragged at origin" event is real.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from Xlib import X
from Xlib.ext import xtest

__all__ = ()

#: Contract button names to X core button numbers.
BUTTONS: Final[dict[str, int]] = {"left": 1, "middle": 2, "right": 3, "back": 8, "forward": 9}
#: Wheel buttons: one click each (press + release) per notch.
WHEEL_UP: Final = 4
WHEEL_DOWN: Final = 5
WHEEL_LEFT: Final = 6
WHEEL_RIGHT: Final = 7

_BUTTON_MASKS: Final = (X.Button1Mask, X.Button2Mask, X.Button3Mask, X.Button4Mask, X.Button5Mask)


@dataclass(frozen=True, slots=True)
class PointerState:
    """What ``XQueryPointer`` reports: root position, the window under it and held buttons."""

    x: int
    y: int
    child: int
    mask: int

    @property
    def buttons_down(self) -> tuple[int, ...]:
        return tuple(i + 1 for i, m in enumerate(_BUTTON_MASKS) if self.mask & m)


class XInput:
    """Posts XTest events on one display connection and remembers what is held."""

    def __init__(self, display: Any) -> None:
        self._d = display
        self._root = display.screen().root
        self._buttons: list[int] = []
        self._keys: list[int] = []
        self.last_point: tuple[int, int] | None = None

    # -- pointer ------------------------------------------------------------------------------
    def move(self, x: float, y: float) -> None:
        ix, iy = round(x), round(y)
        xtest.fake_input(self._d, X.MotionNotify, x=ix, y=iy)
        self.last_point = (ix, iy)

    def button_down(self, button: int, *, delay_ms: int = 0) -> None:
        """Press ``button``; ``delay_ms`` > 0 makes the server process it that much later.

        The delay is XTest's own (the server holds this client's request stream, the client does
        not sleep), so a burst stays one flush; it gives the press a later server timestamp.
        """
        xtest.fake_input(self._d, X.ButtonPress, button, time=delay_ms)
        self._buttons.append(button)

    def button_up(self, button: int) -> None:
        xtest.fake_input(self._d, X.ButtonRelease, button)
        if button in self._buttons:
            self._buttons.remove(button)

    def wheel(self, button: int, clicks: int) -> None:
        for _ in range(clicks):
            xtest.fake_input(self._d, X.ButtonPress, button)
            xtest.fake_input(self._d, X.ButtonRelease, button)

    # -- keys ---------------------------------------------------------------------------------
    def key_down(self, keycode: int) -> None:
        xtest.fake_input(self._d, X.KeyPress, keycode)
        self._keys.append(keycode)

    def key_up(self, keycode: int) -> None:
        xtest.fake_input(self._d, X.KeyRelease, keycode)
        if keycode in self._keys:
            self._keys.remove(keycode)

    # -- delivery and cleanup -----------------------------------------------------------------
    @property
    def held(self) -> bool:
        return bool(self._buttons or self._keys)

    def flush(self) -> None:
        """Send everything queued and wait until the server has processed it."""
        self._d.sync()

    def release_all(self) -> None:
        """Release every held button (at the last posted point: no move) and key, then sync."""
        for button in reversed(self._buttons[:]):
            self.button_up(button)
        for keycode in reversed(self._keys[:]):
            self.key_up(keycode)
        self._d.sync()

    def pointer(self) -> PointerState:
        reply = self._root.query_pointer()
        child = reply.child.id if hasattr(reply.child, "id") else int(reply.child or 0)
        return PointerState(reply.root_x, reply.root_y, child, reply.mask)

    def keys_down(self) -> set[int]:
        """Keycodes the server reports as down (``XQueryKeymap``)."""
        bits = self._d.query_keymap()
        return {i * 8 + b for i, byte in enumerate(bits) for b in range(8) if byte & (1 << b)}
