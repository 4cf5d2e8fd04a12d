"""What a read of an app's AT-SPI tree returns: ``Node`` and ``Snapshot``, the state bits and
roles the reader acts on, and the pure helpers that turn replies into node fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from deskhand.backends.linux.atspi.calls import ACTION, EDITABLE_TEXT, Failed
from deskhand.backends.linux.atspi.enums import Role, role_set
from deskhand.backends.linux.atspi.roles import FOCUSED, SELECTED, SHOWING, VISIBLE

#: A walk stops adding nodes beyond this many (the state text shows at most 1500 lines).
MAX_WALK_NODES: Final = 5000
#: Not an AT-SPI state: SHOWING was inferred from VISIBLE (GTK 4), until the extents say the
#: object has no size (a collapsed revealer's content, a hidden tab bar).
STATE_SHOWN_BY_VISIBLE: Final = 1 << 62

#: The embedded-object character: where a child object (a link) sits in its parent's text.
OBJECT_CHAR: Final = "\ufffc"
#: Toolkits (``Application.ToolkitName``) that follow the hypertext model.
HYPERTEXT_TOOLKITS: Final = frozenset({"chromium", "gecko"})

#: Document frame, document text, document web: their visible children are found down the middle.
DOCUMENT_ROLES: Final = role_set(Role.DOCUMENT_FRAME, Role.DOCUMENT_TEXT, Role.DOCUMENT_WEB)
#: Interfaces of a cell read by ``atspi.visible`` that the details round still reads.
CELL_LEFT_TO_READ: Final = frozenset({ACTION, EDITABLE_TEXT})
#: Roles whose text content is read (entries, text areas, spin buttons, documents, paragraphs,
#: headings, captions, table cells, list items, sections and static text of web content, and the
#: pages of a document viewer: Evince's and Okular's carry the page's text).
TEXT_VALUE_ROLES: Final = role_set(
    Role.PAGE,
    Role.LABEL,
    Role.LIST_ITEM,
    Role.SPIN_BUTTON,
    Role.TABLE_CELL,
    Role.TERMINAL,
    Role.TEXT,
    Role.PARAGRAPH,
    Role.ENTRY,
    Role.CAPTION,
    Role.DOCUMENT_FRAME,
    Role.HEADING,
    Role.SECTION,
    Role.DOCUMENT_TEXT,
    Role.STATIC,
)


def reads_text(node: Node) -> bool:
    """Whether the node's text is read as its value: a role of ``TEXT_VALUE_ROLES``, or a
    document with no children (a web document without child objects holds its content as its
    own text: Thunderbird's message body, a contenteditable page of text alone)."""
    return node.role in TEXT_VALUE_ROLES or (
        node.role in DOCUMENT_ROLES and not node.children and node.child_count == 0
    )


#: Table cell, column header, row header.
CELL_ROLES: Final = role_set(Role.TABLE_CELL, Role.COLUMN_HEADER, Role.ROW_HEADER)


@dataclass(slots=True)
class Node:
    """One accessible object as read from an app (native AT-SPI values, not yet mapped)."""

    path: str
    role: int
    name: str
    description: str
    states: int
    interfaces: frozenset[str]
    parent: str = ""
    index: int = -1
    children: list[str] = field(default_factory=list)
    #: The child count the app reports (the cache may hold fewer children than this).
    child_count: int = 0
    accessible_id: str = ""
    extents: tuple[int, int, int, int] | None = None
    value: float | None = None  # Value.CurrentValue
    text: str | None = None
    selection: tuple[int, int] | None = None
    actions: tuple[str, ...] = ()
    #: Only the visible part of the children was read (a container that manages its
    #: descendants): which part, e.g. ``rows 1-20, columns 1-12 of 1048576 x 16384``, or "".
    partial: str | None = None
    #: The name the object itself reports when ``name`` was taken from elsewhere (a container
    #: cell's parts), else None: what the pre-action check reads again.
    own_name: str | None = None

    @property
    def showing(self) -> bool:
        return bool(self.states & SHOWING)


@dataclass(slots=True)
class Snapshot:
    """What one bounded read of an app's tree returned."""

    bus: str
    nodes: dict[str, Node]
    #: Paths of the app root's children (the top-level windows), in order.
    windows: list[str]
    source: str  # "cache" or "walk"
    timed_out: bool = False
    #: The read stopped at ``MAX_READ_CALLS``.
    capped: bool = False
    elapsed_s: float = 0.0
    #: The app reports bounds relative to its window, whatever coordinate type is asked (GTK 4).
    window_relative: bool = False
    #: ...relative to its surface (a Wayland client): a root window placed off (0, 0) there is
    #: inset by client-side decorations (Gecko's shadow margin), not on the screen.
    surface_relative: bool = False
    #: Calls the read sent (what the app answered; the benchmarks report it).
    calls: int = 0


def shown(snap: Snapshot) -> Iterable[Node]:
    """Nodes reachable from the windows through SHOWING nodes only."""
    stack = list(reversed(snap.windows))
    while stack:
        node = snap.nodes.get(stack.pop())
        if node is None or not node.showing:
            continue
        yield node
        stack.extend(reversed(node.children))


def apply_reply(node: Node, what: str, reply: tuple[Any, ...]) -> None:
    if what == "extents":
        x, y, w, h = reply[0]
        node.extents = (int(x), int(y), int(w), int(h))
    elif what == "value":
        node.value = float(variant(reply[0], 0.0))
    elif what == "text":
        node.text = str(reply[0])
    elif what == "selection":
        start, end = int(reply[0]), int(reply[1])
        node.selection = (start, end) if end > start else None
    elif what == "actions":
        node.actions = tuple(str(a[0]) for a in reply[0])


def states_of(words: Sequence[int], *, visible_is_shown: bool = False) -> int:
    """The state bits of an ``au`` reply; with ``visible_is_shown`` (GTK 4, which sets VISIBLE
    but not SHOWING below its windows) a VISIBLE object counts as SHOWING."""
    states = int(words[0]) | (int(words[1]) << 32 if len(words) > 1 else 0)
    if visible_is_shown and states & VISIBLE and not states & SHOWING:
        states |= SHOWING | STATE_SHOWN_BY_VISIBLE
    return states


def has_size(extents: tuple[int, int, int, int] | None) -> bool:
    return extents is not None and extents[2] > 0 and extents[3] > 0


def variant(v: Any, default: Any) -> Any:
    return v[1] if isinstance(v, tuple) and len(v) == 2 else default


def prop_str(reply: Any) -> str:
    """The string of a ``Properties.Get`` reply, or "" when it failed."""
    return "" if isinstance(reply, Failed) else str(variant(reply[0], ""))


def inline_cell(node: Node) -> bool:
    """A table cell with nothing in it but its text (in a hypertext app its text runs were not
    read: ``Walker.inline_runs``), neither focused nor selected: its row's line holds its text."""
    return node.role in CELL_ROLES and not node.children and not node.states & (FOCUSED | SELECTED)
