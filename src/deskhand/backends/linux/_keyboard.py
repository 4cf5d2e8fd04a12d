"""X11 keysyms to keycodes, with temporary keycodes for characters the keymap lacks.

Typing must not depend on the keyboard layout. A keysym found on the keymap at level 0 or 1 is
posted with its keycode (plus Shift for level 1). A keysym not on the keymap gets one of the
keymap's empty keycodes for the duration of a burst: one keycode per *distinct* keysym, because
a client resolves a keycode when it processes the event, not when it was posted, so rebinding one
keycode within a burst turns ``é✓`` into ``✓✓``. ``Lease.restore()`` writes the empty rows back;
the caller restores only after the app has processed the burst (see ``acting.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from Xlib import XK

from deskhand.core.errors import NativeError

__all__ = ()

#: Contract modifier names (lowercase, after aliasing) to the keysym we hold for them.
MODIFIER_KEYSYMS: Final[dict[str, str]] = {
    "shift": "Shift_L",
    "control": "Control_L",
    "ctrl": "Control_L",
    "alt": "Alt_L",
    "option": "Alt_L",
    "super": "Super_L",
    "command": "Super_L",
    "cmd": "Super_L",
    "meta": "Super_L",
    "win": "Super_L",
}

_CONTROL_KEYSYMS: Final[dict[str, str]] = {"\n": "Return", "\r": "Return", "\t": "Tab", "\b": "BackSpace"}


def char_keysym(ch: str) -> int:
    """The X keysym of one character: Latin-1 maps to itself, the rest to 0x01000000 + code point."""
    named = _CONTROL_KEYSYMS.get(ch)
    if named is not None:
        return int(XK.string_to_keysym(named))
    cp = ord(ch)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    return 0x01000000 | cp


def name_keysym(name: str) -> int:
    """The keysym for a keysym name such as ``Return`` or ``a``; 0 when X does not know it."""
    return int(XK.string_to_keysym(name))


@dataclass(frozen=True, slots=True)
class Stroke:
    """One key to post: its keycode and the modifier keycodes to hold around it."""

    keycode: int
    modifiers: tuple[int, ...] = ()


@dataclass(slots=True)
class Lease:
    """Spare keycodes bound to keysyms for one burst; ``restore()`` empties them again."""

    keymap: Keymap
    bound: dict[int, int] = field(default_factory=dict)  # keysym -> keycode

    def restore(self) -> None:
        if self.bound:
            self.keymap._unbind(sorted(self.bound.values()))
            self.bound.clear()


class Keymap:
    """The server's core keymap as of the last ``refresh()``, with its empty keycodes."""

    def __init__(self, display: Any) -> None:
        self._d = display
        self._min = int(display.display.info.min_keycode)
        self._max = int(display.display.info.max_keycode)
        self._rows: list[tuple[int, ...]] = []
        self._per: int = 0
        self.refresh()

    def refresh(self) -> None:
        rows = self._d.get_keyboard_mapping(self._min, self._max - self._min + 1)
        self._rows = [tuple(int(k) for k in row) for row in rows]
        self._per = len(self._rows[0]) if self._rows else 0

    def row(self, keycode: int) -> tuple[int, ...]:
        return self._rows[keycode - self._min]

    @property
    def spare(self) -> list[int]:
        """Keycodes with no keysym at all (not the lowest one, which XKB treats specially)."""
        return [self._min + i for i, row in enumerate(self._rows) if i > 0 and not any(row)]

    def find(self, keysym: int) -> tuple[int, int] | None:
        """``(keycode, level)`` of a keysym on levels 0 and 1 of the first group, lowest keycode first."""
        for level in (0, 1):
            for i, row in enumerate(self._rows):
                if len(row) > level and row[level] == keysym:
                    return self._min + i, level
        return None

    def modifier(self, name: str) -> int:
        keysym_name = MODIFIER_KEYSYMS.get(name.lower())
        found = self.find(name_keysym(keysym_name)) if keysym_name else None
        if found is None:
            raise NativeError("unknown_key", f"The modifier {name!r} has no key on this keymap.", dispatched=False)
        return found[0]

    def lease(self, keysyms: Iterable[int]) -> Lease:
        """Bind a spare keycode to each distinct keysym missing from the keymap."""
        missing = list(dict.fromkeys(k for k in keysyms if self.find(k) is None))
        lease = Lease(self)
        if not missing:
            return lease
        spare = self.spare
        if len(missing) > len(spare):
            msg = f"{len(missing)} characters need a temporary key but only {len(spare)} keycodes are free."
            raise NativeError("unknown_key", msg, dispatched=False)
        for keysym, keycode in zip(missing, spare, strict=False):
            self._bind(keycode, keysym)
            lease.bound[keysym] = keycode
        self._d.sync()
        return lease

    def stroke(self, keysym: int, modifiers: Sequence[str] = (), lease: Lease | None = None) -> Stroke:
        """The keycode and modifier keycodes that produce ``keysym`` with ``modifiers`` held."""
        mods = [self.modifier(m) for m in modifiers]
        if lease is not None and keysym in lease.bound:
            return Stroke(lease.bound[keysym], tuple(mods))
        found = self.find(keysym)
        if found is None:
            raise NativeError("unknown_key", f"No key produces keysym 0x{keysym:x}.", dispatched=False)
        keycode, level = found
        shift = self.modifier("shift")
        if level == 1 and shift not in mods:
            mods.append(shift)
        return Stroke(keycode, tuple(mods))

    def max_distinct_missing(self) -> int:
        return len(self.spare)

    # -- binding ------------------------------------------------------------------------------
    def _bind(self, keycode: int, keysym: int) -> None:
        # The same keysym on every level, so Shift or Caps Lock state cannot change the character.
        row = tuple([keysym] * self._per)
        self._d.change_keyboard_mapping(keycode, [row])
        self._rows[keycode - self._min] = row

    def _unbind(self, keycodes: Sequence[int]) -> None:
        empty = tuple([0] * self._per)
        for keycode in keycodes:
            self._d.change_keyboard_mapping(keycode, [empty])
            self._rows[keycode - self._min] = empty
        self._d.sync()
