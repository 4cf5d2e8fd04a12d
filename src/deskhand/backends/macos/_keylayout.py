"""Reverse lookup of characters in the current keyboard layout (macOS; native-contract 6.5).

Pure: no pyobjc import. ``_tis.py`` supplies ``translate(keycode, modifier_state) -> str`` over
``UCKeyTranslate`` with the current layout; this module builds the reverse map the contract
describes: keycodes 0..127 under the modifier states none, shift, option and shift+option, the
first match wins, and a lookup tries the character as written before its lowercase form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

#: (Carbon modifier state for UCKeyTranslate, i.e. ``(EventModifiers >> 8) & 0xFF``, neutral modifiers).
MODIFIER_STATES: Final = (
    (0, frozenset[str]()),
    (0x02, frozenset({"shift"})),  # shiftKey (0x0200) >> 8
    (0x08, frozenset({"alt"})),  # optionKey (0x0800) >> 8
    (0x0A, frozenset({"shift", "alt"})),
)
KEYCODES: Final = range(128)

Translate = Callable[[int, int], str]
ReverseMap = Mapping[str, tuple[int, frozenset[str]]]


def build_reverse_map(translate: Translate) -> dict[str, tuple[int, frozenset[str]]]:
    """Character → (keycode, modifiers); earlier modifier states and lower keycodes win."""
    out: dict[str, tuple[int, frozenset[str]]] = {}
    for state, mods in MODIFIER_STATES:
        for code in KEYCODES:
            produced = translate(code, state)
            if len(produced) == 1 and produced.isprintable() and produced not in out:
                out[produced] = (code, mods)
    return out


def lookup(reverse: ReverseMap, char: str) -> tuple[int, frozenset[str]] | None:
    """The key for ``char`` as written, else for its lowercase form with Shift added."""
    found = reverse.get(char)
    if found is not None:
        return found
    lower = char.lower()
    if lower != char and lower in reverse:
        code, mods = reverse[lower]
        return code, mods | {"shift"}
    return None
