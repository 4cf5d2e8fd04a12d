"""The walk of an app's AT-SPI tree: breadth first, below shown nodes only (five pipelined calls
per node), for apps that export no cache (Qt) and for what a cache does not hold.

Hidden subtrees (not SHOWING) are not walked. Containers that manage their descendants (or
report an absurd child count) are never asked for their children: only their visible part is
read (``atspi.visible``). A menu that does not say whether it is open has its first item read first.

Apps of the hypertext model (Chromium, Gecko: every child that is not text is an embedded-object
character in its parent's text) are read with less: the text runs below a text node whose text
holds no such character are not read (``Walker.inline_runs``), an object's role is read once,
and a table cell whose text held all it had is read by its state and text alone
(``Walker._inline_cell``). A 100 x 30 web table costs 2,210 calls instead of 11,934.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from deskhand.backends.linux.atspi import visible
from deskhand.backends.linux.atspi.calls import ACCESSIBLE, PROPERTIES, ROOT_PATH, TEXT, TIMED_OUT, Call, Failed
from deskhand.backends.linux.atspi.nodes import (
    CELL_LEFT_TO_READ,
    CELL_ROLES,
    DOCUMENT_ROLES,
    MAX_WALK_NODES,
    OBJECT_CHAR,
    TEXT_VALUE_ROLES,
    Node,
    Snapshot,
    prop_str,
    states_of,
    variant,
)
from deskhand.backends.linux.atspi.read import Read
from deskhand.backends.linux.atspi.roles import EXPANDED, MANAGES_DESCENDANTS, ROLE_MENU, SHOWING, VISIBLE

#: The whole text of an object (``Call`` arguments after bus and path).
GET_TEXT: Final = (TEXT, "GetText", "ii", (0, -1))
#: Properties read per shown node in a walk.
#: (Not AccessibleId: Qt fills it with a synthesized object path, not an app identifier.)
WALK_PROPS: Final = ("Name", "Description")
#: Objects whose interfaces and last shown state are remembered (then the memo starts over).
MEMO_SIZE: Final = 100_000


#: First item of a menu that says nothing of being open -> (the menu, its other items).
Probes = dict[str, tuple[Node, list[tuple[str, str, int]]]]


def unlisted_menu(node: Node) -> bool:
    return node.role == ROLE_MENU and node.child_count < 0 and not node.states & MANAGES_DESCENDANTS


def probe_menu(node: Node, items: list[tuple[str, str, int]], probes: Probes) -> list[tuple[str, str, int]]:
    """The walk frontier for ``node``'s unread children. A menu that does not say it is open (GTK 3
    sets no EXPANDED on an open menu) gets only its first item read: if that is SHOWING the menu
    is open and the others follow (``next_frontier``), else it counts as closed, unread."""
    if node.role == ROLE_MENU and not node.states & EXPANDED and items:
        probes[items[0][0]] = (node, items[1:])
        return items[:1]
    return items


def next_frontier(
    frontier: list[tuple[str, str, int]], nodes: dict[str, Node], probes: Probes
) -> list[tuple[str, str, int]]:
    """The children to read after ``frontier`` (breadth first, shown nodes only, menus probed)."""
    nxt: list[tuple[str, str, int]] = []
    for path, _parent, _i in frontier:
        got = nodes.get(path)
        probe = probes.pop(path, None)
        if probe is not None:
            menu, rest = probe
            if got is not None and got.showing:
                nxt.extend(rest)  # the menu is open: its other items too
            else:
                menu.children = []  # a closed menu's items are hidden: not read at all
        if got is None or not got.showing:
            continue
        items = [(cp, path, i) for i, cp in enumerate(got.children) if cp not in nodes]
        nxt.extend(probe_menu(got, items, probes))
    return nxt


class Walker:
    """Breadth-first reads of the shown part of an app's tree, with what they remember between
    reads: each object's interfaces (fixed by its type), and whether it was shown in the last
    read (only to plan the calls of the next one; every value is read again)."""

    def __init__(self) -> None:
        #: Per object (bus, path): its interfaces, and whether it was shown in the last read.
        self.interfaces: dict[tuple[str, str], frozenset[str]] = {}
        self.seen_showing: dict[tuple[str, str], bool] = {}
        #: Per object of a hypertext app (Chromium, Gecko: an object path is a node's own id, never
        #: reused): its role, fixed for its life. A known object is not asked its role again, and
        #: a known cell not its description (a row's line shows its cells' texts only).
        self.roles: dict[tuple[str, str], int] = {}
        #: Cells of a hypertext app whose text held all they had in the last read (``_inline_cell``),
        #: with their name then (None: the name was the text).
        self.inline_cells: dict[tuple[str, str], str | None] = {}

    def walk(self, r: Read, plan: Sequence[Call] = ()) -> Snapshot:
        bus = r.bus
        [root_kids] = r.ask([Call(bus, ROOT_PATH, ACCESSIBLE, "GetChildren")], plan)
        if isinstance(root_kids, Failed):
            return Snapshot(bus, {}, [], "walk", timed_out=root_kids is TIMED_OUT)
        windows = [p for b, p in root_kids[0] if b == bus]
        snap = Snapshot(bus, {}, windows, "walk")
        snap.timed_out = not self.walk_from(snap, [(p, ROOT_PATH, i) for i, p in enumerate(windows)], r)
        return snap

    def walk_from(
        self, snap: Snapshot, frontier: list[tuple[str, str, int]], r: Read, probes: Probes | None = None
    ) -> bool:
        """Breadth-first below shown nodes only; False on timeout.

        Every node's role and states are read; its children, name and description only when it
        is shown (a list of a thousand rows shows a few dozen). The calls for a node that was
        shown in the previous read go out in one batch with its state; a node that turns out
        shown unexpectedly costs one more round trip. A node is asked for its children only
        once its states and child count say it may be (``atspi.visible.must_not_enumerate``); the
        previous read's verdict lets that go out with its state. Interfaces (fixed by the
        object's type) are read once per object."""
        bus, nodes = snap.bus, snap.nodes
        probes = probes if probes is not None else {}
        while frontier:
            frontier = frontier[: max(0, MAX_WALK_NODES - len(nodes))]
            # Decided once per round: the memo may start over while the replies are taken in.
            roles = [self.roles.get((bus, path)) if r.hypertext else None for path, _parent, _i in frontier]
            inline = [
                role is not None and (bus, e[0]) in self.inline_cells for role, e in zip(roles, frontier, strict=True)
            ]
            first = [self._first_calls(bus, e[0], roles[k], inline[k]) for k, e in enumerate(frontier)]
            replies = r.grouped(first)
            if replies is None:
                return False
            late: list[int] = []
            unread: list[Node] = []
            for k, (path, parent, index) in enumerate(frontier):
                known = roles[k]
                if known is not None and inline[k]:
                    if not self._inline_cell(snap, (path, parent, index), known, replies[k], r):
                        late.append(k)  # it holds more than text now: read it in full
                    continue
                got = replies[k] if known is None else [replies[k][0], (known,), *replies[k][1:]]
                state, role, *_ = got
                if isinstance(state, Failed) or isinstance(role, Failed):
                    continue
                states = states_of(state[0], visible_is_shown=r.visible_is_shown)
                if parent in r.open_menus and states & VISIBLE:
                    states |= SHOWING  # an item of a menu the display shows open (``atspi.popups``)
                node = Node(path, int(role[0]), "", "", states, frozenset(), parent=parent, index=index)
                nodes[path] = node
                if r.hypertext:
                    self._note_role(bus, node)
                if not node.showing:
                    self.remember(bus, path, showing=False)
                    node.interfaces = self.interfaces.get((bus, path), frozenset())
                elif len(got) > 2:
                    if self._fill(bus, node, got[2:], described=known not in CELL_ROLES):
                        self.remember(bus, path, showing=True)
                    else:
                        unread.append(node)
                else:
                    late.append(k)
            if late:
                more = r.grouped([self._detail_calls(bus, frontier[k][0], children=False) for k in late])
                if more is None:
                    return False
                for k, detail in zip(late, more, strict=True):
                    node = nodes[frontier[k][0]]
                    self._fill(bus, node, detail)
                    unread.append(node)
            if unread and not self._children_of(snap, unread, r):
                return False
            if r.hypertext and not self.inline_runs(snap, frontier, r):
                return False
            frontier = next_frontier(frontier, nodes, probes)
        return True

    def _first_calls(self, bus: str, path: str, known: int | None, inline: bool) -> list[Call]:
        """A node's calls in the first round: its state and role (``known``: a hypertext app's
        known role, not asked again), and its details when it was shown last time (an ``inline``
        cell, whose text held all it had: its text only)."""
        if inline:
            return [Call(bus, path, ACCESSIBLE, "GetState"), Call(bus, path, *GET_TEXT)]
        calls = [Call(bus, path, ACCESSIBLE, "GetState")]
        if known is None:
            calls.append(Call(bus, path, ACCESSIBLE, "GetRole"))
        seen = self.seen_showing.get((bus, path))
        if seen is not False:
            described = known not in CELL_ROLES
            calls.extend(self._detail_calls(bus, path, children=seen is True, described=described))
        return calls

    def _note_role(self, bus: str, node: Node) -> None:
        if len(self.roles) >= MEMO_SIZE:
            self.roles.clear()
            self.inline_cells.clear()
        self.roles[(bus, node.path)] = node.role

    def inline_runs(self, snap: Snapshot, frontier: list[tuple[str, str, int]], r: Read) -> bool:
        """In the hypertext model (Chromium, Gecko) each child that is not text sits in its
        parent's text as an embedded-object character: the children of a text node whose text
        has none are its text runs (a table cell's or a paragraph's static text), which its text
        already holds. They are not read: the node's text is read now (the details round reuses
        the reply) and its children are dropped. False on timeout."""
        bus = snap.bus
        holders = [
            n
            for path, _parent, _i in frontier
            if (n := snap.nodes.get(path)) is not None
            and n.showing
            and n.children
            and n.role in TEXT_VALUE_ROLES
            and TEXT in n.interfaces
        ]
        replies = r.ask([Call(bus, n.path, TEXT, "GetText", "ii", (0, -1)) for n in holders])
        if any(x is TIMED_OUT for x in replies):
            return False
        for node, reply in zip(holders, replies, strict=True):
            if isinstance(reply, Failed):
                continue
            text = str(reply[0])
            if text.strip() and OBJECT_CHAR not in text:
                node.text = text
                node.children, node.child_count = [], 0
                if node.role in CELL_ROLES:
                    # Its name: None when it is its text (Chromium names a cell by its contents).
                    self.inline_cells[(bus, node.path)] = None if node.name == text else node.name
        return True

    def _inline_cell(
        self, snap: Snapshot, entry: tuple[str, str, int], role: int, replies: Sequence[Any], r: Read
    ) -> bool:
        """A cell whose text held all it had in the last read (``inline_runs``) is read by its
        state and text alone: its role and interfaces are known, its name is its text or the one
        it had, its description is never shown (its row's line shows its text). False when its
        text now holds an embedded object (or is gone): then it is read in full (its node then
        still lacks its details)."""
        bus = snap.bus
        path, parent, index = entry
        state, text = replies
        if isinstance(state, Failed):
            return True
        states = states_of(state[0], visible_is_shown=r.visible_is_shown)
        node = Node(
            path, role, "", "", states, self.interfaces.get((bus, path), frozenset()), parent=parent, index=index
        )
        snap.nodes[path] = node
        if not node.showing:
            self.remember(bus, path, showing=False)
            return True
        if isinstance(text, Failed) or not str(text[0]).strip() or OBJECT_CHAR in str(text[0]):
            del self.inline_cells[(bus, path)]
            return False
        node.text = str(text[0])
        name = self.inline_cells[(bus, path)]
        node.name = node.text if name is None else name
        return True

    def _children_of(self, snap: Snapshot, unread: list[Node], r: Read) -> bool:
        """Read the children of shown nodes whose child count is known but whose children are
        not: listed when the container allows it, else only its visible part. False on timeout."""
        bus = snap.bus
        listed: list[Node] = []
        for node in unread:
            safe = not visible.must_not_enumerate(node.states, node.child_count)
            self.remember(bus, node.path, showing=safe)
            if not safe:
                self.read_visible(snap, node, r)  # sets its children
            elif node.child_count != 0:
                listed.append(node)
        replies = r.ask([Call(bus, n.path, ACCESSIBLE, "GetChildren") for n in listed])
        if any(x is TIMED_OUT for x in replies):
            return False
        for node, kids in zip(listed, replies, strict=True):
            if not isinstance(kids, Failed):
                node.children = [cp for cb, cp in kids[0] if cb == bus]
        return not r.dead

    def read_visible(self, snap: Snapshot, node: Node, r: Read) -> list[tuple[str, str, int]]:
        """The visible children of a container that must not be enumerated, as walk frontier
        entries; sets the node's children and what part of them they are."""
        bus = snap.bus
        if node.role == ROLE_MENU and not node.states & EXPANDED:
            shown = [c for c in node.children if (k := snap.nodes.get(c)) is not None and k.showing]
            if shown:
                return []  # an open GTK 3 menu (not EXPANDED): its cached items are SHOWING, keep them
            node.children, node.child_count = [], 0  # a closed menu shows nothing
            return []

        def call(path: str, iface: str, method: str, sig: str | None, body: tuple[Any, ...]) -> Call:
            return Call(bus, path, iface, method, sig, body)

        got = visible.read_visible(
            r.ask,
            call,
            bus,
            node.path,
            node.interfaces,
            document=node.role in DOCUMENT_ROLES,
        )
        node.children = got.children
        node.partial = got.note
        node.child_count = got.total
        for i, cell in enumerate(got.cells.values()):
            # Its text and extents are read: only its actions (and editability) are left to read.
            snap.nodes[cell.path] = Node(
                cell.path, cell.role, cell.name, "", cell.states, cell.interfaces & CELL_LEFT_TO_READ,
                parent=node.path, index=i, extents=cell.extents, text=cell.text,
                own_name=None if cell.own_name == cell.name else cell.own_name,
            )  # fmt: skip
        return [(p, node.path, i) for i, p in enumerate(got.children) if p not in snap.nodes]

    def _detail_calls(self, bus: str, path: str, *, children: bool, described: bool = True) -> list[Call]:
        """Name, description (unless not ``described``) and interfaces of a node, and its
        children when ``children`` (a node known to allow it), else its child count."""
        if children:
            calls = [Call(bus, path, ACCESSIBLE, "GetChildren")]
        else:
            calls = [Call(bus, path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "ChildCount"))]
        # Qt answers Properties.Get but not GetAll for the Accessible interface.
        props = WALK_PROPS if described else WALK_PROPS[:1]
        calls.extend(Call(bus, path, PROPERTIES, "Get", "ss", (ACCESSIBLE, n)) for n in props)
        if (bus, path) not in self.interfaces:
            calls.append(Call(bus, path, ACCESSIBLE, "GetInterfaces"))
        return calls

    def _fill(self, bus: str, node: Node, replies: Sequence[Any], *, described: bool = True) -> bool:
        """Set a shown node's children (or child count), name, description and interfaces from
        its detail replies (``_detail_calls``); True when its children were read."""
        if described:
            kids, name, desc, *ifaces = replies
            node.description = prop_str(desc)
        else:
            kids, name, *ifaces = replies
        node.name = prop_str(name)
        key = (bus, node.path)
        if ifaces and not isinstance(ifaces[0], Failed):
            self.interfaces[key] = frozenset(ifaces[0][0])
        node.interfaces = self.interfaces.get(key, frozenset())
        if isinstance(kids, Failed):
            return True
        if kids and isinstance(kids[0], list):
            node.children = [cp for cb, cp in kids[0] if cb == bus]
            node.child_count = len(node.children)
            return True
        node.child_count = int(variant(kids[0], 0))
        return False

    def remember(self, bus: str, path: str, *, showing: bool) -> None:
        """Note whether a node was shown (and safe to list the children of) in this read."""
        if len(self.seen_showing) >= MEMO_SIZE:
            self.seen_showing.clear()
            self.roles.clear()
            self.inline_cells.clear()
            self.interfaces.clear()
        self.seen_showing[(bus, path)] = showing
