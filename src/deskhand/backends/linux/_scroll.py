"""Scrolling on Linux: pixel-exact through a scroll bar's AT-SPI Value, else wheel buttons 4-7.

An element scroll first moves the nearest scroll bar along the axis by the core's delta
(``core.scroll.plan_indexed``) and reports the achieved distance; without a usable bar, and for a
scroll at a point, the wheel goes to the plan's point after the gate. X wheels have no pixel
unit: the app decides the distance per notch, so a wheel scroll is never reported exact.
``page_scroll`` is the page-scroll secondary action (``_values``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Final

from deskhand.backends.base import ActionResult, Direction, Handle, RunningApp
from deskhand.backends.linux._a11y_act import A11y, Ref
from deskhand.backends.linux._atspi import ROOT_PATH, Deadline
from deskhand.backends.linux._atspi_enums import Role, role_set
from deskhand.backends.linux._session import LinuxSession, not_dispatched
from deskhand.core import effects
from deskhand.core import scroll as corescroll
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect

__all__ = ("Scrolling",)

_log = logging.getLogger(__name__)

#: One wheel notch per this many pixels, the step GTK3 uses for a 210-point page (pow(page, 2/3)):
#: the estimate when nothing under the point can be measured.
WHEEL_NOTCH_PX: Final = 53
#: Batches of notches after the first one, measuring after each (the first one measures the step).
MAX_BATCHES: Final = 5
#: A measured notch is taken as at least this many pixels (a first read caught mid-animation
#: must not turn into hundreds of notches).
MIN_NOTCH_PX: Final = 20
#: How deep the element under the point is looked for; without hit-testing, how deep and how
#: many elements are searched for the web document (document frame, document web).
WITNESS_DEPTH: Final = 25
WITNESS_SEARCH_DEPTH: Final = 8
WITNESS_SEARCH_NODES: Final = 400
DOCUMENT_ROLES: Final = role_set(Role.DOCUMENT_FRAME, Role.DOCUMENT_WEB)
#: The measured position: polled this often, settled once unchanged this long after it moved, given
#: up as not moving after this long unchanged, and never waited on longer than the last.
SETTLE_POLL_S: Final = 0.015
SETTLE_QUIET_S: Final = 0.5
SETTLE_FIRST_MOVE_S: Final = 0.9
SETTLE_MAX_S: Final = 2.5
#: The first batch assumes this many pixels a notch, more than any app measured (browsers
#: scroll 100-120 px), so it falls short and the rest is sent at the measured step.
FIRST_NOTCH_PX: Final = 150


class Scrolling:
    """Scroll for one session (the caller holds ``session.lock``)."""

    def __init__(self, session: LinuxSession) -> None:
        self._s = session

    def scroll(
        self,
        app: RunningApp,
        *,
        direction: Direction,
        pages: float,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult:
        s = self._s
        if element is not None:
            el, ref = s.ref(app, element)
            if el.frame is None:
                raise NativeError("no_action", "The element has no frame to scroll.", dispatched=False)
            plan = corescroll.plan_indexed(direction, pages, el.frame)
            ref_or_none: Ref | None = ref
            exact = self.scroll_by_value(app, ref, direction, plan.delta)
            if exact is not None:
                return exact
        elif point is not None:
            at = s.to_global(app, point)
            frame = s.window_frame(app)
            plan = corescroll.plan_at_point(direction, pages, at, frame)
            ref_or_none = None
        else:
            raise NativeError("bad_payload", "scroll needs an element or a point.", dispatched=False)
        return self.scroll_wheel(app, plan, direction, ref_or_none)

    def page_scroll(self, app: RunningApp, ref: Ref, frame: Rect | None, raw: str) -> ActionResult:
        """A page-scroll action: the element's own scroll bar along the axis moves by one page.

        macOS presses the bar's page button (``PAGE_SCROLL_ACTIONS``); AT-SPI bars have no page
        buttons, so the bar's Value moves by what a page button moves it: the scroll area's
        visible extent along the axis, read from its viewport (GTK's adjustment page size and
        Qt's page step equal it; neither is exposed, and ``Value.MinimumIncrement`` is a step,
        not a page). The result reports the requested and achieved deltas as ``scroll`` does.
        Only when the element has no such bar (or no viewport) now does it fall back to scrolling
        the element itself by one page with the wheel at its centre.
        """
        direction = corescroll.PAGE_SCROLL_ACTIONS[raw].direction
        vertical = direction in ("up", "down")
        extent = self._visible_extent(ref, vertical)
        if extent is not None:
            delta = corescroll.scroll_delta(direction, 1.0, extent)
            done = self.scroll_by_value(app, ref, direction, delta, hops=1)
            if done is not None:
                return ActionResult({"action": raw, **done.structured})
        if frame is None:
            raise not_dispatched("no_action", "The element has no scroll bar and no frame to scroll.")
        done = self.scroll_wheel(app, corescroll.plan_indexed(direction, 1.0, frame), direction)
        return ActionResult({"action": raw, **done.structured})

    def _visible_extent(self, ref: Ref, vertical: bool) -> int | None:
        """The height (or width) of a scroll area's viewport: its first child with a frame that is
        neither a scroll bar nor a filler around one (Qt's bar containers)."""
        a11y = self._s.a11y
        for child in a11y.children(ref):
            role = a11y.role(child)
            if role == Role.SCROLL_BAR:
                continue
            if role == Role.FILLER and any(a11y.role(g) == Role.SCROLL_BAR for g in a11y.children(child)):
                continue
            ext = a11y.extents(child)
            if ext is not None and ext[2] > 0 and ext[3] > 0:
                return ext[3] if vertical else ext[2]
        return None

    def scroll_by_value(
        self, app: RunningApp, ref: Ref, direction: Direction, delta: corescroll.ScrollDelta, *, hops: int = 3
    ) -> ActionResult | None:
        """Pixel-exact: move the scroll pane's bar by the delta through its AT-SPI Value.

        A GTK scroll pane's bar counts pixels. A container of another role with scroll bar children
        (Qt's scroll areas are fillers) may count rows or lines, so there the achieved delta is
        what a content child moved on screen, and the result is exact only when that equals the
        bar's change and the request.
        """
        a11y = self._s.a11y
        vertical = direction in ("up", "down")
        found = self._scroll_bar(ref, vertical, hops)
        if found is None:
            return None
        bar, witness = found
        value = a11y.value(bar)
        if value is None:
            return None
        current, low, high = value
        step = -(delta.dy if vertical else delta.dx)  # the contract's sign: negative is down/right
        target = min(max(current + step, low), high)
        axis = 1 if vertical else 0
        before = a11y.extents(witness) if witness is not None else None
        self._s.verify_identity(app)
        if not a11y.set_value(bar, target):
            raise NativeError("ax_failed", "The scroll bar did not accept the new value.", dispatched=None)
        after = a11y.value(bar)
        changed = round((after[0] if after else target) - current)
        moved = changed
        if witness is not None:
            now = a11y.extents(witness)
            moved = before[axis] - now[axis] if before is not None and now is not None else 0
        exact = moved == changed and (changed == round(step) or target != current + step)
        dx, dy = (0, -moved) if vertical else (-moved, 0)
        return ActionResult(
            {"route": "scroll_bar_value", "requested": [delta.dx, delta.dy], "achieved": [dx, dy], "exact": exact},
        )

    def _scroll_bar(self, ref: Ref, vertical: bool, hops: int = 3) -> tuple[Ref, Ref | None] | None:
        """The scroll bar along the axis of ``ref`` or its nearest scrolling ancestor (``ref`` and
        up to ``hops - 1`` ancestors), and a witness.

        A GTK scroll pane holds its bars as children. A Qt scroll area (a filler) holds three
        fillers: the viewport with the content, and one around each bar. The witness is ``None``
        for a scroll pane; otherwise it is a content element whose on-screen move measures the
        scroll (without one the bar is not used and the wheel scrolls).
        """
        a11y = self._s.a11y
        node: Ref | None = ref
        for _ in range(hops):
            if node is None:
                return None
            pane = a11y.role(node) == Role.SCROLL_PANE
            bars: list[Ref] = []
            witness: Ref | None = None
            for child in a11y.children(node):
                role = a11y.role(child)
                if role == Role.SCROLL_BAR:
                    bars.append(child)
                elif pane:
                    continue
                elif role != Role.FILLER:
                    if witness is None and a11y.extents(child) is not None:
                        witness = child
                else:
                    inner = a11y.children(child)
                    inner_bars = [g for g in inner if a11y.role(g) == Role.SCROLL_BAR]
                    bars.extend(inner_bars)
                    if witness is None and not inner_bars:
                        witness = next((g for g in inner if a11y.extents(g) is not None), None)
            for bar in bars:
                ext = a11y.extents(bar)
                if ext is not None and (ext[3] > ext[2]) == vertical:
                    if pane:
                        return bar, None
                    return (bar, witness) if witness is not None else None
            if pane or bars:
                return None
            node = a11y.parent(node)
        return None

    def scroll_wheel(
        self, app: RunningApp, plan: corescroll.ScrollPlan, direction: Direction, ref: Ref | None = None
    ) -> ActionResult:
        """Wheel buttons 4-7 at the plan's point, measured and converged (module docstring).

        X wheels have no pixel unit: the app decides the step (GTK about 53 px at a 210 px page,
        the browsers 100-120 px). So a first batch at ``FIRST_NOTCH_PX`` a notch goes first and
        the content under the point is measured (``_Witness``); the rest of the request is sent
        in notches of the step the last batch measured (at most as many as the first batch at a
        time), measured again, and corrected until the achieved distance is within half a notch
        of the request (or the content stops moving: its end). Without anything to measure, the
        notches are estimated at ``WHEEL_NOTCH_PX`` and the outcome is unverifiable.
        """
        vertical = direction in ("up", "down")
        amount = abs(plan.delta.dy if vertical else plan.delta.dx)
        button = corescroll.X_WHEEL_BUTTONS[direction]
        requested = [plan.delta.dx, plan.delta.dy]
        witness = self._witness(app, plan.point, ref, vertical, direction)
        if witness is None:
            clicks = max(1, round(amount / WHEEL_NOTCH_PX))  # at least one notch
            self._wheel(app, plan.point, button, clicks)
            return ActionResult(
                {"route": "wheel", "requested": requested, "clicks": clicks, "exact": False},
                effects.judge("wheel", []),
            )
        back = corescroll.X_WHEEL_BUTTONS[corescroll.OPPOSITE[direction]]
        net = max(1, amount // FIRST_NOTCH_PX)
        cap = max(2, net)
        self._wheel(app, plan.point, button, net)
        moved = witness.settled()
        _log.debug("wheel: first %d notches moved %d of %d", net, moved, amount)
        per: float = abs(moved) / net
        for _ in range(MAX_BATCHES):
            if per == 0:
                break
            more = corescroll.round_half_away((amount - moved) / max(per, MIN_NOTCH_PX))
            more = max(-cap, min(cap, more))  # a measurement caught mid-jump must not run away
            if more == 0:
                break
            self._wheel(app, plan.point, button if more > 0 else back, abs(more))
            net += more
            now = witness.settled()
            _log.debug("wheel: %d more notches, moved %d -> %d", more, moved, now)
            if now == moved:
                break  # the content stopped: its end, or nothing more to scroll
            per = abs(now - moved) / abs(more)  # the step as this batch measured it
            moved = now
        return self._measured(requested, (moved, amount, net), per, direction)

    def _measured(
        self,
        requested: list[int],
        counts: tuple[int, int, int],
        per: float,
        direction: Direction,
    ) -> ActionResult:
        """The result of a measured wheel scroll: ``counts`` is (moved, requested, net notches)."""
        moved, amount, net = counts
        vertical = direction in ("up", "down")
        sign = -1 if direction in ("down", "right") else 1
        achieved = [0, sign * moved] if vertical else [sign * moved, 0]
        seen = [effects.Evidence("scroll_measured", f"the content moved {moved} px of {amount} px ({net} notches)")]
        if moved > 0 and abs(amount - moved) <= per / 2 + 1:
            outcome = effects.Outcome("confirmed", "wheel", tuple(seen), {"achieved": achieved})
        elif moved > 0:
            outcome = effects.Outcome("partial", "wheel", tuple(seen), {"achieved": achieved})
        else:
            outcome = effects.Outcome("suspected_noop", "wheel", tuple(seen), {"achieved": achieved})
        return ActionResult(
            {"route": "wheel", "requested": requested, "achieved": achieved, "clicks": net, "exact": moved == amount},
            outcome,
        )

    def _wheel(self, app: RunningApp, at: Point, button: int, clicks: int) -> None:
        s = self._s
        s.gate(app)  # one gate right before each burst; nothing slow happens in between
        steps: list[Callable[[], None]] = []
        here = s.input.pointer()
        if (here.x, here.y) != (round(at.x), round(at.y)):
            steps.append(lambda: s.input.move(at.x, at.y))
        steps.append(lambda: s.input.wheel(button, clicks))
        s.post(steps)

    def _witness(
        self, app: RunningApp, at: Point, ref: Ref | None, vertical: bool, direction: Direction
    ) -> _Witness | None:
        """The deepest element under the point inside ``ref`` (or the app's window there), when
        it is not that start itself: the content that moves as it scrolls."""
        a11y = self._s.a11y
        start = ref if ref is not None else self._window_at(app, at)
        if start is None:
            return None
        node, deepest = start, None
        for _ in range(WITNESS_DEPTH):
            child = a11y.at_point(node, round(at.x), round(at.y))
            if child is None or child == node:
                break
            deepest = node = child
        if deepest is None or a11y.extents(deepest) is None:
            deepest = self._document_child(start, at)
        if deepest is None:
            return None
        return _Witness(a11y, deepest, 1 if vertical else 0, direction in ("down", "right"))

    def _document_child(self, start: Ref, at: Point) -> Ref | None:
        """Where hit-testing finds nothing (Firefox answers it for none of its windows): the web
        document holding the point, breadth first from ``start``, and its child under the point
        (else its first child with a size)."""
        a11y = self._s.a11y
        level, seen = [start], 0
        for _ in range(WITNESS_SEARCH_DEPTH):
            nxt: list[Ref] = []
            for node in level:
                seen += 1
                if seen > WITNESS_SEARCH_NODES:
                    return None
                if a11y.role(node) in DOCUMENT_ROLES:
                    return self._child_under(node, at)
                nxt.extend(a11y.children(node))
            level = nxt
        return None

    def _child_under(self, doc: Ref, at: Point) -> Ref | None:
        a11y = self._s.a11y
        first = None
        for child in a11y.children(doc)[:WITNESS_SEARCH_NODES]:
            ext = a11y.extents(child)
            if ext is None or ext[2] <= 0 or ext[3] <= 0:
                continue
            if ext[0] <= at.x < ext[0] + ext[2] and ext[1] <= at.y < ext[1] + ext[3]:
                return child
            first = first or child
        return first

    def _window_at(self, app: RunningApp, at: Point) -> Ref | None:
        """The app's top-level accessible (frame, dialog) whose extents hold the point."""
        a11y = self._s.a11y
        conn = self._s.observed.atspi
        buses = conn.apps(Deadline(2.0))
        bus = next((b for b, pid in conn.pids(buses, Deadline(2.0)).items() if pid == app.pid), None)
        if bus is None:
            return None
        for top in a11y.children(Ref(bus, ROOT_PATH)):
            ext = a11y.extents(top)
            if ext is not None and ext[0] <= at.x < ext[0] + ext[2] and ext[1] <= at.y < ext[1] + ext[3]:
                return top
        return None


class _Witness:
    """An element of the scrolled content; ``settled`` is how far it has moved along the scroll
    once its position stops changing (apps animate wheel scrolls and move their accessible
    positions a little later)."""

    def __init__(self, a11y: A11y, ref: Ref, axis: int, forward: bool) -> None:
        self._a11y = a11y
        self._ref = ref
        self._axis = axis
        self._sign = 1 if forward else -1
        self._start = self._pos()

    def _pos(self) -> int | None:
        ext = self._a11y.extents(self._ref)
        return ext[self._axis] if ext is not None else None

    def settled(self) -> int:
        """Pixels moved in the scroll's direction since the start, once quiet; 0 if it is gone."""
        start = self._start
        if start is None:
            return 0
        t0 = time.monotonic()
        last = self._pos()
        changed_at = t0
        while True:
            time.sleep(SETTLE_POLL_S)
            now = time.monotonic()
            pos = self._pos()
            if pos != last:
                last, changed_at = pos, now
            quiet = now - changed_at
            # Chromium moves its accessible positions late and in jumps (a pixel or two first, the
            # rest half a second later): a move shorter than a notch is not the scroll yet
            moved_once = last is not None and abs(last - start) >= MIN_NOTCH_PX
            if (moved_once and quiet >= SETTLE_QUIET_S) or quiet >= SETTLE_FIRST_MOVE_S or now - t0 >= SETTLE_MAX_S:
                break
        return 0 if last is None else self._sign * (start - last)
