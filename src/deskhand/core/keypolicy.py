"""System key combinations that need the session's grant, per platform (native-contract.md 6.5).

A rule is (modifiers, key). A chord matches when it holds **at least** the rule's modifiers (Fn
ignored) and presses the rule's key: the stricter TS policy, which runs before the native one and
so decides. ``cmd+shift+ctrl+q`` therefore needs the grant on macOS just as ``cmd+q`` does.

Linux (our decision; the seeds only describe macOS and Windows): session, VT and lock combos of
X servers and the common desktops (GNOME, KDE, Xfce), plus combos that launch a terminal or a
run dialog, which would route around the deny list of terminals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final

from deskhand.core.keys import Chord, semantic_key
from deskhand.core.platform import Platform

Rule = tuple[frozenset[str], str]


def _rule(combo: str) -> Rule:
    *mods, key = combo.split("+")
    return frozenset(mods), key


def _rules(combos: Iterable[str]) -> tuple[Rule, ...]:
    return tuple(_rule(c) for c in combos)


#: darwin: the TS ``isSystemKeyCombo`` list (the native list is a subset of it).
DARWIN_COMBOS: Final = (
    "super+q", "shift+super+q", "alt+super+escape", "super+tab", "super+space", "ctrl+super+q",
)  # fmt: skip
#: win32: the TS list; every delete alias folds to ``delete`` in the parser.
WIN32_COMBOS: Final = ("ctrl+alt+delete", "alt+f4", "alt+tab", "super+l", "super+d")
#: linux: our list (see the module docstring).
LINUX_COMBOS: Final = (
    "ctrl+alt+backspace",  # kills the X server where zapping is on
    "ctrl+alt+delete",
    "ctrl+alt+kp_delete",
    "ctrl+alt+kp_decimal",  # the same keypad key with NumLock on
    *(f"ctrl+alt+f{n}" for n in range(1, 13)),  # switch virtual terminal
    "super+l",  # lock screen (GNOME, KDE)
    "ctrl+alt+l",  # lock screen (Xfce, older GNOME)
    "super+d",  # show desktop
    "alt+f4",  # close window
    "alt+tab",
    "super+tab",
    "ctrl+alt+tab",
    "alt+f2",  # run-command dialog
    "ctrl+alt+t",  # opens a terminal
    "ctrl+alt+escape",  # xkill (KDE)
    # launchers and menus: each can start any program, a terminal among them
    "super+return",  # a terminal (i3, sway-style and tiling setups)
    "alt+space",  # KRunner, window menu
    "alt+f1",  # application menu (GNOME, Xfce, KDE)
    "alt+f3",  # application finder (Xfce)
    "super+e",  # file manager
    "super+r",  # run dialog
    "super+a",  # application grid (GNOME)
    "ctrl+escape",  # start menu (KDE, Xfce, LXDE)
)

SYSTEM_COMBOS: Final[Mapping[Platform, tuple[Rule, ...]]] = MappingProxyType(
    {"macos": _rules(DARWIN_COMBOS), "windows": _rules(WIN32_COMBOS), "linux": _rules(LINUX_COMBOS)}
)

#: darwin native ``SystemKeyPolicy``: dangerous when the flags other than Fn are **exactly** these.
DARWIN_NATIVE_EXACT: Final = _rules(
    ("super+q", "shift+super+q", "ctrl+super+q", "super+tab", "shift+super+tab", "super+space", "alt+super+escape")
)


def is_system_combo(chord: Chord, platform: Platform) -> bool:
    """Whether one chord is a system combination on ``platform`` (unknown platforms: none)."""
    held = chord.modifiers - {"fn"}
    key = semantic_key(chord)
    return any(key == rule_key and mods <= held for mods, rule_key in SYSTEM_COMBOS.get(platform, ()))


def is_native_dangerous(chord: Chord) -> bool:
    """The macOS helper's exact-flags check, kept for parity tests and the native layer."""
    held = chord.modifiers - {"fn"}
    key = semantic_key(chord)
    return any(key == rule_key and mods == held for mods, rule_key in DARWIN_NATIVE_EXACT)


def needs_grant(chords: Iterable[Chord], platform: Platform) -> bool:
    """Whether any chord needs the session's system-key grant (``grant_flag_required`` without it)."""
    return any(is_system_combo(chord, platform) for chord in chords)
