"""AT-SPI roles, states, values and actions mapped onto the core's element model (Linux).

The core renders in the macOS vocabulary (``AXButton``, ``AXTextField``, ...), so each AT-SPI
role number maps to one AX role, and ``role_description`` keeps the AT-SPI role name ("push
button", "check box") so that the state text reads as the toolkit names things. Only shown
nodes (state SHOWING) become elements; hidden subtrees such as closed menus are left out.

The locator step of an element is its AT-SPI role number plus its object path: paths are the
toolkit's own object ids (stable while the object lives), so an element keeps its handle when
siblings are inserted before it, and a recreated object never inherits an old handle.

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

import re
from dataclasses import dataclass
from typing import Final

from deskhand.backends.linux._atspi import (
    EDITABLE_TEXT,
    TEXT_VALUE_ROLES,
    VALUE,
    Node,
    Snapshot,
)
from deskhand.core.axtree.model import Element, ValueType
from deskhand.core.geometry import Rect

#: The embedded-object character: where a child object (a link) sits in its parent's text.
OBJECT_CHAR: Final = "\ufffc"

#: AtspiRole numbers → their AT-SPI names (the ``role_description`` we show).
ROLE_NAMES: Final[dict[int, str]] = {
    1: "accelerator label",
    2: "alert",
    3: "animation",
    4: "arrow",
    5: "calendar",
    6: "canvas",
    7: "check box",
    8: "check menu item",
    9: "color chooser",
    10: "column header",
    11: "combo box",
    12: "date editor",
    13: "desktop icon",
    14: "desktop frame",
    15: "dial",
    16: "dialog",
    17: "directory pane",
    18: "drawing area",
    19: "file chooser",
    20: "filler",
    21: "focus traversable",
    22: "font chooser",
    23: "frame",
    24: "glass pane",
    25: "html container",
    26: "icon",
    27: "image",
    28: "internal frame",
    29: "label",
    30: "layered pane",
    31: "list",
    32: "list item",
    33: "menu",
    34: "menu bar",
    35: "menu item",
    36: "option pane",
    37: "page tab",
    38: "page tab list",
    39: "panel",
    40: "password text",
    41: "popup menu",
    42: "progress bar",
    43: "push button",
    44: "radio button",
    45: "radio menu item",
    46: "root pane",
    47: "row header",
    48: "scroll bar",
    49: "scroll pane",
    50: "separator",
    51: "slider",
    52: "spin button",
    53: "split pane",
    54: "status bar",
    55: "table",
    56: "table cell",
    57: "table column header",
    58: "table row header",
    59: "tearoff menu item",
    60: "terminal",
    61: "text",
    62: "toggle button",
    63: "tool bar",
    64: "tool tip",
    65: "tree",
    66: "tree table",
    67: "unknown",
    68: "viewport",
    69: "window",
    70: "extended",
    71: "header",
    72: "footer",
    73: "paragraph",
    74: "ruler",
    75: "application",
    76: "autocomplete",
    77: "editbar",
    78: "embedded",
    79: "entry",
    80: "chart",
    81: "caption",
    82: "document frame",
    83: "heading",
    84: "page",
    85: "section",
    86: "redundant object",
    87: "form",
    88: "link",
    89: "input method window",
    90: "table row",
    91: "tree item",
    92: "document spreadsheet",
    93: "document presentation",
    94: "document text",
    95: "document web",
    96: "document email",
    97: "comment",
    98: "list box",
    99: "grouping",
    100: "image map",
    101: "notification",
    102: "info bar",
    103: "level bar",
    104: "title bar",
    105: "block quote",
    106: "audio",
    107: "video",
    108: "definition",
    109: "article",
    110: "landmark",
    111: "log",
    112: "marquee",
    113: "math",
    114: "rating",
    115: "timer",
    116: "static",
    129: "push button menu",
}

_AX_ROLES: Final[dict[str, tuple[int, ...]]] = {
    "AXWindow": (2, 16, 23, 28, 69),
    "AXButton": (43, 129),
    "AXCheckBox": (7, 62),
    "AXRadioButton": (37, 44),
    "AXMenuItem": (8, 35, 45, 59),
    "AXMenuBar": (34,),
    "AXMenu": (41,),
    "AXTextField": (40, 52, 79),
    "AXStaticText": (1, 29, 73, 81, 116),
    "AXHeading": (83,),
    "AXList": (31, 98),
    "AXOutline": (65, 66),
    "AXTable": (55, 92),
    "AXRow": (32, 90, 91),
    "AXCell": (10, 47, 56, 57, 58),
    "AXScrollArea": (49,),
    "AXScrollBar": (48,),
    "AXSlider": (15, 51),
    "AXProgressIndicator": (42,),
    "AXLevelIndicator": (103,),
    "AXComboBox": (11,),
    "AXTabGroup": (38,),
    "AXToolbar": (63,),
    "AXImage": (26, 27),
    "AXLink": (88,),
    "AXWebArea": (95,),
    "AXHelpTag": (64,),
    "AXRuler": (74,),
    "AXSplitGroup": (53,),
    "AXUnknown": (50, 67, 86),
}
ROLE_TO_AX: Final[dict[int, str]] = {n: ax for ax, nums in _AX_ROLES.items() for n in nums}

# AtspiStateType bits.
CHECKED: Final = 1 << 4
EDITABLE: Final = 1 << 7
ENABLED: Final = 1 << 8
EXPANDED: Final = 1 << 10
FOCUSED: Final = 1 << 12
HORIZONTAL: Final = 1 << 14
MULTI_LINE: Final = 1 << 17
PRESSED: Final = 1 << 20
SELECTED: Final = 1 << 23
SENSITIVE: Final = 1 << 24
VERTICAL: Final = 1 << 29
READ_ONLY: Final = 1 << 43

_BOOLEAN_ROLES: Final = frozenset({7, 8, 44, 45, 62})
_FLOAT_SETTABLE_ROLES: Final = frozenset({15, 48, 51, 52})
_ROW_CHILD_ROLES: Final = frozenset({32, 90, 91})
ROLE_FILLER: Final = 20
ROLE_STATIC: Final = 116
ROLE_SCROLL_BAR: Final = 48
ROLE_SCROLL_PANE: Final = 49
#: Page-scroll actions a scroll area gets per axis of its shown scroll bars (contract 6.8 names).
VERTICAL_PAGE_ACTIONS: Final = ("AXScrollUpByPage", "AXScrollDownByPage")
HORIZONTAL_PAGE_ACTIONS: Final = ("AXScrollLeftByPage", "AXScrollRightByPage")

#: AT-SPI action names → the contract's AX names (the renderer hides AXPress and friends).
ACTION_NAMES: Final[dict[str, str]] = {
    "click": "AXPress",
    "press": "AXPress",
    "activate": "AXPress",
    "toggle": "AXPress",
    "jump": "AXPress",
    "open": "AXPress",
    "select": "AXPick",
    "showmenu": "AXShowMenu",
    "show menu": "AXShowMenu",
    "menu": "AXShowMenu",
    "increase": "AXIncrement",
    "decrease": "AXDecrement",
    "expand or contract": "AXExpandOrContract",
}
#: Actions that only move the keyboard focus: not shown as secondary actions.
_FOCUS_ACTIONS: Final = frozenset({"setfocus", "set focus", "focus", "grab focus"})
#: GTK 4 lists every widget's built-in action groups as actions ("clipboard.copy" on each label):
#: the groups that every widget of a kind has are not shown (an app's own, "win."/"app.", are).
_GTK4_WIDGET_ACTION_GROUPS: Final = frozenset(
    {"clipboard", "selection", "link", "menu", "text", "misc", "default", "window", "context-menu", "gesture"}
)
#: GTK 4 names a widget that has no accessible name after its type ("GtkButton", "AdwGizmo").
_GTK_TYPE_NAME: Final = re.compile(r"(Gtk|Adw|Gdk|Gsk)[A-Z][A-Za-z]*")


@dataclass(frozen=True, slots=True)
class AtspiRef:
    """What an action needs to find an element again: its bus, path, role and native actions."""

    bus: str
    path: str
    role: int
    interfaces: frozenset[str]
    #: The native action names in AT-SPI index order (``Action.DoAction(index)``).
    actions: tuple[str, ...]


def element_tree(
    snap: Snapshot, window_path: str, mapped: dict[str, Element] | None = None
) -> tuple[Element | None, Element | None]:
    """Map one window's shown subtree; returns (root element, focused element or None).

    An object listed under two parents (LibreOffice's root pane) maps to one ``Element``, the
    same object under both: the core renders an element once. ``mapped`` carries that memo
    across the windows of one snapshot."""
    focused: list[Element] = []
    root = _map(snap, window_path, focused, {} if mapped is None else mapped)
    return root, (focused[0] if focused else None)


def _map(snap: Snapshot, path: str, focused: list[Element], mapped: dict[str, Element]) -> Element | None:
    known = mapped.get(path)
    if known is not None:
        return known
    node = snap.nodes.get(path)
    if node is None or not node.showing:
        return None
    parent = snap.nodes.get(node.parent)
    axes = scroll_axes(snap, node)
    el = element(node, snap.bus, parent_role=parent.role if parent else None, scroll_axes=axes)
    mapped[path] = el
    if node.states & FOCUSED:
        focused.append(el)
    for child in node.children:
        kid = _map(snap, child, focused, mapped)
        if kid is not None:
            el.children.append(kid)
    if node.text is not None and OBJECT_CHAR in node.text and isinstance(el.value, str) and el.role == "AXStaticText":
        # Inline static text (Chromium's "static" children) is in the text itself, not embedded.
        embedded = [n for c in node.children if (n := snap.nodes.get(c)) is None or n.role != ROLE_STATIC]
        el.value = _with_embedded(node.text, embedded) or None
    rows = [c for c in node.children if (n := snap.nodes.get(c)) is not None and n.role in _ROW_CHILD_ROLES]
    shown_rows = sum(1 for c in el.children if c.role == "AXRow")
    total = len(rows)
    if rows and node.child_count > len(node.children):  # only the visible part was read
        total = node.child_count - (len(node.children) - len(rows))
    if el.role in ("AXList", "AXOutline", "AXTable") and total > shown_rows:
        el.row_count = total
    return el


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
    el.ref = AtspiRef(bus, node.path, node.role, node.interfaces, node.actions)
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
    if node.role == 61 or node.role in (82, 94):  # text, document frame, document text
        return "AXTextArea" if node.states & MULTI_LINE else "AXTextField"
    if node.role == 33:  # a menu: a menu bar item at the top, a submenu item below
        return "AXMenuBarItem" if parent_role == 34 else "AXMenuItem"
    if node.role == 11 and not node.states & EDITABLE:
        return "AXPopUpButton"
    return ROLE_TO_AX.get(node.role, "AXGroup")


def _value(node: Node, ax: str) -> str | float | bool | None:
    if node.role in _BOOLEAN_ROLES:
        return bool(node.states & (CHECKED | PRESSED))
    if node.role == 37:  # page tab: on when selected
        return bool(node.states & SELECTED)
    if node.role == 40:  # password text: never shown
        return None
    numeric = node.value is not None and VALUE in node.interfaces and node.role != 79
    if node.text is not None and ax in ("AXTextField", "AXTextArea", "AXPopUpButton", "AXComboBox") and not numeric:
        return node.text
    text = _content(node)
    if text is not None:
        return text
    return node.value if numeric else None


def _with_embedded(text: str, children: list[Node | None]) -> str:
    """``text`` with each embedded-object character replaced by that child's name or text (a
    link inside a paragraph), in order."""
    parts = text.split(OBJECT_CHAR)
    out = parts[0]
    for i, part in enumerate(parts[1:]):
        child = children[i] if i < len(children) else None
        inner = (child.name or (child.text or "").replace(OBJECT_CHAR, "")) if child is not None else ""
        out += inner + part
    return out.strip()


def _content(node: Node) -> str | None:
    """The text of a paragraph, heading, cell or label (Text interface) when it says more than
    its name: embedded-object characters (U+FFFC, a child such as a link) are dropped."""
    if node.text is None or node.role not in TEXT_VALUE_ROLES or node.role == 52:
        return None
    text = node.text.replace(OBJECT_CHAR, "").strip()
    return text if text and text != node.name.strip() else None


def _settable(node: Node) -> ValueType | None:
    if EDITABLE_TEXT in node.interfaces and node.states & EDITABLE and not node.states & READ_ONLY:
        return "string"
    if VALUE in node.interfaces and node.role in _FLOAT_SETTABLE_ROLES and not node.states & READ_ONLY:
        return "float"
    return None


def _name(name: str) -> str | None:
    """The accessible name, without GTK 4's fallback to the widget's type name."""
    if not name or _GTK_TYPE_NAME.fullmatch(name):
        return None
    return name


def _actions(names: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for name in names:
        key = name.strip().lower()
        if not key or key in _FOCUS_ACTIONS or (key.split(".", 1)[0] in _GTK4_WIDGET_ACTION_GROUPS and "." in key):
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
