"""macOS backend, pure: AX attribute batches → Element, the child union, locators and the bounded walk."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from deskhand.backends.macos import _axerrors
from deskhand.backends.macos._mapping import (
    BATCH,
    Raw,
    child_refs,
    element_from,
    locator_step,
    value_of,
    walk,
)
from deskhand.core.axtree.model import AppTree, WindowTree
from deskhand.core.axtree.observer import Observer
from deskhand.core.axtree.text import match_secondary_action
from deskhand.core.geometry import Rect


def test_batch_reads_every_child_attribute_once() -> None:
    assert len(set(BATCH)) == len(BATCH)
    for name in ("AXChildren", "AXRows", "AXContents", "AXVisibleChildren", "AXPosition", "AXSize"):
        assert name in BATCH


def test_element_from_a_text_field_batch() -> None:
    raw = Raw(
        {
            "AXRole": "AXTextField",
            "AXRoleDescription": "text field",
            "AXTitle": "Name",
            "AXValue": "old",
            "AXFocused": True,
            "AXSelectedText": "ol",
            "AXPosition": (10.0, 20.0),
            "AXSize": (200.0, 24.0),
            "AXEnabled": True,
        },
        actions=("AXConfirm",),
        settable=True,
    )
    el = element_from(raw, locator="AXTextField:0", ref="r")
    assert (el.role, el.role_description, el.title, el.value) == ("AXTextField", "text field", "Name", "old")
    assert el.settable == "string" and el.focused and el.selected_text == "ol"
    assert el.frame == Rect(10, 20, 200, 24) and el.actions == ("AXConfirm",) and el.ref == "r"


@pytest.mark.parametrize(
    ("role", "raw", "expected"),
    [
        ("AXCheckBox", 1, (True, "boolean")),
        ("AXCheckBox", 0, (False, "boolean")),
        ("AXCheckBox", 2, ("mixed", "boolean")),
        ("AXSlider", 5, (5.0, "float")),
        ("AXScrollBar", 0.137, (0.137, "float")),
        ("AXStaticText", "hi", ("hi", "string")),
        ("AXGroup", None, (None, None)),
    ],
)
def test_value_types(role: str, raw: object, expected: tuple[object, object]) -> None:
    assert value_of(role, raw) == expected


def test_disabled_and_unsettable() -> None:
    el = element_from(Raw({"AXRole": "AXButton", "AXEnabled": False, "AXTitle": "OK"}), locator="b", ref=None)
    assert not el.enabled and el.settable is None and el.frame is None


def test_child_union_rows_first_for_lists_and_visible_rows_only() -> None:
    attrs = {
        "AXRole": "AXOutline",
        "AXChildren": ["r1", "r2", "r3", "col"],
        "AXRows": ["r1", "r2", "r3"],
        "AXVisibleRows": ["r1", "r2"],
        "AXVisibleChildren": ["r1"],
    }
    assert child_refs(attrs) == ["r1", "r2", "col"]
    el = element_from(Raw(attrs), locator="o", ref=None)
    assert el.row_count == 3
    group = {"AXRole": "AXGroup", "AXChildren": ["a", "b"], "AXContents": ["c", "a"], "AXRows": ["z"]}
    assert child_refs(group) == ["a", "b", "z", "c"]


def test_locator_steps() -> None:
    assert locator_step({"AXRole": "AXButton", "AXIdentifier": "save"}, 3) == "AXButton#save"
    assert locator_step({"AXRole": "AXButton", "AXIdentifier": "_NS:12"}, 3) == "AXButton:3"
    assert locator_step({}, 0) == "AXUnknown:0"


TREE: Mapping[str, Raw] = {
    "win": Raw({"AXRole": "AXWindow", "AXTitle": "Doc", "AXChildren": ["b1", "b2", "gone", "tf"]}),
    "b1": Raw({"AXRole": "AXButton", "AXTitle": "Save"}),
    "b2": Raw({"AXRole": "AXButton", "AXTitle": "Open"}),
    "tf": Raw({"AXRole": "AXTextField", "AXValue": "x", "AXFocused": True}, settable=True),
}


def test_walk_reads_the_tree_in_document_order_and_skips_failed_reads() -> None:
    got = walk("win", TREE.get, now=lambda: 0.0, deadline=1.0)
    assert got.root is not None
    assert [c.title or c.value for c in got.root.children] == ["Save", "Open", "x"]
    assert [c.locator for c in got.root.children] == ["AXButton:0", "AXButton:1", "AXTextField:0"]
    assert got.focused is got.root.children[2]
    assert (got.failed, got.truncated, got.timed_out) == (1, False, False)


def test_walk_stops_at_the_deadline_and_keeps_what_it_read() -> None:
    ticks = iter(range(100))
    got = walk("win", TREE.get, now=lambda: float(next(ticks)), deadline=2.0)
    assert got.truncated and got.timed_out
    assert got.root is not None and len(got.root.children) == 2


def test_walk_node_cap() -> None:
    got = walk("win", TREE.get, now=lambda: 0.0, deadline=1.0, max_nodes=2)
    assert got.truncated and not got.timed_out and got.read == 2


def test_walked_tree_renders_through_the_core_observer() -> None:
    got = walk("win", TREE.get, now=lambda: 0.0, deadline=1.0)
    assert got.root is not None
    tree = AppTree("com.example.doc", "Doc", 42, [WindowTree(7, "Doc", got.root)], focused=got.focused)
    text = Observer().observe(tree, app_key="com.example.doc", identity="id", key_window_id=7).text
    assert text.startswith("App=com.example.doc (pid 42)")
    assert "button Save" in text and "text field (settable, string)" in text


def test_secondary_action_matching() -> None:
    names = ("AXRaise", "AXScrollDownByPage", "AXZoomWindow")
    assert match_secondary_action("axraise", names) == 0
    assert match_secondary_action("scroll down", names) == 1
    assert match_secondary_action("Zoom Window", names) == 2
    assert match_secondary_action("zoom the window", names) is None


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (_axerrors.INVALID_UI_ELEMENT, "stale_element"),
        (_axerrors.API_DISABLED, "not_trusted"),
        (_axerrors.CANNOT_COMPLETE, "ax_failed"),
        (_axerrors.FAILURE, "ax_failed"),
    ],
)
def test_ax_errors_map_to_contract_codes(status: int, code: str) -> None:
    err = _axerrors.to_error(status, "press")
    assert err.code == code
    with pytest.raises(type(err)):
        _axerrors.check(status, "press")
    _axerrors.check(_axerrors.SUCCESS, "press")
    assert _axerrors.is_missing(_axerrors.NO_VALUE) and not _axerrors.is_missing(status)
