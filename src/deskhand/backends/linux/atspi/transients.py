"""What an app's state adds to its windows' trees, and the refetch of a handle's element (Linux).

* Transient windows: an open menu of a menu bar becomes a window of its own in the state (the
  renderer shows no children of a menu bar item); the app's own popups do not "cover" its
  window (a person sees them over it).
* Refetch: before an action the element behind a handle is read again (role, name, states,
  extents) so that ``check_fingerprint`` can refuse a ghost (section 3.3 step 6).
"""

from __future__ import annotations

from typing import Final

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.atspi.connection import (
    ACCESSIBLE,
    COMPONENT,
    PROPERTIES,
    TIMED_OUT,
    AtspiConnection,
    Call,
    Deadline,
    Failed,
)
from deskhand.backends.linux.atspi.enums import State
from deskhand.backends.linux.atspi.mapping import AtspiRef
from deskhand.core.axtree.handles import Fingerprint
from deskhand.core.axtree.model import Element, WindowTree
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

#: An element is fetched again before an action within this time (the AX messaging timeout).
REFETCH_TIMEOUT_S: Final = 2.0


def refetch(atspi: AtspiConnection, app: RunningApp, ref: AtspiRef) -> Fingerprint | None:
    """The element's fingerprint as the app reports it now; None when it no longer exists
    (an unknown object, or a defunct one).

    Raises:
        NativeError: ``ax_failed`` (before dispatch) when the app does not answer in time.
    """
    calls = [
        Call(ref.bus, ref.path, ACCESSIBLE, "GetRole"),
        Call(ref.bus, ref.path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")),
        Call(ref.bus, ref.path, ACCESSIBLE, "GetState"),
    ]
    if COMPONENT in ref.interfaces:
        calls.append(Call(ref.bus, ref.path, COMPONENT, "GetExtents", "u", (0,)))
    replies = atspi.pipeline(calls, Deadline(REFETCH_TIMEOUT_S))
    if any(r is TIMED_OUT for r in replies):
        raise NativeError(
            "ax_failed",
            f"{app.display_name} (pid {app.pid}) did not answer within {REFETCH_TIMEOUT_S:g} s when the "
            "element was fetched again; nothing was sent.",
            dispatched=False,
        )
    if any(isinstance(r, Failed) for r in replies[:3]):
        return None
    role, name, state = replies[:3]
    if int(state[0][0]) & State.DEFUNCT:  # the low word of the state set; DEFUNCT: the object is gone
        return None
    bounds = None
    if len(replies) > 3 and not isinstance(replies[3], Failed):
        x, y, w, h = replies[3][0]
        dx, dy = atspi.origin_of(ref.bus, ref.path)  # a window-relative app's (GTK 4)
        bounds = Rect(float(x + dx), float(y + dy), float(w), float(h)) if w > 0 and h > 0 else None
    return Fingerprint(int(role[0]), str(name[0][1]), bounds)


def open_menus(bars: list[Element], trees: list[WindowTree]) -> list[WindowTree]:
    """The open menus of ``bars`` (the detached menu bar) and of menu bars inside ``trees``."""
    inside = [b for t in trees for b in _menu_bars(t.root)]
    return [menu for bar in bars + inside for menu in _open_menus(bar)]


def _open_menus(menu_bar: Element) -> list[WindowTree]:
    """The menu bar's open menus as windows of their own (the renderer shows no children of a
    menu bar item, as a closed macOS menu has none); a closed menu's items are not SHOWING,
    so a menu bar item with children is an open menu. It has no X window (0), and is named by
    its menu bar item's locator (``WindowTree.locator``): its items keep their handles while it
    stays open (and when it opens again: the same accessible objects)."""
    out = []
    for item in menu_bar.children:
        if item.role == "AXMenuBarItem" and item.children:
            menu = Element(
                role="AXMenu",
                role_description="menu",
                title=item.title,
                children=item.children,
                locator=f"open-menu:{item.locator}",
                ref=item.ref,
            )
            item.children = []
            out.append(WindowTree(0, item.title or "", menu, None, locator=menu.locator))
    return out


def overlapped(frame: Rect, others: list[Rect]) -> bool:
    return any(
        frame.x < o.x + o.width
        and o.x < frame.x + frame.width
        and frame.y < o.y + o.height
        and o.y < frame.y + frame.height
        for o in others
    )


def _menu_bars(root: Element) -> list[Element]:
    """The menu bars inside a window's tree (one its window was not matched to stays there)."""
    out, stack = [], [root]
    while stack:
        el = stack.pop()
        if el.role == "AXMenuBar":
            out.append(el)
        else:
            stack.extend(el.children)
    return out
