"""Clicking an element by handle (contract 6.3): AT-SPI tiers first, a synthetic click last.

A left click on anything but a text entry tries, in order: selecting its row in a list (count 1
only), its own press action ``count`` times, a pressable descendant, the pressable element at its
centre (hit test); a right click tries the element's menu action. Text entries, and elements none
of the tiers could press, get a real click at the frame's centre. A press that runs part of a
multi-press is never retried by a later tier (``ax_failed`` with unknown effect).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Final

from deskhand.backends.base import ActionResult, Handle, MouseButton, RunningApp
from deskhand.backends.linux._a11y_act import MENU_ACTIONS, PRESS_ACTIONS, ROW_ROLES, Ref
from deskhand.backends.linux._pointer import Pointer
from deskhand.backends.linux._session import LinuxSession
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

__all__ = ("ElementClicks",)

#: Contract pause between repeated AX presses (6.12).
PRESS_REPEAT_S: Final = 0.05
#: How far up a row is searched for its list (6.3 tier 1) and down for a pressable child (tier 3).
ROW_ANCESTOR_HOPS: Final = 8
DESCENDANT_DEPTH: Final = 3


class ElementClicks:
    """The element-click tiers for one session (the caller holds ``session.lock``)."""

    def __init__(self, session: LinuxSession, pointer: Pointer) -> None:
        self._s = session
        self._pointer = pointer

    def click(self, app: RunningApp, handle: Handle, button: MouseButton, count: int) -> ActionResult:
        s = self._s
        element, ref = s.ref(app, handle)
        frame: Rect | None = element.frame
        if button == "right":
            if self._press_named(ref, MENU_ACTIONS, 1):
                return ActionResult("Opened the menu.", {"route": "action"})
        elif button == "left" and "org.a11y.atspi.EditableText" not in s.a11y.interfaces(ref):
            # Text entries get a real click: it focuses them and places the caret where clicked.
            tiers: tuple[Callable[[], str | None], ...] = (
                lambda: self._select_row(ref) if count == 1 else None,
                lambda: "action" if self._press_named(ref, PRESS_ACTIONS, count) else None,
                lambda: "descendant_action" if self._press_descendant(ref, count) else None,
                lambda: self._press_hit(ref, frame, count),
            )
            s.verify_identity(app)
            for tier in tiers:
                route = tier()
                if route is not None:
                    return ActionResult("Clicked.", {"route": route})
        if frame is None:
            raise NativeError("no_action", "The element has no action and no frame to click.", dispatched=False)
        return self._pointer.synthetic_click(app, frame.center, button, count, route="synthetic")

    def _select_row(self, ref: Ref) -> str | None:
        a11y = self._s.a11y
        node: Ref | None = ref
        for _ in range(ROW_ANCESTOR_HOPS + 1):
            if node is None:
                return None
            if a11y.role(node) in ROW_ROLES:
                parent = a11y.parent(node)
                if parent is not None and "org.a11y.atspi.Selection" in a11y.interfaces(parent):
                    index = a11y.index_in_parent(node)
                    if index >= 0 and a11y.select_child(parent, index):
                        return "select_row"
                return None
            node = a11y.parent(node)
        return None

    def _press_named(self, ref: Ref, names: Sequence[str], count: int) -> bool:
        a11y = self._s.a11y
        actions = [a.lower() for a in a11y.actions(ref)]
        for name in names:
            if name in actions:
                index = actions.index(name)
                for i in range(count):
                    if i:
                        time.sleep(PRESS_REPEAT_S)
                    if a11y.do_action(ref, index):
                        continue
                    if i == 0:
                        return False  # nothing happened: the next tier may try
                    raise NativeError(  # some presses ran: never replay them in another tier
                        "ax_failed",
                        f"Press {i + 1} of {count} failed after {i} succeeded; observe the app before retrying.",
                        dispatched=None,
                    )
                return True
        return False

    def _press_descendant(self, ref: Ref, count: int) -> bool:
        a11y = self._s.a11y
        level = a11y.children(ref)
        for _ in range(DESCENDANT_DEPTH):
            for child in level:
                if self._press_named(child, PRESS_ACTIONS, count):
                    return True
            level = [g for child in level for g in a11y.children(child)]
        return False

    def _press_hit(self, ref: Ref, frame: Rect | None, count: int) -> str | None:
        if frame is None:
            return None
        centre = frame.center
        hit = self._s.a11y.at_point(ref, round(centre.x), round(centre.y))
        if hit is not None and hit != ref and self._press_named(hit, PRESS_ACTIONS, count):
            return "hit_test"
        return None
