"""Clicking an element by handle on Linux: the AT-SPI primitives of the core's tier runner.

The order of the tiers, press-repeat and the rules that end a click (a multi-press failing
part-way, an action call that timed out) are ``deskhand.core.clicktiers``; this module supplies
its ``ElementPrimitives`` over AT-SPI and maps its result to the reply.

* Text entries (EditableText) get a real click: it focuses them and places the caret where
  clicked (``prefers_pointer``).
* So do menus in a menu bar and menu items that are on screen (``MENU_ROLES``, SHOWING, with a
  frame): Qt 5 answers a menu-bar item's press action "done" and opens nothing, and performs a
  menu item's action but leaves its menu open; a real click opens the menu, or activates the item
  and closes the menu, as a person's does, in every toolkit. A menu item that is not showing
  (its menu is closed) keeps its accessible action. So do Qt check boxes and toggle buttons whose
  only press is "Toggle" (``TOGGLE_ROLES``): it flips the checked state and sends no click, so the
  action behind the button never runs (Dolphin's view-mode buttons read "on", the view stays).
* So do push buttons with a popup menu among their children (``_has_menu``): Gecko's press
  action on a split button (Thunderbird's Save and Attach) opens its dropdown instead of running
  the button's command, which a click on the button's face runs; on a plain menu button both
  open the menu.
* Tier 1 walks up to ``ROW_ANCESTOR_HOPS`` ancestors for a row (``ROW_ROLES``) whose parent has
  the Selection interface and selects it there (``SelectChild``).
* Press actions are ``atspi.element.PRESS_ACTIONS`` (first present wins; a table cell's are
  ``CELL_PRESS_ACTIONS``, without "activate", so a GTK tree view cell is clicked for real, which
  selects its row), menu actions ``MENU_ACTIONS``; both are matched on the lowercased AT-SPI
  action names.
* A synthetic click reads the element's frame again once the app handled the pre-click hover
  (``core.clicktiers.synthetic_click``): LibreOffice places a new window's elements 25 px too
  high until the first pointer event reaches it (Calc's first click on C2 selected C1).
* An element observed without a frame (Firefox right after a page load, its layout not done)
  has its frame read at click time (``frame_now``, on X11 and Wayland): Firefox's buttons offer
  EditableText, so they are clicked for real and need one.
* A ``DoAction`` or ``SelectChild`` that timed out or failed on the bus is ``unknown``; one the app
  answered false is ``refused`` (``A11y.perform``).
* GTK 2's half actions ("press" with "release") are never taken for a click
  (``AtspiElement._named``). An action that says done is never followed by a second click on
  the sign that nothing happened: a quiet app may still be acting on it (a loaded machine).
* After a left click by an accessibility tier on an element that takes keys (FOCUSABLE, and
  EDITABLE or a text or document role: ``KEY_ROLES``), the focus is read once the app has handled
  the action (``act.barrier``), and when it is elsewhere, ``core.clicktiers.ensure_focus`` grabs it,
  then clicks for real (Kate's document: its press action leaves the focus where it was). In a
  browser the focus is read again for up to ``FOCUS_LAG_S`` (its page applies the action late).
  When the focus is still elsewhere after the real click, the reply says so (``FOCUS_MISSED``,
  ``suspected_noop``) rather than reporting a click that did what it should.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Final

from deskhand.backends.base import ActionResult, Handle, MouseButton, RunningApp
from deskhand.backends.linux.act import outcomes
from deskhand.backends.linux.act.barrier import Barrier
from deskhand.backends.linux.act.focus import ASYNC_KEY_TOOLKITS
from deskhand.backends.linux.act.pointer import Bursts, Pointer
from deskhand.backends.linux.act.seam import ActSession
from deskhand.backends.linux.act.session import LinuxSession
from deskhand.backends.linux.atspi.element import (
    CELL_PRESS_ACTIONS,
    MENU_ACTIONS,
    PRESS_ACTIONS,
    ROW_ROLES,
    A11y,
    Ref,
)
from deskhand.backends.linux.atspi.enums import Role, State, role_set
from deskhand.core import clicktiers, effects
from deskhand.core import deadline as call_deadline
from deskhand.core.clicktiers import Clicked, Outcome
from deskhand.core.geometry import Point, Rect

__all__ = ("FOCUS_MISSED", "AtspiElement", "ElementClicks", "clicked_result", "frame_now")

#: A click by handle on an element that takes keys after which the focus is still elsewhere.
FOCUS_MISSED: Final = (
    "The keyboard focus did not move to the element: its action, a focus grab and a click at its "
    "centre left it elsewhere, and keys sent next go there. Observe the app before typing."
)
#: A browser marks a field FOCUSED once its page's process applied the action, after the app
#: answered the barrier's round trip (Chromium on sway: 14 ms later, 1 of 9 checks): how long
#: ``AtspiElement.focused`` reads it again there before the next tier grabs the focus and clicks.
FOCUS_LAG_S: Final = 0.5
#: An element observed without a frame: how long its frame is waited for at click time, polled.
FRAME_WAIT_S: Final = 1.0
FRAME_POLL_S: Final = 0.05
#: How long the app's answer to a ping behind the pre-click hover is waited for before the
#: element's frame is read again (``ElementClicks._frame_after_hover``); without one, the
#: observed frame is clicked.
HOVER_PING_S: Final = 0.5
#: How far up a row is searched for its list (6.3 tier 1).
ROW_ANCESTOR_HOPS: Final = 8
#: AT-SPI roles clicked for real while on screen: check menu item, menu, menu item, radio menu
#: item, tearoff menu item (the module docstring).
#: Table cell, column header, row header: "activate" does not press them (``CELL_PRESS_ACTIONS``).
CELL_ROLES: Final = role_set(Role.TABLE_CELL, Role.COLUMN_HEADER, Role.ROW_HEADER)
#: Check box, toggle button: clicked for real in Qt when their only press is "Toggle".
TOGGLE_ROLES: Final = role_set(Role.CHECK_BOX, Role.TOGGLE_BUTTON)
MENU_ROLES: Final = role_set(
    Role.CHECK_MENU_ITEM, Role.MENU, Role.MENU_ITEM, Role.RADIO_MENU_ITEM, Role.TEAROFF_MENU_ITEM
)
#: Roles of elements that take keys, whose click must leave the keyboard focus in them.
KEY_ROLES: Final = role_set(
    Role.TEXT, Role.PASSWORD_TEXT, Role.ENTRY, Role.TERMINAL, Role.PARAGRAPH, Role.DOCUMENT_TEXT,
    Role.DOCUMENT_FRAME, Role.DOCUMENT_SPREADSHEET, Role.DOCUMENT_PRESENTATION, Role.DOCUMENT_EMAIL,
)  # fmt: skip


class AtspiElement:
    """``core.clicktiers.ElementPrimitives`` for one click in one app; actions are AT-SPI indexes."""

    def __init__(self, session: ActSession, app: RunningApp, handled: Callable[[], object] | None = None) -> None:
        self._s = session
        self._app = app
        self._handled = handled  # waits until the app handled the action (``act.barrier``)

    def authorize(self) -> None:
        self._s.verify_identity(self._app)

    def prefers_pointer(self, node: Ref) -> bool:
        a11y = self._s.a11y
        if "org.a11y.atspi.EditableText" in a11y.interfaces(node):
            return True
        role = a11y.role(node)
        if (
            role not in MENU_ROLES
            and not (role in TOGGLE_ROLES and self._qt_toggle_only(node))
            and not (role == Role.PUSH_BUTTON and self._has_menu(node))
        ):
            return False
        if not a11y.states(node) & State.SHOWING:
            return False
        ext = a11y.extents(node)
        return ext is not None and ext[2] > 0 and ext[3] > 0

    def _has_menu(self, node: Ref) -> bool:
        """A push button whose children include a popup menu (a split or menu button)."""
        a11y = self._s.a11y
        return any(a11y.role(c) == Role.MENU for c in a11y.children(node))

    def _qt_toggle_only(self, node: Ref) -> bool:
        """A Qt check box or toggle button whose only press is "Toggle": Qt flips its checked
        state without a click, so the action it stands for never runs (Dolphin's Details view
        mode button reads "on" while the view stays as it was)."""
        if self._s.a11y.toolkit(node.bus) != "qt":
            return False
        actions = {a.lower() for a in self._s.a11y.actions(node)}
        return "toggle" in actions and not actions & {"press", "click"}

    def select_row(self, node: Ref) -> Outcome:
        a11y = self._s.a11y
        at: Ref | None = node
        for _ in range(ROW_ANCESTOR_HOPS + 1):
            if at is None:
                return "refused"
            if a11y.role(at) in ROW_ROLES:
                parent = a11y.parent(at)
                if parent is not None and "org.a11y.atspi.Selection" in a11y.interfaces(parent):
                    index = a11y.index_in_parent(at)
                    if index >= 0:
                        return a11y.select_child(parent, index)
                return "refused"
            at = a11y.parent(at)
        return "refused"

    def press_action(self, node: Ref) -> int | None:
        cell = self._s.a11y.role(node) in CELL_ROLES
        return self._named(node, CELL_PRESS_ACTIONS if cell else PRESS_ACTIONS)

    def menu_action(self, node: Ref) -> int | None:
        return self._named(node, MENU_ACTIONS)

    def _named(self, node: Ref, names: Sequence[str]) -> int | None:
        actions = [a.lower() for a in self._s.a11y.actions(node)]
        if "release" in actions:  # gail's "press" and "release" are the two halves of a click
            names = [n for n in names if n != "press"]
        return next((actions.index(name) for name in names if name in actions), None)

    def perform(self, node: Ref, action: int) -> Outcome:
        return self._s.a11y.perform(node, action)

    def children(self, node: Ref) -> Sequence[Ref]:
        return self._s.a11y.children(node)

    def hit_test(self, node: Ref, at: Point) -> Ref | None:
        return self._s.a11y.at_point(node, round(at.x), round(at.y))

    # -- core.clicktiers.FocusPrimitives ------------------------------------------------------
    def takes_keys(self, node: Ref) -> bool:
        states = self._s.a11y.states(node)
        if not states & State.FOCUSABLE:
            return False
        return bool(states & State.EDITABLE) or self._s.a11y.role(node) in KEY_ROLES

    def focused(self, node: Ref) -> bool:
        if self._handled is not None:
            self._handled()
        a11y = self._s.a11y
        focused = bool(a11y.states(node) & State.FOCUSED)
        if focused or not a11y.toolkit(node.bus).startswith(ASYNC_KEY_TOOLKITS):
            return focused
        deadline = time.monotonic() + call_deadline.bound(FOCUS_LAG_S)
        while not focused and time.monotonic() < deadline:
            time.sleep(FRAME_POLL_S / 5)  # polling the field's state until the deadline above
            focused = bool(a11y.states(node) & State.FOCUSED)
        return focused

    def grab_focus(self, node: Ref) -> bool:
        return self._s.a11y.grab_focus(node)


class ElementClicks:
    """Element clicks for one session (the caller holds ``session.lock``)."""

    def __init__(self, session: LinuxSession, pointer: Pointer, barrier: Barrier) -> None:
        self._s = session
        self._pointer = pointer
        self._barrier = barrier
        #: the element the last click was on (when it is a text field, a browser's next key waits
        #: for the focus to arrive there: ``act.focus.Focus.input_posted``)
        self.clicked: Ref | None = None

    def click(self, app: RunningApp, handle: Handle, button: MouseButton, count: int) -> ActionResult:
        element, ref = self._s.ref(app, handle)
        self.clicked = ref
        frame = element.frame if element.frame is not None else self._frame_now(ref)
        primitives = AtspiElement(self._s, app, lambda: self._barrier.handled(app, "a11y_action"))
        bursts = self._pointer.bursts(app)
        done = clicktiers.click_element(
            primitives,
            bursts,
            ref,
            frame,
            button=button,
            count=count,
            reframe=lambda: self._frame_after_hover(bursts, ref),
        )
        if button == "left" and count == 1:
            done = clicktiers.ensure_focus(primitives, bursts, ref, frame, done)
        if done.route == "synthetic" and done.point is not None:
            at = done.point
            return clicked_result(done, {"point": [at.x, at.y], "button": button, "count": count})
        return clicked_result(done, {})

    def _frame_after_hover(self, bursts: Bursts, ref: Ref) -> Rect | None:
        """The element's frame once the app has handled the pre-click hover (a fenced ping: GTK
        holds a lone motion back), or None when it does not answer in ``HOVER_PING_S``."""
        window = bursts.window
        if window is None:
            return None
        ping = self._s.pinger()
        token = ping.send(window, fence=True)
        try:
            if not ping.answered(token, call_deadline.bound(HOVER_PING_S)):
                return None
        finally:
            ping.forget(token)
        ext = self._s.a11y.extents(ref)
        return Rect(float(ext[0]), float(ext[1]), float(ext[2]), float(ext[3])) if ext is not None else None

    def _frame_now(self, ref: Ref) -> Rect | None:
        return frame_now(self._s.a11y, ref)


def clicked_result(done: Clicked, fields: dict[str, object]) -> ActionResult:
    """The reply to an element click (X11's and Wayland's): its route and ``fields``; when an
    accessible action left the focus elsewhere, the tier that moved it (``focus_moved_by``); when
    no tier moved it (``focus_missed``), ``FOCUS_MISSED`` and a ``suspected_noop`` outcome."""
    out: dict[str, object] = {"route": done.route, **fields}
    if done.action is not None and done.route in ("grab_focus", "synthetic") and not done.focus_missed:
        out["focus_moved_by"] = done.route
    if not done.focus_missed:
        return ActionResult(out)
    out["focus_missed"] = FOCUS_MISSED
    route = outcomes.ROUTES.get(done.route, "synthetic_events")
    return ActionResult(out, effects.judge(route, [], expected_change=True))


def frame_now(a11y: A11y, ref: Ref) -> Rect | None:
    """The frame of an element observed without one (read while a page was being laid out,
    right after its load), read now, and again until it has a size for up to ``FRAME_WAIT_S``
    within the call's deadline; None if it never gets one (then the tiers say so). X11's and
    Wayland's element clicks both take it."""
    deadline = time.monotonic() + call_deadline.bound(FRAME_WAIT_S)
    while True:
        ext = a11y.extents(ref)
        if ext is not None and ext[2] > 0 and ext[3] > 0:
            return Rect(float(ext[0]), float(ext[1]), float(ext[2]), float(ext[3]))
        if time.monotonic() >= deadline:
            return None
        time.sleep(FRAME_POLL_S)
