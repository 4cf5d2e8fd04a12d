"""AT-SPI roles, states, values and actions mapped onto the core's element model (Linux).

The core renders in the macOS vocabulary (``AXButton``, ``AXTextField``, ...), so each AT-SPI
role number maps to one AX role (``atspi.roles``), and ``role_description`` keeps the AT-SPI role name
("push button", "check box") so that the state text reads as the toolkit names things. Only shown
nodes (state SHOWING) become elements; hidden subtrees such as closed menus are left out.

The locator step of an element is its AT-SPI role number plus its object path: paths are the
toolkit's own object ids (stable while the object lives), so an element keeps its handle when
siblings are inserted before it, and a recreated object never inherits an old handle. A cell of
a container read only by its visible part (a spreadsheet) is the exception: the app creates its
object anew for each read (LibreOffice Calc gives cell A1 a new path every time), so its step is
its role and name ("A1"), and the same cell keeps its handle across reads.

Scroll areas. AT-SPI scroll panes expose no page actions, so a scroll area that shows a scroll
bar gets the contract's page-scroll actions (``AXScrollUpByPage``/``AXScrollDownByPage`` for a
vertical bar, ``AXScrollLeftByPage``/``AXScrollRightByPage`` for a horizontal one; the actor
performs them by moving that bar one page). A scroll area is a scroll pane (GTK) or a filler
holding a viewport next to its scroll bars, each bar directly or in a filler of its own (Qt's
``QAbstractScrollArea``, which has no AT-SPI role of its own). The Qt filler is mapped as the
scroll pane it is: it reads "scroll pane" like GTK's, and the contract's rule for scroll areas
(one with vertical page actions shows no horizontal ones) applies to both toolkits alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from deskhand.backends.linux.atspi import visible
from deskhand.backends.linux.atspi.connection import (
    EDITABLE_TEXT,
    VALUE,
    Node,
    Snapshot,
)
from deskhand.backends.linux.atspi.enums import Role, role_set
from deskhand.backends.linux.atspi.nodes import OBJECT_CHAR, reads_text
from deskhand.backends.linux.atspi.roles import (
    ACTION_NAMES,
    BOOLEAN_ROLES,
    CHECKED,
    CONTROL_ROLES,
    EDITABLE,
    ENABLED,
    EXPANDED,
    FLOAT_SETTABLE_ROLES,
    FOCUS_ACTIONS,
    FOCUSABLE,
    FOCUSED,
    GTK4_WIDGET_ACTION_GROUPS,
    GTK_TYPE_NAME,
    HORIZONTAL,
    HORIZONTAL_PAGE_ACTIONS,
    MULTI_LINE,
    PRESSED,
    READ_ONLY,
    ROLE_COMBO_BOX,
    ROLE_ENTRY,
    ROLE_FILLER,
    ROLE_MENU,
    ROLE_MENU_BAR,
    ROLE_NAMES,
    ROLE_PAGE_TAB,
    ROLE_PASSWORD_TEXT,
    ROLE_SCROLL_BAR,
    ROLE_SCROLL_PANE,
    ROLE_SPIN_BUTTON,
    ROLE_STATIC,
    ROLE_TO_AX,
    ROW_CHILD_ROLES,
    SELECTED,
    SENSITIVE,
    TEXT_AREA_ROLES,
    TEXT_ENTRY_ROLES,
    VERTICAL,
    VERTICAL_PAGE_ACTIONS,
)
from deskhand.core.axtree.model import Element, ValueType
from deskhand.core.geometry import Rect

_KEYED_STATES = EDITABLE | FOCUSABLE
#: Page tab, list item, table cell, table row, tree item: Qt marks the current item of every
#: view FOCUSED, whether or not its view has the keyboard focus (``_focus_rank``).
_ITEM_ROLES = role_set(Role.PAGE_TAB, Role.LIST_ITEM, Role.TABLE_CELL, Role.TABLE_ROW, Role.TREE_ITEM)


@dataclass(frozen=True, slots=True)
class AtspiRef:
    """What an action needs to find an element again: its bus, path, role and native actions."""

    bus: str
    path: str
    role: int
    interfaces: frozenset[str]
    #: The native action names in AT-SPI index order (``Action.DoAction(index)``).
    actions: tuple[str, ...]
    #: The name the object itself reported when observed: the pre-action check compares it with
    #: the name read again (the element's title may be its parts' texts, or None for GTK 4's
    #: fallback to the widget's type name).
    name: str = ""


def element_tree(
    snap: Snapshot, window_path: str, mapped: dict[str, Element] | None = None
) -> tuple[Element | None, Element | None]:
    """Map one window's shown subtree; returns (root element, focused element or None).

    An object listed under two parents (LibreOffice's root pane) maps to one ``Element``, the
    same object under both: the core renders an element once. ``mapped`` carries that memo
    across the windows of one snapshot."""
    focused: list[tuple[Element, int]] = []
    root = _map(snap, window_path, focused, {} if mapped is None else mapped)
    return root, min(focused, key=_focus_rank)[0] if focused else None


def _focus_rank(claim: tuple[Element, int]) -> int:
    """Which of several FOCUSED objects is the focus, lowest first (ties: the first in the tree).
    Qt marks FOCUSED every widget whose focus proxy has the focus and the current item of every
    view: Kate's view space, its status bar buttons, its document tab and file tree item all
    claim it beside the editor. A text that takes typing is the focus, then a control, then an
    item, then a container (a filler or panel, shown as a group)."""
    el, role = claim
    if el.settable == "string":
        return 0
    if role in _ITEM_ROLES:
        return 2
    return 3 if el.role in ("AXGroup", "AXWindow", "AXSplitGroup", "AXScrollArea") else 1


def _map(snap: Snapshot, path: str, focused: list[tuple[Element, int]], mapped: dict[str, Element]) -> Element | None:
    known = mapped.get(path)
    if known is not None:
        return known
    node = snap.nodes.get(path)
    if node is None or not node.showing:
        return None
    parent = snap.nodes.get(node.parent)
    axes = scroll_axes(snap, node)
    el = element(node, snap.bus, parent_role=parent.role if parent else None, scroll_axes=axes)
    if node.name and parent is not None and _read_by_position(parent):
        el.locator = f"{node.role}#{node.name}"
    mapped[path] = el
    if node.states & FOCUSED:
        focused.append((el, node.role))
    for child in node.children:
        kid = _map(snap, child, focused, mapped)
        if kid is not None:
            el.children.append(kid)
    if node.text is not None and OBJECT_CHAR in node.text and isinstance(el.value, str) and el.role == "AXStaticText":
        # Inline static text (Chromium's "static" children) is in the text itself, not embedded.
        embedded = [n for c in node.children if (n := snap.nodes.get(c)) is None or n.role != ROLE_STATIC]
        el.value = _with_embedded(node.text, embedded) or None
    rows = [c for c in node.children if (n := snap.nodes.get(c)) is not None and n.role in ROW_CHILD_ROLES]
    shown_rows = sum(1 for c in el.children if c.role == "AXRow")
    total = len(rows)
    if rows and node.child_count > len(node.children):  # only the visible part was read
        total = node.child_count - (len(node.children) - len(rows))
    if el.role in ("AXList", "AXOutline", "AXTable") and total > shown_rows:
        el.row_count = total
        if el.role == "AXTable" and el.partial is None and shown_rows:
            # A web table scrolled in part: which of its rows are on screen.
            shown = [i for i, c in enumerate(rows) if (n := snap.nodes.get(c)) is not None and n.showing]
            el.partial = f"rows {shown[0] + 1}-{shown[-1] + 1} of {total}"
    return el


def _read_by_position(container: Node) -> bool:
    """Whether ``container``'s children were read through its visible part (``atspi.visible``)."""
    return container.partial is not None or visible.must_not_enumerate(container.states, container.child_count)


def element(
    node: Node, bus: str, *, parent_role: int | None = None, scroll_axes: tuple[bool, bool] | None = None
) -> Element:
    """One element from one node (children are added by the caller).

    ``scroll_axes``: (vertical, horizontal) scroll bars shown when the node is a scroll area
    (``scroll_axes()``); None otherwise.
    """
    ax = "AXScrollArea" if scroll_axes is not None else _ax_role(node, parent_role)
    scroll_pane = scroll_axes is not None or node.role == ROLE_SCROLL_PANE
    el = Element(
        role=ax,
        role_description=ROLE_NAMES[ROLE_SCROLL_PANE] if scroll_pane else ROLE_NAMES.get(node.role, "unknown"),
        title=_name(node.name),
        description=node.description or None,
        identifier=node.accessible_id or None,
        # GTK page tabs drop SENSITIVE while enabled; a disabled widget clears both bits.
        enabled=bool(node.states & (ENABLED | SENSITIVE)),
        focused=bool(node.states & FOCUSED),
        expanded=bool(node.states & EXPANDED),
        selected=ax in ("AXRow", "AXCell") and bool(node.states & SELECTED),
        frame=_frame(node.extents),
        locator=f"{node.role}@{node.path.rsplit('/', 1)[-1]}",
        partial=node.partial,
    )
    el.value = _value(node, ax)
    el.settable = _settable(node)
    el.actions = _actions(node.actions)
    if scroll_axes is not None:
        vertical, horizontal = scroll_axes
        pages = (VERTICAL_PAGE_ACTIONS if vertical else ()) + (HORIZONTAL_PAGE_ACTIONS if horizontal else ())
        el.actions += tuple(a for a in pages if a not in el.actions)
    if node.selection is not None and node.text is not None:
        start, end = node.selection
        el.selected_text = node.text[start:end]
    own = node.name if node.own_name is None else node.own_name
    el.ref = AtspiRef(bus, node.path, node.role, node.interfaces, node.actions, own)
    return el


def scroll_axes(snap: Snapshot, node: Node) -> tuple[bool, bool] | None:
    """(vertical, horizontal): which scroll bars a scroll area shows; None when it is none.

    A scroll pane always is one. A filler is one when it holds a shown scroll bar (directly or in
    a filler of its own) and a viewport (any other shown child): Qt's bar container, a filler
    with only its bar, is not.
    """
    if node.role not in (ROLE_SCROLL_PANE, ROLE_FILLER):
        return None
    bars: list[Node] = []
    viewport = False
    for child in _shown(snap, node.children):
        if child.role == ROLE_SCROLL_BAR:
            bars.append(child)
            continue
        inner = (
            [g for g in _shown(snap, child.children) if g.role == ROLE_SCROLL_BAR] if child.role == ROLE_FILLER else []
        )
        if inner:
            bars.extend(inner)
        else:
            viewport = True
    if node.role == ROLE_FILLER and not (bars and viewport):
        return None
    vertical = any(_bar_is_vertical(b) for b in bars)
    horizontal = any(not _bar_is_vertical(b) for b in bars)
    return vertical, horizontal


def _shown(snap: Snapshot, paths: list[str]) -> list[Node]:
    return [n for p in paths if (n := snap.nodes.get(p)) is not None and n.showing]


def _bar_is_vertical(bar: Node) -> bool:
    """The bar's orientation state; without one, taller than wide."""
    if bar.states & (VERTICAL | HORIZONTAL):
        return bool(bar.states & VERTICAL)
    return bar.extents is not None and bar.extents[3] > bar.extents[2]


def _ax_role(node: Node, parent_role: int | None) -> str:
    if node.role in TEXT_AREA_ROLES:
        return "AXTextArea" if node.states & MULTI_LINE else "AXTextField"
    if node.role == ROLE_MENU:  # a menu bar item at the top, a submenu item below
        return "AXMenuBarItem" if parent_role == ROLE_MENU_BAR else "AXMenuItem"
    if node.role == ROLE_COMBO_BOX and not node.states & EDITABLE:
        return "AXPopUpButton"
    return ROLE_TO_AX.get(node.role, "AXGroup")


def _value(node: Node, ax: str) -> str | float | bool | None:
    if node.role in BOOLEAN_ROLES:
        return bool(node.states & (CHECKED | PRESSED))
    if node.role == ROLE_PAGE_TAB:  # on when selected
        return bool(node.states & SELECTED)
    if node.role == ROLE_PASSWORD_TEXT:  # never shown
        return None
    numeric = node.value is not None and VALUE in node.interfaces and node.role != ROLE_ENTRY
    if node.text is not None and ax in ("AXTextField", "AXTextArea", "AXPopUpButton", "AXComboBox") and not numeric:
        return node.text
    text = _content(node)
    if text is not None:
        return text
    return node.value if numeric else None


def _with_embedded(text: str, children: list[Node | None]) -> str:
    """``text`` with each embedded-object character replaced by that child's name or text (a
    link inside a paragraph), in order. A control (a text field inside its label, a button) has
    a line of its own and its name is no text of the parent: its character is dropped (a label
    around an entry read "Name Name")."""
    parts = text.split(OBJECT_CHAR)
    out = parts[0]
    for i, part in enumerate(parts[1:]):
        child = children[i] if i < len(children) else None
        inner = ""
        if child is not None and child.role not in CONTROL_ROLES:
            inner = child.name or (child.text or "").replace(OBJECT_CHAR, "")
        out += inner + part
    return " ".join(out.split())


def _content(node: Node) -> str | None:
    """The text of a paragraph, heading, cell or label (Text interface) when it says more than
    its name: embedded-object characters (U+FFFC, a child such as a link) are dropped."""
    if node.text is None or not reads_text(node) or node.role == ROLE_SPIN_BUTTON:
        return None
    text = node.text.replace(OBJECT_CHAR, "").strip()
    return text if text and text != node.name.strip() else None


def _settable(node: Node) -> ValueType | None:
    if EDITABLE_TEXT in node.interfaces and node.states & EDITABLE and not node.states & READ_ONLY:
        return "string"
    if _keyed_entry(node):
        return "string"  # set by the keyboard (``act.values``): Chromium's entries have no EditableText
    if VALUE in node.interfaces and node.role in FLOAT_SETTABLE_ROLES and not node.states & READ_ONLY:
        return "float"
    return None


def _keyed_entry(node: Node) -> bool:
    """A focusable, editable text entry with a readable text (what ``act.values`` sets by keys)."""
    return (
        node.role in TEXT_ENTRY_ROLES
        and node.text is not None
        and node.states & _KEYED_STATES == _KEYED_STATES
        and not node.states & READ_ONLY
    )


def _name(name: str) -> str | None:
    """The accessible name, without GTK 4's fallback to the widget's type name."""
    if not name or GTK_TYPE_NAME.fullmatch(name):
        return None
    return name


def _actions(names: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for name in names:
        key = name.strip().lower()
        if not key or key in FOCUS_ACTIONS or (key.split(".", 1)[0] in GTK4_WIDGET_ACTION_GROUPS and "." in key):
            continue
        mapped = ACTION_NAMES.get(key, name)
        if mapped not in out:
            out.append(mapped)
    return tuple(out)


def _frame(extents: tuple[int, int, int, int] | None) -> Rect | None:
    if extents is None:
        return None
    x, y, w, h = extents
    if w <= 0 or h <= 0:
        return None
    return Rect(float(x), float(y), float(w), float(h))
