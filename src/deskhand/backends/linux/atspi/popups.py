"""Menus that the display server shows open, whatever their SHOWING bit says (GTK 2).

GTK 2's accessibility (gail) never sets SHOWING on the items of a menu, open or closed: GIMP's
Image menu, open on screen, has 42 items that are VISIBLE and not SHOWING, so a read that walks
below shown nodes only leaves it out. What the screen shows is decided by what the display
server has mapped instead: an open GTK menu is an override-redirect window of the app (the
caller's ``Popups``: their root rectangles, asked at most once per read and only when a shown
menu has no shown item). A shown menu with no shown item is open when one of its first items
lies inside such a window (a closed GTK 2 menu reports its items at -2^31): then its VISIBLE
items count as SHOWING (``Read.open_menus``) and are walked, and so on for its open submenus.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from deskhand.backends.linux.atspi.calls import ACCESSIBLE, COMPONENT, TIMED_OUT, Call, Failed
from deskhand.backends.linux.atspi.nodes import Node, Snapshot, shown
from deskhand.backends.linux.atspi.read import Read
from deskhand.backends.linux.atspi.roles import ROLE_MENU
from deskhand.backends.linux.atspi.walk import Walker

#: The app's mapped popup windows (override-redirect: menus, tooltips) as (x, y, width, height).
Popups = Callable[[], Sequence[tuple[int, int, int, int]]]

#: Items of a menu whose bounds are asked to decide whether it is open (a tear-off item and a
#: separator may come first, hidden).
PROBED_ITEMS: Final = 4
#: Menu levels opened in one read (a menu, its submenu, ...).
MAX_LEVELS: Final = 4
SCREEN_COORDS: Final = 0


def open_menus(snap: Snapshot, r: Read, walker: Walker, popups: Popups) -> bool:
    """Walk the menus of ``snap`` that ``popups`` shows open though no item says SHOWING (module
    docstring); False on timeout."""
    rects: Sequence[tuple[int, int, int, int]] | None = None
    for _ in range(MAX_LEVELS):
        menus = [n for n in shown(snap) if _closed_looking(snap, n) and n.path not in r.open_menus]
        if not menus:
            return True
        if rects is None:
            rects = popups()
        if not rects:
            return True
        bare = [m for m in menus if not m.children]
        kids = r.ask([Call(snap.bus, m.path, ACCESSIBLE, "GetChildren") for m in bare])
        if any(k is TIMED_OUT for k in kids):
            return False
        listed: dict[str, list[str]] = {m.path: m.children for m in menus}
        for menu, reply in zip(bare, kids, strict=True):
            if not isinstance(reply, Failed):
                listed[menu.path] = [p for b, p in reply[0] if b == snap.bus]
        probes = [(m, p) for m in menus for p in listed[m.path][:PROBED_ITEMS]]
        bounds = r.ask([Call(snap.bus, p, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,)) for _m, p in probes])
        if any(b is TIMED_OUT for b in bounds):
            return False
        opened: dict[str, Node] = {}
        for (menu, _path), reply in zip(probes, bounds, strict=True):
            if not isinstance(reply, Failed) and _inside(tuple(int(v) for v in reply[0]), rects):
                opened[menu.path] = menu
        if not opened:
            return True
        frontier: list[tuple[str, str, int]] = []
        for menu in opened.values():
            r.open_menus.add(menu.path)
            menu.children = listed[menu.path]
            menu.child_count = len(menu.children)
            for i, path in enumerate(menu.children):
                snap.nodes.pop(path, None)  # read again: its state now counts VISIBLE as SHOWING
                frontier.append((path, menu.path, i))
        if not walker.walk_from(snap, frontier, r):
            return False
    return True


def _closed_looking(snap: Snapshot, node: Node) -> bool:
    """A menu none of whose items is shown (closed, or open without saying so)."""
    if node.role != ROLE_MENU or (node.child_count == 0 and not node.children):
        return False
    return not any((k := snap.nodes.get(c)) is not None and k.showing for c in node.children)


def _inside(box: tuple[int, ...], rects: Sequence[tuple[int, int, int, int]]) -> bool:
    x, y, w, h = box
    if w <= 0 or h <= 0:
        return False
    return any(rx <= x and ry <= y and x + w <= rx + rw and y + h <= ry + rh for rx, ry, rw, rh in rects)
