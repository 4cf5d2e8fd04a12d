"""macOS key data: neutral key names (:mod:`deskhand.core.keys`) to Carbon ``kVK_*`` codes and event flags.

Pure tables for the macOS backend's key events (native-contract.md 6.5). Single characters are not
here: the backend resolves them through the current keyboard layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from deskhand.core.keys import Chord

#: Neutral modifier -> CGEventFlags mask.
CARBON_MODIFIER_FLAGS: Final = MappingProxyType(
    {"super": 0x100000, "ctrl": 0x40000, "shift": 0x20000, "alt": 0x80000, "fn": 0x800000}
)

_F_CODES: Final = (122, 120, 99, 118, 96, 97, 98, 100, 101, 109, 103, 111, 105, 107, 113, 106, 64, 79, 80, 90)
_KP_DIGIT_CODES: Final = (82, 83, 84, 85, 86, 87, 88, 89, 91, 92)

#: Neutral named key -> Carbon ``kVK_*`` code (6.5). Single characters use the layout instead.
CARBON_KEY_CODES: Final[Mapping[str, int]] = MappingProxyType(
    {
        "return": 36, "tab": 48, "space": 49, "escape": 53, "backspace": 51, "delete": 117,
        "up": 126, "down": 125, "left": 123, "right": 124, "home": 115, "begin": 115, "end": 119,
        "page_up": 116, "page_down": 121, "caps_lock": 57, "help": 114, "insert": 114,
        **{f"f{i + 1}": code for i, code in enumerate(_F_CODES)},
        **{f"kp_{i}": code for i, code in enumerate(_KP_DIGIT_CODES)},
        "kp_insert": 82, "kp_end": 83, "kp_down": 84, "kp_page_down": 85, "kp_left": 86,
        "kp_begin": 87, "kp_right": 88, "kp_home": 89, "kp_up": 91, "kp_page_up": 92,
        "kp_decimal": 65, "kp_separator": 65, "kp_delete": 65, "kp_add": 69, "kp_subtract": 78,
        "kp_multiply": 67, "kp_divide": 75, "kp_equal": 81, "kp_enter": 76, "clear": 71, "num_lock": 71,
        "grave": 50, "asciitilde": 50, "minus": 27, "underscore": 27, "equal": 24, "plus": 24,
        "bracketleft": 33, "braceleft": 33, "bracketright": 30, "braceright": 30, "backslash": 42,
        "bar": 42, "semicolon": 41, "colon": 41, "apostrophe": 39, "quotedbl": 39, "comma": 43,
        "less": 43, "period": 47, "greater": 47, "slash": 44, "question": 44,
        "exclam": 18, "at": 19, "numbersign": 20, "dollar": 21, "percent": 23, "asciicircum": 22,
        "ampersand": 26, "asterisk": 28, "parenleft": 25, "parenright": 29,
    }
)  # fmt: skip


def carbon_key_code(chord: Chord) -> int | None:
    """The Carbon key code of a named key; None for a character the layout must resolve."""
    return CARBON_KEY_CODES.get(chord.key)


def carbon_flags(modifiers: frozenset[str]) -> int:
    """The CGEventFlags mask for neutral modifiers."""
    flags = 0
    for modifier in modifiers:
        flags |= CARBON_MODIFIER_FLAGS[modifier]
    return flags
