"""Key grammar, per-platform key data and the system-key policy (native-contract.md 6.5, 7.2)."""

from __future__ import annotations

import pytest

from deskhand.core import x11keys
from deskhand.core.carbonkeys import CARBON_KEY_CODES, CARBON_MODIFIER_FLAGS, carbon_flags, carbon_key_code
from deskhand.core.errors import ArgumentError, NativeError
from deskhand.core.keypolicy import is_native_dangerous, is_system_combo, needs_grant
from deskhand.core.keys import (
    KEY_ALIASES,
    MODIFIER_ALIASES,
    SHIFTED_SYMBOLS,
    Chord,
    check_press_budget,
    check_sequence_budget,
    parse_keys,
)
from deskhand.core.x11keys import x_keysym_name, x_keysym_value


def to_x_keysyms(c: Chord) -> tuple[tuple[str, ...], str]:
    return x11keys.to_x_keysyms(c.ordered_modifiers(), c.key)


def chord(text: str) -> Chord:
    (only,) = parse_keys(text)
    return only


def C(key: str, *mods: str) -> Chord:
    return Chord(frozenset(mods), key)


# --- grammar -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ctrl+shift+Tab", (C("tab", "ctrl", "shift"),)),
        ("Control_L+a", (C("a", "ctrl"),)),
        ("super+v", (C("v", "super"),)),
        ("Return Return", (C("return"), C("return"))),
        ("A", (C("a", "shift"),)),
        ("question", (C("question", "shift"),)),
        ("ctrl + shift +  t", (C("t", "ctrl", "shift"),)),
        ("  ctrl+a \t alt+F4\n", (C("a", "ctrl"), C("f4", "alt"))),
        ("+a", (C("a"),)),
        ("1", (C("1"),)),
        ("é", (C("é"),)),
        ("É", (C("é", "shift"),)),
        ("?", (C("?"),)),
    ],
)
def test_parse(text: str, expected: tuple[Chord, ...]) -> None:
    assert parse_keys(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "a+b",
        "Control_L",
        "Hyper_L+k",
        "a+Control_L",
        "Control_L+a+b",
        "ctrl+",
        "ctrl++",
        "+",
        "foo",
        "ctrl+foo",
    ],
)
def test_rejected_forms_are_unknown_key(text: str) -> None:
    with pytest.raises(NativeError) as caught:
        parse_keys(text)
    assert caught.value.code == "unknown_key"
    assert caught.value.dispatched is False


def test_rejected_messages_name_the_problem() -> None:
    with pytest.raises(NativeError, match="empty"):
        parse_keys("")
    with pytest.raises(NativeError, match=r'Unknown modifier "Hyper_L"'):
        parse_keys("Hyper_L+k")
    with pytest.raises(NativeError, match="only modifiers"):
        parse_keys("Control_L")
    with pytest.raises(NativeError, match=r'Unknown key "foo"'):
        parse_keys("foo")


@pytest.mark.parametrize(("neutral", "tokens"), list(MODIFIER_ALIASES.items()))
def test_every_modifier_alias_case_insensitive(neutral: str, tokens: tuple[str, ...]) -> None:
    for token in tokens:
        for spelled in (token, token.upper(), token.title()):
            assert chord(f"{spelled}+x").modifiers == {neutral}


@pytest.mark.parametrize(("neutral", "tokens"), list(KEY_ALIASES.items()))
def test_every_named_key_alias_case_insensitive(neutral: str, tokens: tuple[str, ...]) -> None:
    for token in tokens:
        for spelled in (token, token.upper(), token.title()):
            assert chord(spelled).key == neutral


def test_delete_is_forward_delete_and_backspace_is_delete_left() -> None:
    for token in ("Delete", "forwarddelete", "forward_delete", "del", "deletef"):
        assert chord(token).key == "delete"
    assert chord("BackSpace").key == "backspace"
    assert chord("back_space").key == "backspace"
    assert to_x_keysyms(chord("Delete")) == ((), "Delete")
    assert to_x_keysyms(chord("BackSpace")) == ((), "BackSpace")


def test_shift_implied_for_every_listed_symbol() -> None:
    listed = [
        "asciitilde", "underscore", "plus", "braceleft", "braceright", "bar", "colon", "quotedbl", "less",
        "greater", "question", "exclam", "at", "numbersign", "dollar", "percent", "asciicircum",
        "ampersand", "asterisk", "parenleft", "parenright",
    ]  # fmt: skip
    assert set(listed) == SHIFTED_SYMBOLS
    for name in listed:
        assert chord(name).modifiers == {"shift"}
    for unshifted in ("grave", "minus", "equal", "bracketleft", "backslash", "semicolon", "apostrophe", "slash"):
        assert chord(unshifted).modifiers == frozenset()


def test_uppercase_letters_imply_shift() -> None:
    assert chord("ctrl+A") == C("a", "ctrl", "shift")
    assert chord("Z") == C("z", "shift")
    assert chord("z") == C("z")


# --- macOS data --------------------------------------------------------------------------------


def test_key_mapping_parity_number_row_codes_and_shift() -> None:
    """KeyMappingParityTests: number-row codes and Shift."""
    expected = {
        "exclam": 18, "at": 19, "numbersign": 20, "dollar": 21, "percent": 23, "asciicircum": 22,
        "ampersand": 26, "asterisk": 28, "parenleft": 25, "parenright": 29,
    }  # fmt: skip
    for name, code in expected.items():
        parsed = chord(name)
        assert carbon_key_code(parsed) == code
        assert parsed.modifiers == {"shift"}
        assert carbon_flags(parsed.modifiers) == 0x20000


def test_key_mapping_parity_left_right_modifier_aliases() -> None:
    """KeyMappingParityTests: *_L / *_R modifier aliases."""
    for side in ("L", "R"):
        assert chord(f"Control_{side}+a").modifiers == {"ctrl"}
        assert chord(f"Super_{side}+a").modifiers == {"super"}
        assert chord(f"Meta_{side}+a").modifiers == {"super"}
        assert chord(f"Shift_{side}+a").modifiers == {"shift"}
        assert chord(f"Alt_{side}+a").modifiers == {"alt"}


def test_key_mapping_parity_delete_117_backspace_51() -> None:
    """KeyMappingParityTests: Delete=117 versus BackSpace=51."""
    assert carbon_key_code(chord("Delete")) == 117
    assert carbon_key_code(chord("BackSpace")) == 51


def test_key_mapping_parity_a_and_question_imply_shift() -> None:
    """KeyMappingParityTests: `A` and `question` imply Shift."""
    assert "shift" in chord("A").modifiers
    assert "shift" in chord("question").modifiers
    assert carbon_key_code(chord("question")) == 44


def test_key_mapping_parity_rejected_forms() -> None:
    """KeyMappingParityTests: Control_L, Hyper_L+k, Control_L+a+b, a+Control_L are rejected."""
    for text in ("Control_L", "Hyper_L+k", "Control_L+a+b", "a+Control_L"):
        with pytest.raises(NativeError) as caught:
            parse_keys(text)
        assert caught.value.code == "unknown_key"


def test_key_mapping_parity_new_cmd_aliases_still_require_grant() -> None:
    """KeyMappingParityTests: the new Cmd aliases still require the grant."""
    for alias in ("super", "super_l", "super_r", "cmd", "command", "meta", "meta_l", "meta_r", "win"):
        assert needs_grant(parse_keys(f"{alias}+q"), "macos")


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("Return", 36), ("enter", 36), ("Tab", 48), ("space", 49), ("spacebar", 49), ("Escape", 53),
        ("esc", 53), ("Up", 126), ("Down", 125), ("Left", 123), ("Right", 124), ("Home", 115),
        ("Begin", 115), ("End", 119), ("Prior", 116), ("Page_Up", 116), ("Next", 121), ("pagedown", 121),
        ("Caps_Lock", 57), ("Help", 114), ("Insert", 114), ("F1", 122), ("F2", 120), ("F3", 99),
        ("F4", 118), ("F5", 96), ("F6", 97), ("F7", 98), ("F8", 100), ("F9", 101), ("F10", 109),
        ("F11", 103), ("F12", 111), ("F13", 105), ("F14", 107), ("F15", 113), ("F16", 106),
        ("F17", 64), ("F18", 79), ("F19", 80), ("F20", 90), ("KP_0", 82), ("kp0", 82),
        ("KP_Insert", 82), ("KP_1", 83), ("KP_End", 83), ("KP_2", 84), ("KP_Down", 84), ("KP_3", 85),
        ("KP_Next", 85), ("KP_Page_Down", 85), ("KP_4", 86), ("KP_Left", 86), ("KP_5", 87),
        ("KP_Begin", 87), ("KP_6", 88), ("KP_Right", 88), ("KP_7", 89), ("KP_Home", 89), ("KP_8", 91),
        ("KP_Up", 91), ("KP_9", 92), ("KP_Prior", 92), ("KP_Page_Up", 92), ("KP_Decimal", 65),
        ("KP_Separator", 65), ("KP_Delete", 65), ("KP_Add", 69), ("kp_plus", 69), ("KP_Subtract", 78),
        ("kp_minus", 78), ("KP_Multiply", 67), ("KP_Divide", 75), ("KP_Equal", 81), ("KP_Enter", 76),
        ("kp_clear", 71), ("Clear", 71), ("Num_Lock", 71), ("grave", 50), ("quoteleft", 50),
        ("asciitilde", 50), ("minus", 27), ("underscore", 27), ("equal", 24), ("plus", 24),
        ("bracketleft", 33), ("braceleft", 33), ("bracketright", 30), ("braceright", 30),
        ("backslash", 42), ("bar", 42), ("semicolon", 41), ("colon", 41), ("apostrophe", 39),
        ("quoteright", 39), ("quotedbl", 39), ("comma", 43), ("less", 43), ("period", 47),
        ("greater", 47), ("slash", 44), ("question", 44),
    ],
)  # fmt: skip
def test_carbon_codes_of_the_contract_table(token: str, code: int) -> None:
    assert carbon_key_code(chord(token)) == code


def test_every_named_key_has_a_carbon_code() -> None:
    assert set(KEY_ALIASES) == set(CARBON_KEY_CODES)


def test_characters_are_left_to_the_layout_on_macos() -> None:
    assert carbon_key_code(chord("a")) is None
    assert carbon_key_code(chord("?")) is None


def test_carbon_modifier_flags() -> None:
    assert CARBON_MODIFIER_FLAGS == {
        "super": 0x100000,
        "ctrl": 0x40000,
        "shift": 0x20000,
        "alt": 0x80000,
        "fn": 0x800000,
    }
    assert carbon_flags(chord("cmd+v").modifiers) == 0x100000
    assert carbon_flags(chord("ctrl+alt+shift+super+fn+a").modifiers) == 0x9E0000


# --- X11 data ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ctrl+shift+Tab", (("Control_L", "Shift_L"), "Tab")),
        ("super+v", (("Super_L",), "v")),
        ("alt+F4", (("Alt_L",), "F4")),
        ("A", (("Shift_L",), "a")),
        ("question", (("Shift_L",), "question")),
        ("?", ((), "question")),
        ("Prior", ((), "Prior")),
        ("KP_7", ((), "KP_7")),
        ("kp_page_up", ((), "KP_Prior")),
        ("Return", ((), "Return")),
        ("space", ((), "space")),
        ("quoteright", ((), "apostrophe")),
        ("fn+F1", ((), "F1")),
        ("é", ((), "U00E9")),
        ("✓", ((), "U2713")),
    ],
)
def test_to_x_keysyms(text: str, expected: tuple[tuple[str, ...], str]) -> None:
    assert to_x_keysyms(chord(text)) == expected


def test_every_named_key_has_an_x_keysym_name() -> None:
    for neutral in KEY_ALIASES:
        name = x_keysym_name(neutral)
        assert name and name.isascii() and " " not in name


def test_x_keysym_values_of_characters() -> None:
    assert x_keysym_value("a") == 0x61
    assert x_keysym_value("é") == 0xE9
    assert x_keysym_value("✓") == 0x01002713
    assert x_keysym_value("😀") == 0x0101F600
    assert x_keysym_value("return") is None


# --- budgets -----------------------------------------------------------------------------------


def test_press_key_budget_is_128_chords() -> None:
    check_press_budget(parse_keys(" ".join(["a"] * 128)))
    with pytest.raises(ArgumentError):
        check_press_budget(parse_keys(" ".join(["a"] * 129)))


def test_sequence_chord_budget() -> None:
    check_sequence_budget([128] * 16)
    for counts in ([129], [128] * 16 + [1]):
        with pytest.raises(ArgumentError, match=r"^sequence exceeds its keyboard chord budget$"):
            check_sequence_budget(counts)


# --- system-key policy ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "cmd+q", "super+q", "command+q", "meta+q", "win+q", "cmd+Q", "shift+cmd+q", "ctrl+cmd+q",
        "cmd+tab", "shift+cmd+Tab", "cmd+space", "cmd+spacebar", "opt+cmd+esc", "alt+super+Escape",
        "ctrl+shift+cmd+q", "fn+cmd+q", "a cmd+tab",
    ],
)  # fmt: skip
def test_tool_calls_system_key_alias_matrix_needs_grant_on_darwin(text: str) -> None:
    """toolCalls.test.ts: the system-key alias matrix gives grant_flag_required."""
    assert needs_grant(parse_keys(text), "macos")


@pytest.mark.parametrize("text", ["cmd+w", "q", "ctrl+q", "alt+tab", "cmd+escape", "opt+esc", "cmd+v"])
def test_ordinary_chords_need_no_grant_on_darwin(text: str) -> None:
    assert not needs_grant(parse_keys(text), "macos")


def test_native_policy_matches_exact_flags_only() -> None:
    for text in (
        "cmd+q",
        "shift+cmd+q",
        "ctrl+cmd+q",
        "cmd+tab",
        "shift+cmd+tab",
        "cmd+space",
        "opt+cmd+esc",
        "fn+cmd+q",
    ):
        assert is_native_dangerous(chord(text)), text
    for text in ("ctrl+shift+cmd+q", "alt+cmd+q", "ctrl+cmd+tab", "shift+cmd+space", "cmd+escape"):
        assert not is_native_dangerous(chord(text)), text
        assert text == "cmd+escape" or is_system_combo(chord(text), "macos")


@pytest.mark.parametrize(
    "text",
    [
        "ctrl+alt+BackSpace", "ctrl+alt+Delete", "ctrl+alt+del", "Control_L+Alt_L+forward_delete",
        *(f"ctrl+alt+F{n}" for n in range(1, 13)), "super+l", "Super_L+L", "alt+F4", "alt+Tab",
        "shift+alt+Tab", "ctrl+alt+l", "super+d", "alt+F2", "ctrl+alt+t",
    ],
)  # fmt: skip
def test_linux_system_combos_need_grant(text: str) -> None:
    assert needs_grant(parse_keys(text), "linux")


@pytest.mark.parametrize("text", ["ctrl+a", "ctrl+alt+F13", "alt+F5", "super+v", "ctrl+BackSpace", "l", "Delete"])
def test_linux_ordinary_chords_need_no_grant(text: str) -> None:
    assert not needs_grant(parse_keys(text), "linux")


@pytest.mark.parametrize("text", ["ctrl+alt+delete", "ctrl+alt+del", "alt+f4", "alt+tab", "win+l", "meta+d"])
def test_win32_combos(text: str) -> None:
    assert needs_grant(parse_keys(text), "windows")


def test_unknown_platform_blocks_nothing() -> None:
    assert not needs_grant(parse_keys("cmd+q"), "plan9")


@pytest.mark.parametrize(
    "combo",
    ["super+Return", "alt+space", "alt+F1", "alt+F2", "alt+F3", "super+e", "super+r", "super+a", "ctrl+Escape",
     "ctrl+alt+KP_Decimal", "ctrl+alt+KP_Delete", "shift+alt+F1"],
)  # fmt: skip
def test_linux_launchers_and_keypad_twins_need_the_grant(combo: str) -> None:
    assert needs_grant(parse_keys(combo), "linux")


@pytest.mark.parametrize("combo", ["alt+F5", "super+z", "ctrl+alt+KP_1", "Escape", "space"])
def test_linux_ordinary_keys_need_no_grant(combo: str) -> None:
    assert not needs_grant(parse_keys(combo), "linux")
