"""The keymap deskhand uploads to its virtual keyboard: every key where a US keyboard has it.

Typing must not depend on the user's layout, so the virtual keyboard carries a keymap deskhand
writes (libxkbcommon text). Its keys are where a US keyboard has them (the evdev codes of
``linux/input-event-codes.h``): the modifiers, the named keys, and printable ASCII on two levels,
a shifted character (``A``, ``(``) on the Shift level of its key, typed with Shift held
(``Keymap.shifted``). Clients read a key by its position as well as its keysym: Chromium on
Wayland dropped every character deskhand had put on the code of Backspace, Tab, F6-F10, Num Lock,
keypad Enter, right Ctrl or SysRq, or of no key at all (evdev 84), typing "Sent frm the matrix".
A keysym not on the map (``é``, ``✓``) takes the next free keycode on one level and the map is
uploaded again. Unlike X11, rebinding is safe within a burst: the compositor hands a client the
new keymap in order with the key events, so a key sent before the upload is read with the map it
was sent under. When every keycode is taken the map starts over from the base keys.

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
#: Tab's Shift level, as on every layout, so shift+Tab reaches an app as ISO_Left_Tab with Shift
#: as on X11 (without it GTK and Qt read a plain Tab with Shift).
_ISO_LEFT_TAB: Final = 0xFE20
_CONTROL_CHARS: Final = {"\n": 0xFF0D, "\r": 0xFF0D, "\t": 0xFF09, "\b": 0xFF08}
#: Keysym -> evdev code of the modifiers and named keys: Shift_L Control_L Alt_L Super_L, Return
#: Tab BackSpace Escape Delete Insert Home End Prior Next Left Up Right Down Menu KP_Enter
#: Caps_Lock, F1-F12.
_FIXED: Final[Mapping[int, int]] = MappingProxyType(
    {0xFFE1: 42, 0xFFE3: 29, 0xFFE9: 56, 0xFFEB: 125, 0xFF0D: 28, 0xFF09: 15, 0xFF08: 14, 0xFF1B: 1,
     0xFFFF: 111, 0xFF63: 110, 0xFF50: 102, 0xFF57: 107, 0xFF55: 104, 0xFF56: 109, 0xFF51: 105,
     0xFF52: 103, 0xFF53: 106, 0xFF54: 108, 0xFF67: 127, 0xFF8D: 96, 0xFFE5: 58,
     **{0xFFBE + i: 59 + i for i in range(10)}, 0xFFC8: 87, 0xFFC9: 88}
)  # fmt: skip
#: Evdev code -> the US layout's (unshifted, shifted) characters of that key.
US_KEYS: Final[Mapping[int, str]] = MappingProxyType(
    {2: "1!", 3: "2@", 4: "3#", 5: "4$", 6: "5%", 7: "6^", 8: "7&", 9: "8*", 10: "9(", 11: "0)", 12: "-_",
     13: "=+", 16: "qQ", 17: "wW", 18: "eE", 19: "rR", 20: "tT", 21: "yY", 22: "uU", 23: "iI", 24: "oO",
     25: "pP", 26: "[{", 27: "]}", 30: "aA", 31: "sS", 32: "dD", 33: "fF", 34: "gG", 35: "hH", 36: "jJ",
     37: "kK", 38: "lL", 39: ";:", 40: "'\"", 41: "`~", 43: "\\|", 44: "zZ", 45: "xX", 46: "cC", 47: "vV",
     48: "bB", 49: "nN", 50: "mM", 51: ",<", 52: ".>", 53: "/?", 57: "  "}
)  # fmt: skip
#: The keys on every map: modifiers, named keys, printable ASCII.
BASE: Final = (*_FIXED, *(ord(c) for pair in US_KEYS.values() for c in pair))
_BASE_SET: Final = frozenset(BASE)
FIRST_KEYCODE: Final = 9  # xkb keycode = evdev code + 8; 8 is the minimum
LAST_KEYCODE: Final = 255
#: Evdev codes a client takes by position whatever their keysym, last for a keysym of deskhand's:
#: Shift, Ctrl, Alt and Meta on the right, Num Lock, Scroll Lock, SysRq, no key (84), keypad Enter
#: and keypad slash (Chromium dropped characters on most of these).
_BY_POSITION: Final = (54, 97, 100, 126, 69, 70, 99, 84, 96, 98)
#: The keycodes for keysyms beyond the base keys, in the order they are taken.
_POOL: Final = (
    *(c for c in range(FIRST_KEYCODE, LAST_KEYCODE + 1) if c - 8 not in _BY_POSITION),
    *(c + 8 for c in _BY_POSITION),
)
#: How many of them there are.
_ROOM: Final = LAST_KEYCODE - FIRST_KEYCODE + 1 - len({*_FIXED.values(), *US_KEYS})


def char_keysym(ch: str) -> int:
    """The keysym of one character: Latin-1 is itself, the rest ``0x01000000 + code point``."""
    named = _CONTROL_CHARS.get(ch)
    if named is not None:
        return named
    cp = ord(ch)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    return 0x01000000 | cp


def modifier_keysym(name: str) -> int:
    """The keysym of modifier ``name`` (a key of :data:`MODIFIERS`): its left key's."""
    return _MOD_KEYSYMS[MODIFIERS[name][0]]


class Keymap:
    """Keysyms to keycodes, and the keymap text that says so."""

    def __init__(self) -> None:
        self.codes: dict[int, int] = {}
        #: The keysyms on their key's Shift level (typed with Shift held).
        self.shifted: frozenset[int] = frozenset(ord(pair[1]) for pair in US_KEYS.values() if pair[0] != pair[1])
        self.serial = 0  # bumped at every change: the caller uploads when it moved
        self._reset(())

    def _reset(self, keep: Iterable[int]) -> None:
        self.codes = {keysym: code + 8 for keysym, code in _FIXED.items()}
        self.codes[_ISO_LEFT_TAB] = _FIXED[_TAB] + 8
        for code, pair in US_KEYS.items():
            for ch in pair:
                self.codes[ord(ch)] = code + 8
        used = set(self.codes.values())
        self._free = [c for c in _POOL if c not in used]
        for keysym in keep:
            if keysym not in self.codes:
                self.codes[keysym] = self._free.pop(0)
        self.serial += 1

    def ensure(self, keysyms: Iterable[int]) -> bool:
        """Give every keysym a keycode; True when the map changed (upload it before the keys)."""
        wanted = list(dict.fromkeys(keysyms))
        missing = [k for k in wanted if k not in self.codes]
        if not missing:
            return False
        if len(missing) > len(self._free):
            extra = [k for k in wanted if k not in _BASE_SET]
            if len(extra) > _ROOM:
                raise ValueError(f"keymap: {len(wanted)} distinct keys do not fit on one keymap")
            self._reset(extra)
            return True
        for keysym in missing:
            self.codes[keysym] = self._free.pop(0)
        self.serial += 1
        return True

    def evdev(self, keysym: int) -> int:
        """The code the virtual keyboard sends for ``keysym`` (its xkb keycode less 8)."""
        return self.codes[keysym] - 8

    def modifier_keysym(self, name: str) -> int:
        return modifier_keysym(name)

    def text(self) -> str:
        """The keymap in libxkbcommon's text format (version 1)."""
        levels: dict[int, list[int]] = {}
        for keysym, code in self.codes.items():
            levels.setdefault(code, []).append(keysym)
        names = "".join(f"    <K{code}> = {code};\n" for code in sorted(levels))
        symbols = "".join(f"    key <K{code}> {{ {_levels(levels[code])} }};\n" for code in sorted(levels))
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


def _levels(keysyms: list[int]) -> str:
    """A key's symbols: a letter's capital on the Shift level (type ALPHABETIC, as on every layout,
    so Shift with it reads as the capital with Shift consumed: toolkits match Ctrl+Shift+S
    accelerators only so), a symbol key's shifted character likewise (TWO_LEVEL); any other key
    has one level."""
    if len(keysyms) == 1 or keysyms[0] == keysyms[1]:
        return f"[ 0x{keysyms[0]:08x} ]"
    kind = "ALPHABETIC" if 0x61 <= keysyms[0] <= 0x7A else "TWO_LEVEL"
    return f'type = "{kind}", [ 0x{keysyms[0]:08x}, 0x{keysyms[1]:08x} ]'
