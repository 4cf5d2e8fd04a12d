"""The model's own rules: which menu bar a window's tree gives up to the state's menu-bar part."""

from __future__ import annotations

from deskhand.core.axtree.model import Element, detach_menu_bar
from deskhand.core.geometry import Rect


def _bar(name: str, frame: Rect | None) -> Element:
    return Element("AXMenuBar", title=name, frame=frame, children=[Element("AXMenuBarItem", title="File")])


def test_the_menu_bar_on_screen_is_taken_and_a_zero_size_twin_is_dropped() -> None:
    """LibreOffice under GTK 3: its own menu bar under the root pane at height 0 (no frame), and
    the GTK one above it on screen; the state shows File, Edit, ... once."""
    hidden = _bar("vcl", None)
    shown = _bar("gtk", Rect(0, 19, 1896, 25))
    pane = Element("AXGroup", title="root pane", children=[hidden, Element("AXTextArea")])
    root = Element("AXWindow", children=[Element("AXScrollArea", children=[shown]), pane])
    assert detach_menu_bar(root) is shown
    assert [c.role for c in pane.children] == ["AXTextArea"]
    assert root.children[0].children == []


def test_without_frames_the_first_menu_bar_in_reading_order_is_taken_and_the_other_stays_out() -> None:
    first, second = _bar("first", None), _bar("second", None)
    root = Element("AXWindow", children=[Element("AXGroup", children=[first]), second])
    assert detach_menu_bar(root) is first
    assert root.children[0].children == []
    assert root.children[1:] == []  # a frameless twin is not printed in the window either


def test_a_second_menu_bar_on_screen_stays_where_it_is() -> None:
    first, second = _bar("first", Rect(0, 0, 100, 20)), _bar("second", Rect(0, 200, 100, 20))
    root = Element("AXWindow", children=[first, Element("AXGroup", children=[second])])
    assert detach_menu_bar(root) is first
    assert root.children[0].children == [second]


def test_no_menu_bar() -> None:
    root = Element("AXWindow", children=[Element("AXButton", title="OK")])
    assert detach_menu_bar(root) is None
    assert len(root.children) == 1
