"""A realistic editor window rendered in full and as a diff, checked against reviewed golden files.

Regenerate after an intended format change with ``DESKHAND_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from axtree_json import read
from deskhand.core.axtree import AppTree, Element, Observer, WindowTree, frame_envelope
from deskhand.core.geometry import Rect

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def editor(text: str, *, saved: bool) -> AppTree:
    body = Element(
        "AXTextArea",
        role_description="text entry area",
        value=text,
        settable="string",
        identifier="_NS:91",
        focused=True,
        selected_text="world" if saved else None,
        locator="body",
    )
    rows = [
        Element(
            "AXRow",
            locator=f"row{i}",
            frame=Rect(0, 20 * i, 200, 20),
            children=[
                Element("AXCell", children=[Element("AXStaticText", value=name)]),
                Element("AXCell", children=[Element("AXStaticText", value=size)]),
            ],
        )
        for i, (name, size) in enumerate([("notes.txt", "2 KB"), ("todo.md", "1 KB"), ("old.log", "9 MB")])
    ]
    files = Element(
        "AXOutline", description="Files", frame=Rect(0, 0, 200, 40), row_count=3, children=rows, locator="files"
    )
    toolbar = Element(
        "AXGroup",
        locator="toolbar",
        children=[
            Element("AXButton", title="Save", enabled=not saved, locator="save"),
            Element("AXCheckBox", title="Wrap", value=saved, locator="wrap"),
            Element(
                "AXLink",
                title="Help",
                url="https://example.com/help",
                locator="help",
                children=[Element("AXStaticText", value="Help")],
            ),
        ],
    )
    scroll = Element(
        "AXScrollArea",
        actions=("AXScrollLeftByPage", "AXScrollRightByPage", "AXScrollUpByPage", "AXScrollDownByPage"),
        locator="scroll",
        children=[body, Element("AXScrollBar", value=0.137, settable="float", locator="vbar")],
    )
    window = Element(
        "AXWindow",
        subrole="AXStandardWindow",
        title="notes.txt",
        actions=("AXRaise",),
        locator="win",
        children=[toolbar, files, scroll],
    )
    menu = Element(
        "AXMenuBar",
        locator="menubar",
        children=[
            Element("AXMenuBarItem", title="Apple"),
            Element("AXMenuBarItem", title="File", actions=("AXCancel", "AXPick")),
        ],
    )
    return AppTree("org.example.Editor", "Editor", 4242, [WindowTree(31, "notes.txt", window)], menu_bar=menu)


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("DESKHAND_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_golden_full_and_diff() -> None:
    observer = Observer()
    first = observer.observe(editor("hello\nworld", saved=False), app_key="editor", identity="E1", key_window_id=31)
    check("axtree_editor_full.txt", frame_envelope(first.text) + "\n")
    second = observer.observe(editor("hello\nworld!", saved=True), app_key="editor", identity="E1", key_window_id=31)
    check("axtree_editor_diff.txt", frame_envelope(second.text) + "\n")


@pytest.mark.parametrize("name", ["writer", "chromium"])
def test_golden_real_app_states(name: str) -> None:
    """A model recorded from the real app (``tests/realapps/test_golden_models.py``) renders to
    the reviewed state text; with a second read the diff is empty of changes."""
    tree = read(GOLDEN / f"realapp_{name}.json")
    observer = Observer()
    key = tree.windows[0].window_id
    first = observer.observe(tree, app_key=name, identity="R1", key_window_id=key)
    check(f"axtree_{name}_full.txt", frame_envelope(first.text) + "\n")
    again = observer.observe(read(GOLDEN / f"realapp_{name}.json"), app_key=name, identity="R1", key_window_id=key)
    check(f"axtree_{name}_again.txt", frame_envelope(again.text) + "\n")
