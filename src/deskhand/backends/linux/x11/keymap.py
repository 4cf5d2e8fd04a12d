"""X11 keysyms to keycodes, with temporary keycodes for characters the keymap lacks.

Typing must not depend on the keyboard layout. A keysym found on the keymap at level 0 or 1 is
posted with its keycode (plus Shift for level 1). A keysym not on the keymap gets one of the
keymap's empty keycodes: one keycode per *distinct* keysym, because a client resolves a keycode
when it processes the event, not when it was posted, so rebinding one keycode within a burst
turns ``é✓`` into ``✓✓``. For the same reason a temporary keycode may only be emptied or bound
to another keysym once the app has processed every event that used it.

``Keymap.temporary`` holds the keycodes bound that way and not yet emptied; they stay on the
server's keymap, so a later burst typing the same character reuses its keycode (``lease``
reports it with the newly bound ones). ``restore(keycodes)`` writes the empty rows back. When
that is safe is the caller's decision (``act/keystrokes.py``: after the app answered a ping sent behind
the last burst that used the keycode).
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
    """The temporary keycodes one burst uses: keysym -> keycode, newly bound or kept from earlier."""

    bound: dict[int, int] = field(default_factory=dict)


class Keymap:
    """The server's core keymap as of the last ``refresh()``, with its empty keycodes."""

    def __init__(self, display: Any) -> None:
        self._d = display
        self._min = int(display.display.info.min_keycode)
        self._max = int(display.display.info.max_keycode)
        self._rows: list[tuple[int, ...]] = []
        self._per: int = 0
        #: keysym -> ``find``'s answer, made from ``_rows`` whenever they change
        self._where: dict[int, tuple[int, int]] = {}
        #: keycode -> keysym for the temporary bindings still on the server's keymap
        self.temporary: dict[int, int] = {}
        self.refresh()

    def refresh(self) -> None:
        rows = self._d.get_keyboard_mapping(self._min, self._max - self._min + 1)
        self._rows = [tuple(int(k) for k in row) for row in rows]
        self._per = len(self._rows[0]) if self._rows else 0
        self._index()

    def _index(self) -> None:
        """``find``'s answers for every keysym on levels 0 and 1 (level 0 first, lowest keycode first)."""
        where: dict[int, tuple[int, int]] = {}
        for level in (0, 1):
            for i, row in enumerate(self._rows):
                if len(row) > level and row[level]:
                    where.setdefault(row[level], (self._min + i, level))
        self._where = where

    def row(self, keycode: int) -> tuple[int, ...]:
        return self._rows[keycode - self._min]

    @property
    def spare(self) -> list[int]:
        """Keycodes with no keysym at all (not the lowest one, which XKB treats specially)."""
        return [self._min + i for i, row in enumerate(self._rows) if i > 0 and not any(row)]

    def find(self, keysym: int) -> tuple[int, int] | None:
        """``(keycode, level)`` of a keysym on levels 0 and 1 of the first group, lowest keycode first."""
        if not keysym:
            return None  # NoSymbol names no key
        return self._where.get(keysym)

    def modifier(self, name: str) -> int:
        keysym_name = MODIFIER_KEYSYMS.get(name.lower())
        found = self.find(name_keysym(keysym_name)) if keysym_name else None
        if found is None:
            raise NativeError("unknown_key", f"The modifier {name!r} has no key on this keymap.", dispatched=False)
        return found[0]

    def missing(self, keysyms: Iterable[int]) -> list[int]:
        """The distinct keysyms that need a temporary keycode (bound already or not), in order."""
        out: list[int] = []
        for keysym in dict.fromkeys(keysyms):
            found = self.find(keysym)
            if found is None or found[0] in self.temporary:
                out.append(keysym)
        return out

    def lease(self, keysyms: Iterable[int]) -> Lease:
        """A temporary keycode for each distinct keysym missing from the keymap.

        A keysym already bound temporarily keeps its keycode; the others get spare keycodes.
        """
        lease = Lease()
        unbound: list[int] = []
        for keysym in self.missing(keysyms):
            found = self.find(keysym)
            if found is None:
                unbound.append(keysym)
            else:
                lease.bound[keysym] = found[0]
        if not unbound:
            return lease
        spare = self.spare
        if len(unbound) > len(spare):
            msg = f"{len(unbound)} characters need a temporary key but only {len(spare)} keycodes are free."
            raise NativeError("unknown_key", msg, dispatched=False)
        for keysym, keycode in zip(unbound, spare, strict=False):
            self._bind(keycode, keysym)
            lease.bound[keysym] = keycode
        self._index()
        self._d.sync()
        return lease

    def restore(self, keycodes: Iterable[int]) -> None:
        """Empty temporary keycodes again (others are left alone)."""
        mine = sorted(k for k in set(keycodes) if k in self.temporary)
        if mine:
            self._unbind(mine)

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

    # -- binding ------------------------------------------------------------------------------
    def _bind(self, keycode: int, keysym: int) -> None:
        # The same keysym on every level, so Shift or Caps Lock state cannot change the character.
        row = tuple([keysym] * self._per)
        self._d.change_keyboard_mapping(keycode, [row])
        self._rows[keycode - self._min] = row
        self.temporary[keycode] = keysym

    def _unbind(self, keycodes: Sequence[int]) -> None:
        empty = tuple([0] * self._per)
        for keycode in keycodes:
            self._d.change_keyboard_mapping(keycode, [empty])
            self._rows[keycode - self._min] = empty
            self.temporary.pop(keycode, None)
        self._index()
        self._d.sync()
