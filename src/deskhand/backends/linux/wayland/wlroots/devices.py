"""The session's one virtual pointer and one virtual keyboard (wlroots protocols).

Both live as long as the :class:`Devices` that made them: a keyboard created per action loses its
first key while the client learns the new device, and GTK's copy and paste break (measured on sway
1.7). Every method sends its events and flushes; the caller's gates come before. What is held is
tracked, so :meth:`Devices.release_all` lifts it on any failure: no button or key stays pressed.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Sequence
from typing import Final

from Xlib import XK

from deskhand.backends.linux.wayland import _pointer
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._keymap import MODIFIERS, Keymap, char_keysym
from deskhand.backends.linux.wayland._protocol import KEYMAP_XKB_V1
from deskhand.backends.linux.wayland._wire import Proxy, WaylandError
from deskhand.backends.linux.wayland.compositor import Held
from deskhand.core.errors import NativeError
from deskhand.core.x11keys import x_keysym_name

__all__ = ()

_PRESSED: Final = 1
_RELEASED: Final = 0
_AXIS_SOURCE_WHEEL: Final = 0


def _now_ms() -> int:
    return int(time.monotonic() * 1000) & 0xFFFFFFFF


def key_keysym(key: str) -> int:
    """The keysym of a neutral key name (``return``, ``a``, ``f5``, ``é``); unknown_key otherwise."""
    if len(key) == 1:
        return char_keysym(key)
    value = int(XK.string_to_keysym(x_keysym_name(key)))
    if value == 0:
        raise NativeError("unknown_key", f"unknown key {key!r}", dispatched=False)
    return value


class Devices(_pointer.PointerDevice):
    """A virtual pointer and a virtual keyboard on the client's seat, with deskhand's keymap."""

    def __init__(self, client: Client) -> None:
        self.client = client
        seat = client.need("wl_seat")
        self.pointer: Proxy = client.need("zwlr_virtual_pointer_manager_v1").create("create_virtual_pointer", seat.id)
        self.keyboard: Proxy = client.need("zwp_virtual_keyboard_manager_v1").create("create_virtual_keyboard", seat.id)
        self.keymap = Keymap()
        self._uploaded = -1
        self.buttons: set[int] = set()
        self._last_button_ms = 0
        self.keys: set[int] = set()
        self.mods = 0
        self._upload()
        client.conn.roundtrip(client.timeout_s)

    def close(self) -> None:
        self.release_all()
        for proxy in (self.pointer, self.keyboard):
            if proxy.alive:
                proxy.request("destroy")

    # -- pointer -----------------------------------------------------------------------------
    def move(self, x: float, y: float) -> None:
        """Put the pointer at global ``(x, y)`` (logical pixels of the output layout)."""
        x0, y0, width, height = self.client.bounds()
        px = min(max(round(x) - x0, 0), width - 1)
        py = min(max(round(y) - y0, 0), height - 1)
        self.pointer.request("motion_absolute", _now_ms(), px, py, width, height)
        self.pointer.request("frame")

    def _button_ms(self) -> int:
        """The time of a button event: now, and after the last one's (Qt 6 counts no multi-click
        from presses stamped the same millisecond, as a burst of pairs is)."""
        self._last_button_ms = max(_now_ms(), self._last_button_ms + 1) & 0xFFFFFFFF
        return self._last_button_ms

    def button(self, button: int, down: bool) -> None:
        code = _pointer.evdev_button(button)
        self.pointer.request("button", self._button_ms(), code, _PRESSED if down else _RELEASED)
        self.pointer.request("frame")
        (self.buttons.add if down else self.buttons.discard)(button)

    def axis(self, axis: int, clicks: int) -> None:
        self.pointer.request("axis_source", _AXIS_SOURCE_WHEEL)
        self.pointer.request("axis_discrete", _now_ms(), axis, _pointer.WHEEL_STEP * clicks, clicks)
        self.pointer.request("frame")

    # -- keyboard ----------------------------------------------------------------------------
    def _upload(self) -> None:
        data = self.keymap.text().encode() + b"\0"
        fd = os.memfd_create("deskhand-keymap", os.MFD_CLOEXEC)
        try:
            os.write(fd, data)
            self.keyboard.request("keymap", KEYMAP_XKB_V1, len(data), fds=[fd])
        finally:
            os.close(fd)
        self._uploaded = self.keymap.serial

    def _ensure(self, keysyms: Iterable[int]) -> None:
        if self.keymap.ensure(keysyms) or self._uploaded != self.keymap.serial:
            if self.keys:
                raise WaylandError("wayland: the keymap cannot change while keys are held")
            self._upload()

    def _key(self, keysym: int, down: bool) -> None:
        code = self.keymap.evdev(keysym)
        self.keyboard.request("key", _now_ms(), code, _PRESSED if down else _RELEASED)
        (self.keys.add if down else self.keys.discard)(code)

    def _set_mods(self, mods: int) -> None:
        self.mods = mods
        self.keyboard.request("modifiers", mods, 0, 0, 0)

    def chord(self, modifiers: Sequence[str], key: str) -> None:
        """Press the modifiers (in order), press and release ``key``, release the modifiers; a
        key on its key's Shift level (``A``, ``(``) is pressed with Shift, as a keyboard types it."""
        known = [m for m in modifiers if m in MODIFIERS]  # fn has no key on a virtual keyboard
        target = key_keysym(key)
        self._ensure([target])
        if target in self.keymap.shifted and "shift" not in known:
            known.append("shift")
        held = 0
        for name in known:
            self._key(self.keymap.modifier_keysym(name), True)
            held |= MODIFIERS[name][2]
            self._set_mods(held)
        self._key(target, True)
        self._key(target, False)
        for name in reversed(known):
            self._key(self.keymap.modifier_keysym(name), False)
            held &= ~MODIFIERS[name][2]
            self._set_mods(held)

    def keyed(self, text: str) -> bool:
        """Every text is typed as key events (deskhand's keymap has every character)."""
        del text
        return True

    def type_text(self, text: str) -> None:
        """Type ``text`` one character at a time, whatever the user's layout."""
        keysyms = [char_keysym(ch) for ch in text]
        with contextlib.suppress(ValueError):  # too many distinct keys for one map: bind as it goes
            self._ensure(keysyms)
        shift = self.keymap.modifier_keysym("shift")
        for keysym in keysyms:
            if keysym not in self.keymap.codes:
                self._ensure([keysym])  # safe mid-burst: the client reads keys with the map they came under
            shifted = keysym in self.keymap.shifted
            if shifted:
                self._key(shift, True)
                self._set_mods(self.mods | MODIFIERS["shift"][2])
            self._key(keysym, True)
            self._key(keysym, False)
            if shifted:
                self._key(shift, False)
                self._set_mods(self.mods & ~MODIFIERS["shift"][2])

    def confine(self, rect: tuple[int, int, int, int]) -> None:
        """Nothing to do: these devices send only the motions asked for."""
        del rect

    @property
    def held(self) -> Held:
        mods = frozenset(name for name, (_key, _mod, bit) in MODIFIERS.items() if self.mods & bit)
        return Held(frozenset(self.buttons), frozenset(self.keys), mods)

    def release_all(self) -> None:
        """Lift every held button and key and clear the modifiers."""
        for button in sorted(self.buttons):
            self.button(button, False)
        for code in sorted(self.keys):
            self.keyboard.request("key", _now_ms(), code, _RELEASED)
        self.keys.clear()
        if self.mods:
            self._set_mods(0)

    def flush(self, timeout_s: float | None = None) -> None:
        """Wait until the compositor has handled every event sent (a protocol error raises here)."""
        self.client.conn.roundtrip(self.client.timeout_s if timeout_s is None else timeout_s)
