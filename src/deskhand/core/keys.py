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

Per-platform tables live in their own pure modules: :mod:`deskhand.core.x11keys` (keysyms) and
:mod:`deskhand.core.carbonkeys` (Carbon key codes and event flags). The system-combination policy is
in :mod:`deskhand.core.keypolicy`.

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
