"""The walk that turns an observed ``AppTree`` into numbered-later lines, and the text around them.

``walk`` visits windows then the menu bar, elides featureless wrappers, inlines row cells (a
grid's row as one line, ``rows.py``),
suppresses link children, renders an element listed under two parents once (at its first place),
leaves out blank cells of partly read containers and labels repeating their control's title,
and stops at depth 20 or 1500 emitted lines (``truncated``). Its
nodes carry their locator key; ``observer.py`` gives them handles and builds the text with
``full_text`` (native ``axText``) and ``frame_envelope`` (section 3.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from deskhand.core.axtree.line import describe
from deskhand.core.axtree.model import AppTree, Element
from deskhand.core.axtree.rows import actionable
from deskhand.core.axtree.text import display_window_title, sanitize

MAX_DEPTH: Final = 20
MAX_NODES: Final = 1500

ENVELOPE_HEADER: Final = "Computer Use state (CUA App Version: 1)"

#: A locator key: the chain of locator steps from the root. None marks a row of an
#: unverifiable window, which never inherits an id.
LocatorKey = tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Node:
    """One emitted line before it has an id."""

    key: LocatorKey
    depth: int
    suffix: str
    #: The element behind the line (a row for its synthetic ``text`` lines).
    element: Element


@dataclass(slots=True)
class Walk:
    """The result of walking one ``AppTree``."""

    nodes: list[Node] = field(default_factory=list)
    truncated: bool = False
    #: Index into ``nodes`` of the focused element and its suffix without secondary actions.
    focus: tuple[int, str] | None = None


def walk(tree: AppTree) -> Walk:
    """Walk every window, then the menu bar, into ``Walk.nodes`` in document order."""
    walker = _Walker(tree.focused or _first_focused(tree))
    for window in tree.windows:
        prefix: LocatorKey = None
        if window.window_id != 0:
            prefix = (f"window:{window.window_id}",)
        elif window.locator is not None:
            prefix = (f"window:{window.locator}",)
        walker.visit(window.root, prefix, 0, depth=0, in_web_area=False, ancestors=frozenset())
        if walker.result.truncated:
            break
    if tree.menu_bar is not None and not walker.result.truncated:
        walker.visit(tree.menu_bar, ("menubar",), 0, depth=0, in_web_area=False, ancestors=frozenset())
    walker.result.truncated = walker.result.truncated or tree.truncated
    return walker.result


def focused_element(tree: AppTree) -> Element | None:
    """The focused element: ``AppTree.focused``, else the first element flagged ``focused``."""
    return tree.focused or _first_focused(tree)


def key_window_title(tree: AppTree, key_window_id: int | None) -> str:
    """The display title of the key window (the first window when the id is unknown)."""
    window = next((w for w in tree.windows if w.window_id == key_window_id), None)
    if window is None and tree.windows:
        window = tree.windows[0]
    return sanitize(display_window_title(window.title if window else None, tree.app_name))


def context_tail(focus_line: str | None, selected_text: str | None) -> list[str]:
    """The blank line and then ``Selected text: [..]`` or the focused-element line, or nothing."""
    if selected_text:
        return ["", f"Selected text: [{sanitize(selected_text)}]"]
    if focus_line is not None:
        return ["", f"The focused UI element is {focus_line}."]
    return []


def full_text(tree: AppTree, window_title: str, lines: Sequence[str], tail: Sequence[str]) -> str:
    """``App=``, ``Window:``, the tree lines and the context tail (the native full ``axText``)."""
    head = [
        f"App={sanitize(tree.app_label)} (pid {tree.pid})",
        f'Window: "{window_title}", App: {sanitize(tree.app_name)}.',
    ]
    return "\n".join([*head, *lines, *tail])


def frame_envelope(ax_text: str, app_instructions: str | None = None) -> str:
    """Frame ``axText`` for the model: header, optional app instructions, ``<app_state>`` block."""
    parts = [ENVELOPE_HEADER]
    if app_instructions is not None:
        parts += ["<app_specific_instructions>", app_instructions, "</app_specific_instructions>"]
    parts += ["<app_state>", ax_text.rstrip(), "</app_state>"]
    return "\n".join(parts)


def _first_focused(tree: AppTree) -> Element | None:
    roots = [w.root for w in tree.windows] + ([tree.menu_bar] if tree.menu_bar is not None else [])
    stack = list(reversed(roots))
    seen: set[int] = set()
    while stack:
        element = stack.pop()
        if id(element) in seen:
            continue
        seen.add(id(element))
        if element.focused:
            return element
        stack.extend(reversed(element.children))
    return None


class _Walker:
    def __init__(self, focused: Element | None) -> None:
        self.focused = focused
        self.result = Walk()
        #: Elements already visited: one listed under two parents is rendered at its first place.
        self.rendered: set[int] = set()

    def visit(
        self,
        element: Element,
        parent_key: LocatorKey,
        index: int,
        *,
        depth: int,
        in_web_area: bool,
        ancestors: frozenset[int],
        owner: Element | None = None,
    ) -> None:
        """``owner``: the nearest rendered ancestor (elided wrappers skipped)."""
        result = self.result
        if len(result.nodes) >= MAX_NODES or depth >= MAX_DEPTH:
            result.truncated = True
            return
        if id(element) in ancestors or id(element) in self.rendered:
            return  # a cycle in the backend's tree, or an element listed under two parents: once
        self.rendered.add(id(element))
        if owner is not None and _echo_label(owner, element):
            return
        key = _child_key(parent_key, element, index)
        line = describe(element, in_web_area=in_web_area)
        inner = ancestors | {id(element)}
        child_web = in_web_area or element.role == "AXWebArea"
        if line.elide:
            self._children(element, key, depth=depth, in_web_area=child_web, ancestors=inner, owner=owner)
            return
        result.nodes.append(Node(key, depth, line.suffix, element))
        if element is self.focused and result.focus is None:
            result.focus = (len(result.nodes) - 1, line.focus_suffix)
        if element.role == "AXRow" and not element.selected:
            if line.compact:
                for i, inner_element in enumerate(actionable(element)):
                    self.visit(
                        inner_element, key, i, depth=depth + 1, in_web_area=child_web, ancestors=inner, owner=element
                    )
            else:
                self._row_texts(element, key, line.inline_texts, depth + 1)
            return
        if not line.suppress_children:
            self._children(element, key, depth=depth + 1, in_web_area=child_web, ancestors=inner, owner=element)

    def _children(
        self,
        element: Element,
        key: LocatorKey,
        *,
        depth: int,
        in_web_area: bool,
        ancestors: frozenset[int],
        owner: Element | None,
    ) -> None:
        cells: set[str] = set()  # the names of the cells listed so far of a partly read container
        for i, child in enumerate(element.children):
            if element.role == "AXMenuBar" and child.title == "Apple":
                continue
            if element.partial is not None and (_blank_cell(child) or _cell_again(child, cells)):
                continue
            self.visit(child, key, i, depth=depth, in_web_area=in_web_area, ancestors=ancestors, owner=owner)
            if self.result.truncated:
                return

    def _row_texts(self, row: Element, key: LocatorKey, texts: Sequence[str], depth: int) -> None:
        for i, text in enumerate(texts):
            if len(self.result.nodes) >= MAX_NODES or depth >= MAX_DEPTH:
                self.result.truncated = True
                return
            # Each inlined cell text gets its own step under the row, so it can keep its id.
            text_key = None if key is None else (*key, f"#text{i}")
            self.result.nodes.append(Node(text_key, depth, f" text {text}", row))


def _echo_label(parent: Element, child: Element) -> bool:
    """A label inside a control or a paragraph that only repeats part of its title or text (GTK 4
    buttons hold their label as a child, Chromium a paragraph's text runs): the parent's line
    already says it."""
    if child.role != "AXStaticText" or child.children or child.value not in (None, "") or not child.title:
        return False
    said = [s for s in (parent.title, parent.value if isinstance(parent.value, str) else None) if s]
    return any(child.title.strip() in s for s in said) and (parent.role != "AXStaticText" or parent.value is not None)


def _blank_cell(element: Element) -> bool:
    """A cell of a partly read container (a spreadsheet's visible range) with nothing in it:
    not listed, since a sheet shows hundreds of them (the container's line says which part
    was read). A focused or selected cell is listed: it is where typing goes."""
    return (
        element.role == "AXCell"
        and element.value in (None, "")
        and not element.children
        and not element.focused
        and not element.selected
    )


def _cell_again(element: Element, seen: set[str]) -> bool:
    """A cell of a partly read container listed already under the same name (its coordinate):
    the container's selected cells are read after its visible range, and LibreOffice Calc hands
    out a new accessible object for a cell each time it is asked, so a selected cell on screen
    came twice. Records the name of one listed for the first time."""
    if element.role != "AXCell" or not element.title:
        return False
    if element.title in seen:
        return True
    seen.add(element.title)
    return False


def _child_key(parent_key: LocatorKey, element: Element, index: int) -> LocatorKey:
    if parent_key is None:
        return None
    return (*parent_key, element.locator or f"{element.role}#{index}")
