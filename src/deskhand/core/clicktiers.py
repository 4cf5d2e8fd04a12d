"""Clicking an element by handle: the tier runner, press-repeat and the synthetic click (native-contract.md 6.3).

Index click, left button, the first tier that succeeds wins:

1. count 1 only: select the element's row in its list (``select_row``);
2. the element's own press action, ``count`` times, ``AX_PRESS_REPEAT_S`` (50 ms) apart;
3. the first descendant, breadth first to depth ``DESCENDANT_DEPTH``, with a press action, pressed
   the same way;
4. the element found at the frame's centre by hit test, when it is another one, pressed the same way;
5. a synthetic click at the frame's centre; without a frame ``no_action``.

Right button: the element's menu action once, else a synthetic right click. Other buttons, and
elements the backend wants clicked for real (``prefers_pointer``: a text entry, so the caret lands
where clicked), get the synthetic click directly. The identity is re-proved (``authorize``) once,
before the first tier.

Two rules end a click at once, so an action of unknown effect is never followed by another one:

* a multi-press that fails part-way (press ``i > 1`` refused, errored or unanswered) is
  ``ax_failed`` with unknown effect (``dispatched=None``);
* an action call that timed out or failed on the wire (``"unknown"``: the app may still perform
  it) is ``ax_failed`` with unknown effect; no later tier runs (a refused call, one the app
  answered "not done", lets the next tier try).

The synthetic click (``synthetic_click``, also used for clicks at a point) posts the pre-click
hover, pauses ``PRE_CLICK_HOVER_S`` (10 ms, 6.3 step 3 and 6.12) and posts the click pairs.

A click on an element that takes keys (a document, a text area) must leave the keyboard focus
there, as a person's click does; an accessible action may not move it (Kate's document: its
press action left the focus in the Replace field it had, and the next text went there). After a
left click by an accessibility tier, ``ensure_focus`` checks the focus once the app handled the
action, and when it did not move, runs the next tiers until it has: grab the focus
(``grab_focus``), then the synthetic click. The route says which one ran, and when the focus is
still elsewhere after the last (``Clicked.focus_missed``: a click that landed beside a small field),
the backend reports the click as not having done what it should.

A backend supplies primitives only: :class:`ElementPrimitives` (reads and single AX calls on its
own element type ``N`` and action type ``A``) and :class:`PointerPrimitives` (the hover and the
click burst, each behind the backend's own gate).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol, TypeVar

from deskhand.core.axtree.settle import AX_PRESS_REPEAT_S, PRE_CLICK_HOVER_S
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect
from deskhand.core.pointer import Button

__all__ = (
    "DESCENDANT_DEPTH",
    "Clicked",
    "ElementPrimitives",
    "FocusPrimitives",
    "Outcome",
    "PointerPrimitives",
    "click_element",
    "ensure_focus",
    "press_repeat",
    "synthetic_click",
)

#: How deep the descendant tier looks for a pressable child (6.3 tier 3).
DESCENDANT_DEPTH: Final = 3

#: The result of one AX action call: performed, refused (nothing happened), or unknown (the call
#: timed out or failed on the wire: the app may still perform it).
Outcome = Literal["done", "refused", "unknown"]
Route = Literal["select_row", "action", "descendant_action", "hit_test", "grab_focus", "synthetic"]

N = TypeVar("N")
A = TypeVar("A")
N_contra = TypeVar("N_contra", contravariant=True)

UNKNOWN_MESSAGE: Final = (
    "The app did not answer the accessibility action in time (it may be busy or hung); "
    "its effect is unknown. Observe the app before retrying."
)


@dataclass(frozen=True, slots=True)
class Clicked:
    """How a click was done: the tier's route, the action it performed, the synthetic click's point."""

    route: Route
    action: object = None
    point: Point | None = None
    #: ``ensure_focus`` ran every tier and the keyboard focus is still not on the element (the
    #: backend says so: the click's effect is not what it should be)
    focus_missed: bool = False


class ElementPrimitives(Protocol[N, A]):
    """What one element click needs from a backend: reads, and AX calls made exactly once each.

    Reads that fail or time out answer "nothing" (no row, no action, no children, no hit). A
    primitive may raise a typed ``NativeError`` for a refusal before anything happened; raised
    from a later press of a multi-press it becomes the part-way failure.
    """

    def authorize(self) -> None:
        """Re-prove the identity right before the first tier (raises ``stale_process``, ...)."""
        ...

    def prefers_pointer(self, node: N) -> bool:
        """Whether a left click on ``node`` must be a real click (a text entry), skipping the AX tiers."""
        ...

    def select_row(self, node: N) -> Outcome:
        """Tier 1: select the row ``node`` is (or is in) in its list; ``refused`` when there is none."""
        ...

    def press_action(self, node: N) -> A | None:
        """The press action ``node`` offers (the backend's first by preference), None without one."""
        ...

    def menu_action(self, node: N) -> A | None:
        """The action that opens ``node``'s context menu, None without one."""
        ...

    def perform(self, node: N, action: A) -> Outcome:
        """Perform ``action`` on ``node`` once."""
        ...

    def children(self, node: N) -> Sequence[N]: ...

    def hit_test(self, node: N, at: Point) -> N | None:
        """The element at ``at`` (global), None when none answers."""
        ...


class PointerPrimitives(Protocol):
    """The synthetic click's two bursts; each passes the backend's gate right before it posts."""

    def hover(self, at: Point) -> None:
        """Post the pre-click hover: one motion to ``at``."""
        ...

    def click(self, at: Point, button: Button, count: int) -> None:
        """Post the click pairs at ``at`` (``core.pointer.click_events``)."""
        ...


class FocusPrimitives(Protocol[N_contra]):
    """What ``ensure_focus`` needs: whether an element takes keys, has the focus, and taking it."""

    def takes_keys(self, node: N_contra) -> bool:
        """Whether ``node`` is one a click must leave the keyboard focus in (focusable text)."""
        ...

    def focused(self, node: N_contra) -> bool:
        """Whether ``node`` has the keyboard focus once the app handled what was sent before."""
        ...

    def grab_focus(self, node: N_contra) -> bool:
        """Ask the app to move the keyboard focus to ``node``; False when it refused."""
        ...


def _unknown(step: str) -> NativeError:
    return NativeError("ax_failed", f"{step}: {UNKNOWN_MESSAGE}", dispatched=None)


def _part_way(i: int, count: int) -> NativeError:
    return NativeError(  # some presses ran: never replay them in another tier
        "ax_failed",
        f"Press {i + 1} of {count} failed after {i} succeeded; observe the app before retrying.",
        dispatched=None,
    )


def press_repeat(
    el: ElementPrimitives[N, A], node: N, action: A, count: int, *, sleep: Callable[[float], None] = time.sleep
) -> bool:
    """Press ``count`` times, ``AX_PRESS_REPEAT_S`` apart; False when the first press was refused.

    Raises ``ax_failed`` (``dispatched=None``) when a later press fails in any way, or when any
    press has an unknown outcome.
    """
    for i in range(count):
        if i:
            sleep(AX_PRESS_REPEAT_S)
        try:
            outcome = el.perform(node, action)
        except NativeError as err:
            if i == 0:
                raise
            raise _part_way(i, count) from err
        if outcome == "done":
            continue
        if outcome == "unknown":
            raise _unknown(f"Press {i + 1} of {count}")
        if i == 0:
            return False  # nothing happened: the next tier may try
        raise _part_way(i, count)
    return True


def _press(el: ElementPrimitives[N, A], node: N, count: int, sleep: Callable[[float], None]) -> A | None:
    action = el.press_action(node)
    if action is not None and press_repeat(el, node, action, count, sleep=sleep):
        return action
    return None


def _descendant(el: ElementPrimitives[N, A], node: N, count: int, sleep: Callable[[float], None]) -> A | None:
    level = list(el.children(node))
    for _ in range(DESCENDANT_DEPTH):
        for child in level:
            action = _press(el, child, count, sleep)
            if action is not None:
                return action
        level = [g for child in level for g in el.children(child)]
    return None


def click_element(
    el: ElementPrimitives[N, A],
    pointer: PointerPrimitives,
    node: N,
    frame: Rect | None,
    *,
    button: Button,
    count: int,
    sleep: Callable[[float], None] = time.sleep,
    reframe: Callable[[], Rect | None] | None = None,
) -> Clicked:
    """Run the tiers for one element (module docstring); the backend turns the result into its reply.

    ``reframe`` reads the element's frame again after the pre-click hover (``synthetic_click``)."""
    if button == "right":
        el.authorize()
        action = el.menu_action(node)
        if action is not None and press_repeat(el, node, action, 1, sleep=sleep):
            return Clicked("action", action)
    elif button == "left" and not el.prefers_pointer(node):
        el.authorize()
        if count == 1:
            row = el.select_row(node)
            if row == "unknown":
                raise _unknown("Selecting the row")
            if row == "done":
                return Clicked("select_row")
        action = _press(el, node, count, sleep)
        if action is not None:
            return Clicked("action", action)
        action = _descendant(el, node, count, sleep)
        if action is not None:
            return Clicked("descendant_action", action)
        if frame is not None:
            hit = el.hit_test(node, frame.center)
            if hit is not None and hit != node:
                action = _press(el, hit, count, sleep)
                if action is not None:
                    return Clicked("hit_test", action)
    if frame is None:
        raise NativeError("no_action", "The element has no action and no frame to click.", dispatched=False)
    at = synthetic_click(pointer, frame.center, button, count, sleep=sleep, reframe=reframe)
    return Clicked("synthetic", point=at)


def synthetic_click(
    pointer: PointerPrimitives,
    at: Point,
    button: Button,
    count: int,
    *,
    sleep: Callable[[float], None] = time.sleep,
    reframe: Callable[[], Rect | None] | None = None,
) -> Point:
    """The pre-click hover, the ``PRE_CLICK_HOVER_S`` pause, then the click pairs (6.3 steps 3-5);
    the point clicked.

    With ``reframe`` (an element's click), the element's frame is read again after the hover: an
    app may place its elements anew only once the pointer is over its window (LibreOffice reports
    its cells 25 px too high until the first pointer event reaches a new window), and a frame that
    moved is clicked where it is now, after a hover there."""
    pointer.hover(at)
    sleep(PRE_CLICK_HOVER_S)
    now = reframe() if reframe is not None else None
    if now is not None and now.width > 0 and now.height > 0 and now.center != at:
        at = now.center
        pointer.hover(at)
        sleep(PRE_CLICK_HOVER_S)
    pointer.click(at, button, count)
    return at


def ensure_focus(
    el: FocusPrimitives[N],
    pointer: PointerPrimitives,
    node: N,
    frame: Rect | None,
    clicked: Clicked,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> Clicked:
    """After a left click by an accessibility tier on an element that takes keys: when the focus
    is not there, grab it, then click for real (module docstring). Returns how the click ended."""
    if clicked.route == "synthetic" or not el.takes_keys(node) or el.focused(node):
        return clicked
    if el.grab_focus(node) and el.focused(node):
        return Clicked("grab_focus", clicked.action)
    if frame is None:
        return Clicked(clicked.route, clicked.action, clicked.point, focus_missed=True)
    synthetic_click(pointer, frame.center, "left", 1, sleep=sleep)
    return Clicked("synthetic", clicked.action, frame.center, focus_missed=not el.focused(node))
