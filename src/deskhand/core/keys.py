"""Key grammar: xdotool-style key strings parsed into platform-neutral chords (native-contract.md 6.5).

A key string such as ``"ctrl+shift+Tab Return"`` becomes a tuple of :class:`Chord` values. Each chord
holds neutral modifier names (``ctrl``, ``shift``, ``alt``, ``super``, ``fn``) and one neutral key:

* a named key, lowercase and canonical (``return``, ``tab``, ``delete``, ``backspace``, ``f5``,
  ``kp_0``, ``page_up``), or a named symbol in its X keysym spelling (``question``, ``at``);
* otherwise a single character, exactly as written except that an uppercase letter becomes its
  lowercase form plus Shift (``A`` means ``shift`` + ``a``).

Which keyboard-layout modifiers a single non-letter character needs (``?`` is Shift+slash on a US
layout) is decided by the backend's layout lookup: Carbon reverse lookup on macOS, the keysym's
level on X11. Named symbols always imply Shift where the contract lists them.

Per-platform data lives here too: :func:`to_x_keysyms` for X11 and :data:`CARBON_KEY_CODES` /
:func:`carbon_flags` for macOS. The system-combination policy is in :mod:`deskhand.core.keypolicy`.

The contract gives the error code ``unknown_key`` but no message texts; the texts below are ours.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from deskhand.core.errors import ArgumentError, NativeError

#: press_key on darwin takes at most this many whitespace-separated chords (1.4).
MAX_CHORDS_PER_PRESS: Final = 128
#: sequence: at most this many chords over all press_key steps (1.5).
SEQUENCE_CHORD_BUDGET: Final = 2048
SEQUENCE_BUDGET_MESSAGE: Final = "sequence exceeds its keyboard chord budget"

#: Modifier order used when pressing (released in reverse).
MODIFIER_ORDER: Final = ("ctrl", "shift", "alt", "super", "fn")


def _invert(groups: Mapping[str, tuple[str, ...]]) -> Mapping[str, str]:
    return MappingProxyType({alias: name for name, aliases in groups.items() for alias in aliases})


#: Neutral modifier -> accepted tokens (case-insensitive). ``super`` is the Command flag on macOS.
MODIFIER_ALIASES: Final = MappingProxyType(
    {
        "super": ("super", "super_l", "super_r", "cmd", "command", "meta", "meta_l", "meta_r", "win"),
        "ctrl": ("ctrl", "control", "control_l", "control_r"),
        "shift": ("shift", "shift_l", "shift_r"),
        "alt": ("alt", "alt_l", "alt_r", "option", "opt"),
        "fn": ("fn",),
    }
)
_MODIFIER_BY_TOKEN: Final = _invert(MODIFIER_ALIASES)

#: Neutral named key -> accepted tokens (case-insensitive), in the contract's table order.
KEY_ALIASES: Final = MappingProxyType(
    {
        "return": ("return", "enter"),
        "tab": ("tab",),
        "space": ("space", "spacebar"),
        "escape": ("escape", "esc"),
        "backspace": ("backspace", "back_space"),
        "delete": ("delete", "forwarddelete", "forward_delete", "del", "deletef"),
        "up": ("up", "uparrow", "up_arrow"),
        "down": ("down", "downarrow", "down_arrow"),
        "left": ("left", "leftarrow", "left_arrow"),
        "right": ("right", "rightarrow", "right_arrow"),
        "home": ("home",),
        "begin": ("begin",),
        "end": ("end",),
        "page_up": ("prior", "page_up", "pageup"),
        "page_down": ("next", "page_down", "pagedown"),
        "caps_lock": ("capslock", "caps_lock"),
        "help": ("help",),
        "insert": ("insert",),
        **{f"f{n}": (f"f{n}",) for n in range(1, 21)},
        **{f"kp_{n}": (f"kp_{n}", f"kp{n}") for n in range(10)},
        "kp_insert": ("kp_insert",),
        "kp_end": ("kp_end",),
        "kp_down": ("kp_down",),
        "kp_page_down": ("kp_next", "kp_page_down"),
        "kp_left": ("kp_left",),
        "kp_begin": ("kp_begin",),
        "kp_right": ("kp_right",),
        "kp_home": ("kp_home",),
        "kp_up": ("kp_up",),
        "kp_page_up": ("kp_prior", "kp_page_up"),
        "kp_decimal": ("kp_decimal",),
        "kp_separator": ("kp_separator",),
        "kp_delete": ("kp_delete",),
        "kp_add": ("kp_add", "kp_plus"),
        "kp_subtract": ("kp_subtract", "kp_minus"),
        "kp_multiply": ("kp_multiply",),
        "kp_divide": ("kp_divide",),
        "kp_equal": ("kp_equal",),
        "kp_enter": ("kp_enter",),
        "clear": ("kp_clear", "clear"),
        "num_lock": ("num_lock",),
        # Punctuation and number-row symbols, named as X keysyms. quoteleft and quoteright are
        # X's old names for grave and apostrophe.
        "grave": ("grave", "quoteleft"),
        "asciitilde": ("asciitilde",),
        "minus": ("minus",),
        "underscore": ("underscore",),
        "equal": ("equal",),
        "plus": ("plus",),
        "bracketleft": ("bracketleft",),
        "braceleft": ("braceleft",),
        "bracketright": ("bracketright",),
        "braceright": ("braceright",),
        "backslash": ("backslash",),
        "bar": ("bar",),
        "semicolon": ("semicolon",),
        "colon": ("colon",),
        "apostrophe": ("apostrophe", "quoteright"),
        "quotedbl": ("quotedbl",),
        "comma": ("comma",),
        "less": ("less",),
        "period": ("period",),
        "greater": ("greater",),
        "slash": ("slash",),
        "question": ("question",),
        "exclam": ("exclam",),
        "at": ("at",),
        "numbersign": ("numbersign",),
        "dollar": ("dollar",),
        "percent": ("percent",),
        "asciicircum": ("asciicircum",),
        "ampersand": ("ampersand",),
        "asterisk": ("asterisk",),
        "parenleft": ("parenleft",),
        "parenright": ("parenright",),
    }
)
_KEY_BY_TOKEN: Final = _invert(KEY_ALIASES)

#: Named symbols that imply Shift (6.5).
SHIFTED_SYMBOLS: Final = frozenset(
    {
        "asciitilde", "underscore", "plus", "braceleft", "braceright", "bar", "colon", "quotedbl",
        "less", "greater", "question", "exclam", "at", "numbersign", "dollar", "percent",
        "asciicircum", "ampersand", "asterisk", "parenleft", "parenright",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Chord:
    """One chord: modifiers held while ``key`` is pressed. Both are neutral names."""

    modifiers: frozenset[str]
    key: str

    @property
    def is_character(self) -> bool:
        """True when ``key`` is a literal character whose layout position the backend looks up."""
        return len(self.key) == 1

    def ordered_modifiers(self) -> tuple[str, ...]:
        return tuple(m for m in MODIFIER_ORDER if m in self.modifiers)


def _error(message: str) -> NativeError:
    return NativeError("unknown_key", message, dispatched=False)


_PLUS_SPACES: Final = re.compile(r"\s*\+\s*")


def parse_keys(text: str) -> tuple[Chord, ...]:
    """Parse an xdotool-style key string into chords.

    Raises:
        NativeError: code ``unknown_key`` for an empty string, a chord with no key, a non-modifier
            before the last token, a modifier-only chord, or an unknown key.
    """
    chords = tuple(_parse_chord(part) for part in _PLUS_SPACES.sub("+", text).split())
    if not chords:
        raise _error("The key sequence is empty.")
    return chords


def _parse_chord(text: str) -> Chord:
    tokens = [token for token in text.split("+") if token]
    if not tokens:
        raise _error(f'Key chord "{text}" has no key.')
    modifiers: set[str] = set()
    for token in tokens[:-1]:
        modifier = _MODIFIER_BY_TOKEN.get(token.lower())
        if modifier is None:
            raise _error(f'Unknown modifier "{token}" in key chord "{text}"; only modifiers may come before the key.')
        modifiers.add(modifier)
    last = tokens[-1]
    if last.lower() in _MODIFIER_BY_TOKEN:
        raise _error(f'Key chord "{text}" has no key, only modifiers.')
    key = _key_of(last)
    if key is None:
        raise _error(f'Unknown key "{last}" in key chord "{text}".')
    name, implies_shift = key
    if implies_shift:
        modifiers.add("shift")
    return Chord(frozenset(modifiers), name)


def _key_of(token: str) -> tuple[str, bool] | None:
    """The neutral key for a token and whether it implies Shift, or None if unknown."""
    named = _KEY_BY_TOKEN.get(token.lower())
    if named is not None:
        return named, named in SHIFTED_SYMBOLS
    if len(token) != 1 or not token.isprintable() or token.isspace():
        return None
    lower = token.lower()
    if lower != token and len(lower) == 1 and lower.upper() == token:
        return lower, True
    return token, False


def semantic_key(chord: Chord) -> str:
    """The key name the system-key policy compares (lowercase; aliases already folded)."""
    return chord.key.lower()


def check_press_budget(chords: Sequence[Chord]) -> None:
    """press_key on darwin: at most :data:`MAX_CHORDS_PER_PRESS` chords."""
    if len(chords) > MAX_CHORDS_PER_PRESS:
        raise ArgumentError(f"key has {len(chords)} chords; at most {MAX_CHORDS_PER_PRESS} are allowed")


def check_sequence_budget(chord_counts: Sequence[int]) -> None:
    """sequence: each press_key step at most 128 chords and 2048 over all steps (1.5)."""
    if any(n > MAX_CHORDS_PER_PRESS for n in chord_counts) or sum(chord_counts) > SEQUENCE_CHORD_BUDGET:
        raise ArgumentError(SEQUENCE_BUDGET_MESSAGE)


# --- X11 ---------------------------------------------------------------------------------------

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


def to_x_keysyms(chord: Chord) -> tuple[tuple[str, ...], str]:
    """(modifier keysym names in press order, key keysym name) for XTest on Linux."""
    mods = tuple(X_MODIFIER_KEYSYMS[m] for m in chord.ordered_modifiers() if m in X_MODIFIER_KEYSYMS)
    return mods, x_keysym_name(chord.key)


# --- macOS ---------------------------------------------------------------------------------------

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
