"""The keymap deskhand uploads to its virtual keyboard: one keycode per keysym it types.

Typing must not depend on the user's layout, so the virtual keyboard carries a keymap deskhand
writes (libxkbcommon text): the four modifiers at fixed keycodes, then each keysym deskhand has
typed on a keycode of its own, on one level (no Shift needed for ``A`` or ``é``). A keysym not yet
on the map takes the next free keycode and the map is uploaded again. Unlike X11, rebinding is safe
within a burst: the compositor hands a client the new keymap in order with the key events, so a
key sent before the upload is read with the map it was sent under. When every keycode is taken
the map starts over from the base keys.

Pure (no I/O).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final

__all__ = ()

#: Contract modifier -> (its keysym, its real modifier in the keymap, that modifier's mask bit).
MODIFIERS: Final[Mapping[str, tuple[str, str, int]]] = MappingProxyType(
    {"shift": ("Shift_L", "Shift", 1), "ctrl": ("Control_L", "Control", 4), "alt": ("Alt_L", "Mod1", 8),
     "super": ("Super_L", "Mod4", 64)}
)  # fmt: skip
_MOD_KEYSYMS: Final = {"Shift_L": 0xFFE1, "Control_L": 0xFFE3, "Alt_L": 0xFFE9, "Super_L": 0xFFEB}
_MOD_KEYSYMS_VALUES: Final = tuple(_MOD_KEYSYMS.values())
_TAB: Final = 0xFF09
_ISO_LEFT_TAB: Final = 0xFE20
_CONTROL_CHARS: Final = {"\n": 0xFF0D, "\r": 0xFF0D, "\t": 0xFF09, "\b": 0xFF08}
#: Return Tab BackSpace Escape Delete Insert Home End Prior Next Left Up Right Down Menu KP_Enter
#: Caps_Lock F1-F12.
_NAMED: Final = (
    0xFF0D, 0xFF09, 0xFF08, 0xFF1B, 0xFFFF, 0xFF63, 0xFF50, 0xFF57, 0xFF55, 0xFF56, 0xFF51, 0xFF52,
    0xFF53, 0xFF54, 0xFF67, 0xFF8D, 0xFFE5, *range(0xFFBE, 0xFFBE + 12),
)  # fmt: skip
#: The keys on every map: modifiers, printable ASCII, named keys.
BASE: Final = (*_MOD_KEYSYMS_VALUES, *range(0x20, 0x7F), *_NAMED)
FIRST_KEYCODE: Final = 9  # xkb keycode = evdev code + 8; 8 is the minimum
LAST_KEYCODE: Final = 255


def char_keysym(ch: str) -> int:
    """The keysym of one character: Latin-1 is itself, the rest ``0x01000000 + code point``."""
    named = _CONTROL_CHARS.get(ch)
    if named is not None:
        return named
    cp = ord(ch)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    return 0x01000000 | cp


def _levels(keysym: int) -> str:
    """A key's symbols: a lowercase letter has its capital on the Shift level (as on every layout),
    so Shift with it reads as the capital with Shift consumed: toolkits match Ctrl+Shift+S
    accelerators only so (GTK 3 ignored ctrl+shift+s on a one-level key). Tab has ISO_Left_Tab on
    its Shift level, as on every layout (so shift+Tab reaches an app as on X11); any other key has
    one level."""
    if 0x61 <= keysym <= 0x7A:
        return f'type = "ALPHABETIC", [ 0x{keysym:08x}, 0x{keysym - 0x20:08x} ]'
    if keysym == _TAB:
        return f'type = "TWO_LEVEL", [ 0x{_TAB:08x}, 0x{_ISO_LEFT_TAB:08x} ]'
    return f"[ 0x{keysym:08x} ]"


class Keymap:
    """Keysyms to keycodes, and the keymap text that says so."""

    def __init__(self) -> None:
        self.codes: dict[int, int] = {}
        self.serial = 0  # bumped at every change: the caller uploads when it moved
        self._reset(())

    def _reset(self, keep: Iterable[int]) -> None:
        self.codes = {}
        for keysym in [*BASE, *keep]:
            if keysym not in self.codes:
                self.codes[keysym] = FIRST_KEYCODE + len(self.codes)
        self.serial += 1

    def ensure(self, keysyms: Iterable[int]) -> bool:
        """Give every keysym a keycode; True when the map changed (upload it before the keys)."""
        wanted = list(dict.fromkeys(keysyms))
        missing = [k for k in wanted if k not in self.codes]
        if not missing:
            return False
        capacity = LAST_KEYCODE - FIRST_KEYCODE + 1
        if len(self.codes) + len(missing) > capacity:
            if len(set(BASE) | set(wanted)) > capacity:
                raise ValueError(f"keymap: {len(wanted)} distinct keys do not fit on one keymap")
            self._reset(wanted)
            return True
        for keysym in missing:
            self.codes[keysym] = FIRST_KEYCODE + len(self.codes)
        self.serial += 1
        return True

    def evdev(self, keysym: int) -> int:
        """The code the virtual keyboard sends for ``keysym`` (its xkb keycode less 8)."""
        return self.codes[keysym] - 8

    def modifier_keysym(self, name: str) -> int:
        return _MOD_KEYSYMS[MODIFIERS[name][0]]

    def text(self) -> str:
        """The keymap in libxkbcommon's text format (version 1)."""
        names = "".join(f"    <K{code}> = {code};\n" for code in self.codes.values())
        symbols = "".join(f"    key <K{code}> {{ {_levels(keysym)} }};\n" for keysym, code in self.codes.items())
        mods = "".join(
            f"    modifier_map {real} {{ <K{self.codes[_MOD_KEYSYMS[sym]]}> }};\n"
            for sym, real, _bit in MODIFIERS.values()
        )
        return (
            "xkb_keymap {\n"
            f'  xkb_keycodes "deskhand" {{\n    minimum = 8;\n    maximum = {LAST_KEYCODE};\n{names}  }};\n'
            '  xkb_types "deskhand" { include "complete" };\n'
            '  xkb_compat "deskhand" { include "complete" };\n'
            f'  xkb_symbols "deskhand" {{\n{symbols}{mods}  }};\n'
            "};\n"
        )
