"""X11 key data: neutral key names (:mod:`deskhand.core.keys`) to X keysym names and values.

Pure tables for the Linux backend's XTest typing. It works on the grammar's neutral names (strings)
and imports nothing from the grammar, so the grammar does not depend on any platform.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Final

#: Neutral modifier -> the X keysym pressed for it. Fn has no X keysym and is dropped on X11.
X_MODIFIER_KEYSYMS: Final = MappingProxyType(
    {"ctrl": "Control_L", "shift": "Shift_L", "alt": "Alt_L", "super": "Super_L"}
)

_X_SPECIAL: Final = MappingProxyType(
    {
        "return": "Return", "tab": "Tab", "space": "space", "escape": "Escape",
        "backspace": "BackSpace", "delete": "Delete", "up": "Up", "down": "Down", "left": "Left",
        "right": "Right", "home": "Home", "begin": "Begin", "end": "End", "page_up": "Prior",
        "page_down": "Next", "caps_lock": "Caps_Lock", "help": "Help", "insert": "Insert",
        "kp_insert": "KP_Insert", "kp_end": "KP_End", "kp_down": "KP_Down", "kp_page_down": "KP_Next",
        "kp_left": "KP_Left", "kp_begin": "KP_Begin", "kp_right": "KP_Right", "kp_home": "KP_Home",
        "kp_up": "KP_Up", "kp_page_up": "KP_Prior", "kp_decimal": "KP_Decimal",
        "kp_separator": "KP_Separator", "kp_delete": "KP_Delete", "kp_add": "KP_Add",
        "kp_subtract": "KP_Subtract", "kp_multiply": "KP_Multiply", "kp_divide": "KP_Divide",
        "kp_equal": "KP_Equal", "kp_enter": "KP_Enter", "clear": "Clear", "num_lock": "Num_Lock",
    }
)  # fmt: skip

#: ASCII punctuation character -> X keysym name (the symbols' names in KEY_ALIASES).
X_CHAR_NAMES: Final = MappingProxyType(
    {
        " ": "space", "`": "grave", "~": "asciitilde", "-": "minus", "_": "underscore", "=": "equal",
        "+": "plus", "[": "bracketleft", "{": "braceleft", "]": "bracketright", "}": "braceright",
        "\\": "backslash", "|": "bar", ";": "semicolon", ":": "colon", "'": "apostrophe",
        '"': "quotedbl", ",": "comma", "<": "less", ".": "period", ">": "greater", "/": "slash",
        "?": "question", "!": "exclam", "@": "at", "#": "numbersign", "$": "dollar", "%": "percent",
        "^": "asciicircum", "&": "ampersand", "*": "asterisk", "(": "parenleft", ")": "parenright",
    }
)  # fmt: skip


def x_keysym_name(key: str) -> str:
    """The X keysym name of a neutral key. Non-ASCII characters use the ``U<hex>`` form."""
    if len(key) == 1:
        if key.isascii() and key.isalnum():
            return key
        named = X_CHAR_NAMES.get(key)
        return named if named is not None else f"U{ord(key):04X}"
    special = _X_SPECIAL.get(key)
    if special is not None:
        return special
    if key[0] == "f" and key[1:].isdigit():
        return key.upper()
    if key.startswith("kp_") and key[3:].isdigit():
        return f"KP_{key[3:]}"
    return key  # named symbols are already keysym names


def x_keysym_value(key: str) -> int | None:
    """The keysym value of a single-character key (Latin-1 as is, other code points + 0x01000000).

    Named keys return None: the backend resolves their names through its keysym tables.
    """
    if len(key) != 1:
        return None
    cp = ord(key)
    return cp if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF else 0x01000000 | cp


def to_x_keysyms(modifiers: Iterable[str], key: str) -> tuple[tuple[str, ...], str]:
    """(modifier keysym names in press order, key keysym name) for XTest on Linux.

    ``modifiers`` are a chord's neutral modifiers in press order (``Chord.ordered_modifiers()``);
    Fn has no X keysym and is dropped.
    """
    mods = tuple(X_MODIFIER_KEYSYMS[m] for m in modifiers if m in X_MODIFIER_KEYSYMS)
    return mods, x_keysym_name(key)
