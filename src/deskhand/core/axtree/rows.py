"""Compact grid rows: one line a row with its cells' texts (a deskhand addition to section 3.2).

The contract inlines a non-selected row's cells as synthetic ``text`` lines, one a cell. A row of
a grid (``COMPACT_MIN_CELLS`` cells or more: an HTML table, a wide list view) renders instead as
one line, ``row a | b |  | d``: each cell's text (its own and its descendants' texts, without
repeats, joined by spaces), an empty cell kept as an empty column so that the columns line up,
trailing empty cells dropped. A 100 x 30 table then costs one line a row, not thirty.

What an agent acts on inside such a row keeps a line and a handle of its own under the row: a
cell or descendant that is focused, settable, a control (link, button, check box, text field,
pop-up, ...), or that has secondary actions. The row's own handle acts on the row.
"""

from __future__ import annotations

from typing import Final

from deskhand.core.axtree import text as t
from deskhand.core.axtree.model import Element

#: A row with at least this many cells renders compact (fewer keep the contract's text lines).
COMPACT_MIN_CELLS: Final = 4
#: Separator between a compact row's cells.
CELL_SEPARATOR: Final = " | "
#: Cell texts are collected this many levels below a row's cells.
CELL_TEXT_DEPTH: Final = 4
#: Roles an agent acts on: inside a compact row each keeps its own line and handle.
CONTROL_ROLES: Final = frozenset(
    {
        "AXLink",
        "AXButton",
        "AXCheckBox",
        "AXRadioButton",
        "AXTextField",
        "AXTextArea",
        "AXPopUpButton",
        "AXComboBox",
        "AXMenuButton",
        "AXSlider",
        "AXIncrementor",
        "AXDisclosureTriangle",
    }
)
_TEXT_ROLES: Final = frozenset({"AXStaticText", "AXTextField", "AXCell", "AXHeading"})


def compact_cells(row: Element) -> tuple[str, ...] | None:
    """The texts of ``row``'s cells when it renders compact (``COMPACT_MIN_CELLS`` cells or
    more), trailing empty cells dropped; None for a row that keeps the contract's text lines."""
    cells = [child for child in row.children if child.role == "AXCell"]
    if len(cells) < COMPACT_MIN_CELLS:
        return None
    texts = [" ".join(dict.fromkeys(_texts(cell, 0))) for cell in cells]
    while texts and not texts[-1]:
        texts.pop()
    return tuple(texts)


def compact_title(title: str | None, cells: tuple[str, ...]) -> str | None:
    """The head text of a compact row: its cells joined, after the row's own title when it has
    one that is not its first cell's text."""
    joined = CELL_SEPARATOR.join(cells)
    if title is None or (cells and title == cells[0]):
        return joined or title
    return f"{title}: {joined}" if joined else title


def actionable(row: Element) -> list[Element]:
    """The elements inside ``row`` that keep a line of their own, in document order: the
    outermost that is focused, settable, a control or has secondary actions (its own subtree
    renders below it as usual)."""
    out: list[Element] = []
    stack = list(reversed(row.children))
    seen: set[int] = set()
    while stack:
        element = stack.pop()
        if id(element) in seen:
            continue
        seen.add(id(element))
        if _acts(element):
            out.append(element)
            continue
        stack.extend(reversed(element.children))
    return out


def _acts(element: Element) -> bool:
    return (
        element.focused
        or element.settable is not None
        or element.role in CONTROL_ROLES
        or bool(t.visible_actions(element))
    )


def _texts(element: Element, depth: int) -> list[str]:
    if depth >= CELL_TEXT_DEPTH:
        return []
    out: list[str] = []
    text = None
    if element.role in _TEXT_ROLES:
        text = t.display_value(element, "") or t.sanitized_or_none(element.title)
    elif element.role in CONTROL_ROLES:
        text = t.sanitized_or_none(element.title) or t.display_value(element, "")
    if text:
        out.append(text)
    for child in element.children:
        out.extend(_texts(child, depth + 1))
    return out
