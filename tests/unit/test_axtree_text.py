"""Word-level rules of the AX state text (native-contract.md section 3.2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deskhand.core.axtree.model import Element
from deskhand.core.axtree.text import (
    base_role_text,
    display_value,
    display_window_title,
    match_secondary_action,
    pretty_action_name,
    sanitize,
    traits,
    visible_actions,
)


class TestSanitize:
    def test_newlines_become_backslash_n(self) -> None:
        assert sanitize("a\nb") == "a\\nb"

    def test_whitespace_is_trimmed(self) -> None:
        assert sanitize("  Save \t") == "Save"

    def test_160_characters_pass_unchanged(self) -> None:
        assert sanitize("x" * 160) == "x" * 160

    def test_longer_text_is_cut_at_160_plus_dots(self) -> None:
        assert sanitize("x" * 161) == "x" * 160 + "..."

    def test_a_newline_cannot_forge_a_tree_row(self) -> None:
        assert "\n" not in sanitize("Title\n\tg1:9 button Evil")

    @given(st.text())
    def test_never_emits_a_newline_and_is_bounded(self, text: str) -> None:
        out = sanitize(text)
        assert "\n" not in out
        assert len(out) <= 163


class TestSecondaryActions:
    @pytest.mark.parametrize(
        ("raw", "pretty"),
        [
            ("AXScrollDownByPage", "Scroll Down"),
            ("AXScrollUpByPage", "Scroll Up"),
            ("AXRaise", "Raise"),
            ("AXZoomWindow", "zoom the window"),
            ("AXIncrement", "Increment"),
            ("activate", "activate"),
        ],
    )
    def test_pretty_name_strips_ax_and_bypage_and_splits_camel_case(self, raw: str, pretty: str) -> None:
        assert pretty_action_name(raw) == pretty

    def test_hidden_actions(self) -> None:
        hidden = ("AXPress", "AXShowDefaultUI", "AXShowAlternateUI", "AXShowMenu", "AXConfirm", "AXScrollToVisible")
        element = Element("AXButton", actions=(*hidden, "AXRaise"))
        assert visible_actions(element) == ["Raise"]

    @pytest.mark.parametrize("role", ["AXMenuBar", "AXMenuBarItem", "AXMenu", "AXMenuItem"])
    def test_cancel_and_pick_are_hidden_on_menu_roles(self, role: str) -> None:
        assert visible_actions(Element(role, actions=("AXCancel", "AXPick"))) == []

    def test_cancel_and_pick_show_elsewhere(self) -> None:
        assert visible_actions(Element("AXButton", actions=("AXCancel", "AXPick"))) == ["Cancel", "Pick"]

    def test_scroll_area_with_vertical_page_actions_hides_horizontal_ones(self) -> None:
        actions = ("AXScrollLeftByPage", "AXScrollRightByPage", "AXScrollUpByPage", "AXScrollDownByPage")
        assert visible_actions(Element("AXScrollArea", actions=actions)) == ["Scroll Up", "Scroll Down"]

    def test_scroll_area_with_only_horizontal_page_actions_keeps_them(self) -> None:
        actions = ("AXScrollLeftByPage", "AXScrollRightByPage")
        assert visible_actions(Element("AXScrollArea", actions=actions)) == ["Scroll Left", "Scroll Right"]


class TestSecondaryActionMatcher:
    """6.8: exact raw names first, then the matcher's pretty form, case-insensitively."""

    NAMES = ("Toggle", "AXExpandOrContract", "AXScrollDownByPage", "AXZoomWindow", "Set Focus")

    @pytest.mark.parametrize(
        ("requested", "index"),
        [
            ("toggle", 0),
            ("AXEXPANDORCONTRACT", 1),
            ("expand or contract", 1),
            ("Scroll Down", 2),
            ("axscrolldownbypage", 2),
            ("Zoom Window", 3),
            (" set focus ", 4),
        ],
    )
    def test_matches(self, requested: str, index: int) -> None:
        assert match_secondary_action(requested, self.NAMES) == index

    @pytest.mark.parametrize("requested", ["zoom the window", "Scroll Down By Page", "Expand", ""])
    def test_no_match(self, requested: str) -> None:
        assert match_secondary_action(requested, self.NAMES) is None

    def test_raw_match_wins_over_an_earlier_pretty_match(self) -> None:
        assert match_secondary_action("press", ("AXPress", "Press")) == 1


class TestRoleText:
    @pytest.mark.parametrize(
        ("element", "text"),
        [
            (Element("AXRow", role_description="table row"), "row"),
            (Element("AXGroup", role_description="panel"), "container"),
            (Element("AXLink", role_description="hyperlink"), "link"),
            (Element("AXMenuBarItem", role_description="menu bar item"), ""),
            (Element("AXWebArea"), "HTML content"),
            (Element("AXWebArea", role_description="web page"), "web page"),
            (Element("AXButton", role_description="Toggle Button"), "toggle button"),
            (Element("AXWindow", subrole="AXStandardWindow"), "standard window"),
            (Element("AXWindow"), "window"),
            (Element("AXTextField"), "text field"),
            (Element("AXScrollBar"), "scroll bar"),
        ],
    )
    def test_role_text_rules(self, element: Element, text: str) -> None:
        assert base_role_text(element) == text


class TestValues:
    def test_booleans_render_on_off(self) -> None:
        assert display_value(Element("AXCheckBox", value=True), "check box") == "on"
        assert display_value(Element("AXCheckBox", value=False), "check box") == "off"

    def test_numeric_zero_one_on_checkbox_radio_and_tab_render_on_off(self) -> None:
        assert display_value(Element("AXRadioButton", value=1), "radio button") == "on"
        assert display_value(Element("AXRadioButton", value=0.0), "tab") == "off"

    def test_floats_render_bare_and_short(self) -> None:
        assert display_value(Element("AXScrollBar", value=0.137), "scroll bar") == "0.137"
        assert display_value(Element("AXSlider", value=1050.0), "slider") == "1050"

    def test_text_values_are_sanitized_and_empty_is_none(self) -> None:
        assert display_value(Element("AXTextField", value="a\nb"), "text field") == "a\\nb"
        assert display_value(Element("AXTextField", value="  "), "text field") is None


def test_traits_in_order() -> None:
    element = Element("AXRow", selected=True, expanded=True, enabled=False, settable="boolean")
    assert traits(element) == ["selected", "expanded", "disabled", "settable", "boolean"]


@pytest.mark.parametrize(
    ("title", "shown"),
    [("Docs", "Docs"), ("", "Mail"), (None, "Mail"), ("Mail – Inbox", "Mail"), ("Mailbox", "Mailbox")],
)
def test_display_window_title(title: str | None, shown: str) -> None:
    assert display_window_title(title, "Mail") == shown
