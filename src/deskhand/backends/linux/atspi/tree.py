"""One bounded read of an app's AT-SPI tree: from its cache or a walk, completed, then detailed.

Trees come from ``org.a11y.atspi.Cache.GetItems`` where the toolkit exports the cache (GTK,
Chromium; the cache object appears only after a client registers for ``children-changed``),
and from a breadth-first walk (``atspi.walk``) where it does not (Qt returns an empty list) or
where the caller says asking for it is unsafe (``TreeReader.walk_only``).
The cache is checked on every read, never trusted blindly: each item's child count and index
are live, and a shown node whose cached children are not exactly its live ones (Chromium's page
after a navigation) has its children read and walked again. Details such as extents, values,
texts and actions are read only for the nodes that are shown.

A read sends the calls of the app's previous read (its plan) with its first call, so an
unchanged app is read in one round trip (see ``TreeReader.read``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Final

from deskhand.backends.linux.atspi import visible
from deskhand.backends.linux.atspi.calls import (
    ACCESSIBLE,
    ACTION,
    APPLICATION,
    COMPONENT,
    MAX_PEERS,
    PROPERTIES,
    ROOT_PATH,
    SELECTION,
    TEXT,
    TIMED_OUT,
    VALUE,
    Call,
    Deadline,
    Failed,
    Links,
)
from deskhand.backends.linux.atspi.enums import Role
from deskhand.backends.linux.atspi.nodes import (
    HYPERTEXT_TOOLKITS,
    MAX_WALK_NODES,
    STATE_SHOWN_BY_VISIBLE,
    Node,
    Snapshot,
    apply_reply,
    has_size,
    inline_cell,
    prop_str,
    reads_text,
    shown,
    states_of,
)
from deskhand.backends.linux.atspi.popups import Popups, open_menus
from deskhand.backends.linux.atspi.read import Read
from deskhand.backends.linux.atspi.roles import FOCUSED, MANAGES_DESCENDANTS, ROLE_COMBO_BOX, ROLE_TO_AX, SHOWING
from deskhand.backends.linux.atspi.walk import Probes, Walker, probe_menu, unlisted_menu
from deskhand.core.axtree.text import NUMBERLESS_ROLES

#: A cache of more items than this, most of them hidden (this many per shown node), is slower to
#: read than a walk of the shown tree: such an app is walked from then on.
WALK_CACHE_ITEMS: Final = 1000
WALK_CACHE_RATIO: Final = 4
#: Passes over a cached tree completing what the cache does not list.
COMPLETE_PASSES: Final = 4
#: Toolkits (``Application.ToolkitName``, lower case) whose open menus' items do not say SHOWING:
#: GTK 2's gail. Only their menus are matched with the app's popup windows (``atspi.popups``);
#: the others' reads ask the display nothing.
MENUS_WITHOUT_SHOWING: Final = frozenset({"gail"})
#: Calls of an app's last read sent along with the first call of its next read (its plan).
MAX_PLAN_CALLS: Final = 4096


class TreeReader:
    """Reads apps' trees, and remembers per app what makes its next read cheaper: the calls of its
    last complete read (its plan), which source is cheaper, and its toolkit (GTK 4 shows objects
    by VISIBLE and answers window-relative bounds; Chromium and Gecko follow the hypertext model)."""

    def __init__(self) -> None:
        self._walker = Walker()
        #: Per app bus name: the source and calls of its last complete read (see ``read``).
        self._plans: dict[str, tuple[str, tuple[Call, ...]]] = {}
        #: Apps always walked (their cache does not cover their windows), apps whose big cache is
        #: mostly hidden (a walk is tried), the last cost of each source per app (see
        #: ``_source``), and per app its toolkit's name and version.
        self._walk_forced: set[str] = set()
        self._walk_trial: set[str] = set()
        self._costs: dict[str, dict[str, float]] = {}
        self._toolkits: dict[str, tuple[str, str]] = {}

    def read(self, bus: str, deadline: Deadline, links: Links, start: float, popups: Popups | None = None) -> Snapshot:
        """One read in rounds (cache or walk, then the lazy children, then details), each round
        deciding its calls from the replies of the ones before.

        The rounds' calls are those of the app's previous read when nothing changed, so that
        read's calls (its plan) go out with the first call, in one pipeline: an unchanged app
        is read in one round trip. Each round still asks for exactly the calls it needs, and
        takes a reply from the plan only for the same call (same object, method and arguments)
        in this read; what the plan did not foresee is sent then. Plan replies are as fresh as
        any: they answer calls sent during this read. Replies nobody asks for are dropped.
        ``popups`` gives the app's mapped popup windows: menus open there are read even when
        their items do not say SHOWING (``atspi.popups``)."""
        r = Read(bus, deadline, links)
        name, version = self._toolkit(bus, r)
        r.visible_is_shown = name == "gtk" and version.startswith("4.")
        r.hypertext = name in HYPERTEXT_TOOLKITS
        source = self._source(bus)
        planned_source, plan = self._plans.pop(bus, ("", ()))
        if planned_source != source:
            plan = ()  # the other source's calls: not this read's
        snap = None
        if source == "cache":
            snap = self._from_cache(r, plan)
            if snap is not None and not snap.timed_out and r.visible_is_shown and not covers_windows(snap):
                self._walk_forced.add(bus)  # GTK 4: the cache holds little more than the focus chain
                snap, source = None, "walk"
        if snap is None:
            snap = self._walker.walk(r, plan if source == "walk" else ())
            source = "walk"
        elif not snap.timed_out:
            cached = len(snap.nodes)
            snap.timed_out = not self._complete(snap, r)
            if cached > WALK_CACHE_ITEMS and cached > WALK_CACHE_RATIO * sum(1 for _ in shown(snap)):
                # Most of a big cache is hidden (LibreOffice's menus): a walk may be cheaper; the
                # next reads try one, planned from what the cache showed, and keep the cheaper.
                self._walk_trial.add(bus)
                for node in snap.nodes.values():
                    safe = not visible.must_not_enumerate(node.states, node.child_count)
                    self._walker.remember(bus, node.path, showing=node.showing and safe)
        if not snap.timed_out and popups is not None and name in MENUS_WITHOUT_SHOWING:
            snap.timed_out = not open_menus(snap, r, self._walker, popups)
        if not snap.timed_out:
            snap.timed_out = not self._enrich(snap, r)
        snap.capped = r.capped
        snap.window_relative = r.visible_is_shown
        if not snap.timed_out:
            snap.timed_out = not self._choices(snap, r)
        if not snap.timed_out:
            if len(self._plans) >= MAX_PEERS:
                self._plans.pop(next(iter(self._plans)))
            self._plans[bus] = (source, tuple(dict.fromkeys(r.used))[:MAX_PLAN_CALLS])
            if plan:  # an unplanned read (an app's first, or the first of a source) costs more than it will
                self._costs.setdefault(bus, {})[source] = time.monotonic() - start
        snap.elapsed_s = time.monotonic() - start
        snap.calls = len(r.asked)
        return snap

    def walk_only(self, bus: str) -> None:
        """Never ask this app for its cache: walk it (an app whose cache may hold freed objects)."""
        self._walk_forced.add(bus)

    def _source(self, bus: str) -> str:
        """How to read the app: "walk" when its cache does not cover its windows; else the
        cheaper of the cache and a walk once both were timed (a walk is tried only for an app
        whose cache is mostly hidden), else the cache."""
        if bus in self._walk_forced:
            return "walk"
        costs = self._costs.get(bus, {})
        if "cache" in costs and "walk" in costs:
            return "walk" if costs["walk"] < costs["cache"] else "cache"
        return "walk" if bus in self._walk_trial and "walk" not in costs else "cache"

    def _toolkit(self, bus: str, r: Read) -> tuple[str, str]:
        """The app's toolkit name (lower case) and version (``Application.ToolkitName`` and
        ``Version``), asked once; ("", "") while the app does not answer."""
        known = self._toolkits.get(bus)
        if known is None:
            name, version = r.ask(
                [
                    Call(bus, ROOT_PATH, PROPERTIES, "Get", "ss", (APPLICATION, "ToolkitName")),
                    Call(bus, ROOT_PATH, PROPERTIES, "Get", "ss", (APPLICATION, "Version")),
                ],
            )
            if name is TIMED_OUT or version is TIMED_OUT:
                return "", ""
            known = (prop_str(name).lower(), prop_str(version))
            if len(self._toolkits) >= MAX_PEERS:
                self._toolkits.clear()
            self._toolkits[bus] = known
        return known

    def _from_cache(self, r: Read, plan: Sequence[Call]) -> Snapshot | None:
        bus = r.bus
        [reply] = r.ask([Call(bus, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems")], plan)
        if reply is TIMED_OUT:
            return Snapshot(bus, {}, [], "cache", timed_out=True)
        if isinstance(reply, Failed) or not reply[0]:
            return None  # no cache (Qt answers with an empty list)
        nodes: dict[str, Node] = {}
        for item in reply[0]:
            (_sb, path), _app, (pbus, ppath), index, count, ifaces, name, role, desc, states = item
            node = Node(
                path,
                int(role),
                str(name),
                str(desc),
                states_of(states, visible_is_shown=r.visible_is_shown),
                frozenset(ifaces),
                parent=ppath if pbus == bus else "",
                index=int(index),
                child_count=int(count),
            )
            nodes[path] = node
        order: dict[str, list[Node]] = {}
        for node in nodes.values():
            order.setdefault(node.parent, []).append(node)
        for parent, kids in order.items():
            # Entries with index -1 (GTK menu items) keep the cache's order, after indexed ones.
            kids.sort(key=lambda n: n.index if n.index >= 0 else 1 << 30)
            if parent in nodes:
                nodes[parent].children = [k.path for k in kids]
        windows = [k.path for k in order.get(ROOT_PATH, [])]
        return Snapshot(bus, nodes, windows, "cache")

    def _complete(self, snap: Snapshot, r: Read) -> bool:
        """Walk below shown nodes whose children the cache does not hold exactly, and read only the
        visible part of containers that must not be enumerated.

        GTK creates some accessibles (list box rows, tree view cells) only when a client asks, and
        Chromium's page content never enters the cache: after a navigation the new document is
        missing and the old one is still cached, its parent kept but its index -1. Each item's
        child count and index are read live when the cache answers, so a node's cached children
        are its children only when they are exactly indices 0..count-1 (``children_known``); for
        every other shown node (and a root the cache missed) one pipelined ``GetChildren`` reads
        the live list: children no longer there are dropped, new ones walked. Containers that
        manage their descendants (LibreOffice Calc's sheet) are never asked for their children
        (``Walker.read_visible``). Each pass may reach more such nodes: at most ``COMPLETE_PASSES``."""
        bus = snap.bus
        done: set[str] = set()
        probes: Probes = {}
        root = snap.nodes.get(ROOT_PATH)
        for _ in range(COMPLETE_PASSES):
            leaves: list[Node] = []
            frontier: list[tuple[str, str, int]] = []
            candidates = list(shown(snap))
            if root is not None and all(n is not root for n in candidates):
                candidates.append(root)  # a window the cache missed (or one it still holds)
            for n in candidates:
                if n.path in done:
                    continue
                if unlisted_menu(n):
                    done.add(n.path)
                    leaves.append(n)  # GTK 3 caches a menu's child count as -1: its items are few
                elif visible.must_not_enumerate(n.states, n.child_count):
                    done.add(n.path)
                    frontier.extend(self._walker.read_visible(snap, n, r))
                elif not children_known(snap, n):
                    done.add(n.path)
                    leaves.append(n)
            if not leaves and not frontier:
                return True
            replies = r.ask([Call(bus, n.path, ACCESSIBLE, "GetChildren") for n in leaves])
            if any(x is TIMED_OUT for x in replies):
                return False
            for node, reply in zip(leaves, replies, strict=True):
                if isinstance(reply, Failed):
                    continue
                node.children = [p for b, p in reply[0] if b == bus]
                node.child_count = len(node.children)
                if node is root:
                    snap.windows = list(node.children)
                items = [(p, node.path, i) for i, p in enumerate(node.children) if p not in snap.nodes]
                frontier.extend(probe_menu(node, items, probes))
            if frontier and not self._walker.walk_from(snap, frontier, r, probes):
                return False
        return True

    def _enrich(self, snap: Snapshot, r: Read) -> bool:
        """Read extents, values, texts, selections and actions of shown nodes; False on timeout.

        A web table's plain cells (``inline_cell``) get only their text: a grid row renders as one
        line with its cells' texts (``core/axtree/rows.py``), so their bounds and actions would
        never be shown or used; on a 100 x 30 table that is a fifth of the read's calls. Nor is the
        value of a role whose number the state never shows (``NUMBERLESS_ROLES``: LibreOffice
        gives every button a Value interface reading 0)."""
        calls: list[Call] = []
        targets: list[tuple[Node, str]] = []
        for node in shown(snap):
            b, p, ifs = snap.bus, node.path, node.interfaces
            inline = r.hypertext and inline_cell(node)
            if COMPONENT in ifs and not inline:
                calls.append(Call(b, p, COMPONENT, "GetExtents", "u", (0,)))
                targets.append((node, "extents"))
            if VALUE in ifs and ROLE_TO_AX.get(node.role) not in NUMBERLESS_ROLES:
                calls.append(Call(b, p, PROPERTIES, "Get", "ss", (VALUE, "CurrentValue")))
                targets.append((node, "value"))
            if TEXT in ifs and reads_text(node):
                # The whole text: LibreOffice answers '' when the end is past the text.
                calls.append(Call(b, p, TEXT, "GetText", "ii", (0, -1)))
                targets.append((node, "text"))
                if node.states & FOCUSED:
                    calls.append(Call(b, p, TEXT, "GetSelection", "i", (0,)))
                    targets.append((node, "selection"))
            if ACTION in ifs and not inline:
                calls.append(Call(b, p, ACTION, "GetActions"))
                targets.append((node, "actions"))
        replies = r.ask(calls)
        for (node, what), reply in zip(targets, replies, strict=True):
            if not isinstance(reply, Failed):
                apply_reply(node, what, reply)
                if (
                    what == "extents"
                    and not has_size(node.extents)
                    and (node.states & STATE_SHOWN_BY_VISIBLE or node.role == Role.MENU_BAR)
                ):
                    # A menu bar of no size is not shown: LibreOffice's own (VCL) menu bar,
                    # SHOWING and 0 px high under the GTK menu bar it draws instead (Impress
                    # listed its menus twice).
                    node.states &= ~SHOWING
        return not any(r is TIMED_OUT for r in replies)

    def _choices(self, snap: Snapshot, r: Read) -> bool:
        """The selected option of shown combo boxes whose list is a child (Chromium's
        ``<select>``: the combo's name is its label, its text an object placeholder, and the
        options sit in a hidden menu below it), as the combo's text; and the text of a shown
        combo box without children that has one (Chromium's own dialogs: the Bookmark dialog's
        ``Folder`` says "Other bookmarks" only there); False on timeout."""
        combos = [n for n in shown(snap) if n.role == ROLE_COMBO_BOX and n.text is None]
        bare = [n for n in combos if not n.children and TEXT in n.interfaces]
        texts = r.ask([Call(snap.bus, n.path, TEXT, "GetText", "ii", (0, -1)) for n in bare])
        for node, reply in zip(bare, texts, strict=True):
            if not isinstance(reply, Failed) and reply is not TIMED_OUT and str(reply[0]).strip():
                node.text = str(reply[0])
        lists = [(n, c) for n in combos for c in n.children[:2]]
        picked = r.ask([Call(snap.bus, c, SELECTION, "GetSelectedChild", "i", (0,)) for _n, c in lists])
        chosen: dict[str, str] = {}
        for (node, _c), reply in zip(lists, picked, strict=True):
            if not isinstance(reply, Failed) and reply[0][0] == snap.bus and node.path not in chosen:
                chosen[node.path] = str(reply[0][1])
        names = r.ask([Call(snap.bus, p, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")) for p in chosen.values()])
        for path, name in zip(chosen, names, strict=True):
            if not isinstance(name, Failed):
                snap.nodes[path].text = prop_str(name)
        return not any(x is TIMED_OUT for x in (*texts, *picked, *names))


def children_known(snap: Snapshot, node: Node) -> bool:
    """Whether the cache holds exactly the node's live children: as many as its live count,
    at indices 0, 1, ... in order (a child cached under it with index -1 has left it).

    A node with no cached children is known when its count is 0. One with cached children
    that manages its descendants (count -1, as GTK menus say, or an absurd count) keeps the
    cache's: listing its children could make the app build every one of them."""
    kids = node.children
    if not kids:
        return node.child_count == 0
    if node.child_count < 0 or node.child_count > MAX_WALK_NODES or node.states & MANAGES_DESCENDANTS:
        return True
    if len(kids) != node.child_count:
        return False
    return all((n := snap.nodes.get(k)) is not None and n.index == i for i, k in enumerate(kids))


def covers_windows(snap: Snapshot) -> bool:
    """Whether the cache lists what is in the app's shown windows: a shown node with some but
    fewer children in the cache than it reports means it does not (a fresh GTK 4 app's cache
    holds little more than the focus chain). A node with none is completed by ``_complete``
    (an object the cache lists under another parent). Asked for GTK 4 apps only: LibreOffice's
    frame also reports children its cache lists elsewhere, and its cache read is complete."""
    return all(not 0 < len(n.children) < n.child_count for n in shown(snap))
