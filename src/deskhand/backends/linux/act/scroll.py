"""Scrolling on Linux: pixel-exact through a scroll bar's AT-SPI Value, else wheel buttons 4-7.

Written once for every display server against ``act.seam.ActSession`` (its ``wheel`` is the only
input it sends). An element scroll first moves the nearest scroll bar along the axis by the core's delta
(``core.scroll.plan_indexed``) and reports the achieved distance; without a usable bar, and for a
scroll at a point, the wheel goes to the plan's point after the gate. X wheels have no pixel
unit: the app decides the distance per notch, so a wheel scroll is measured on the content
(``act.scroll_witness``) and converged to the request; it is exact only when the measured distance is
the request and held still.
``page_scroll`` is the page-scroll secondary action (``act.values``).
"""

from __future__ import annotations

import logging
from typing import Final

from deskhand.backends.base import ActionResult, Direction, Handle, RunningApp
from deskhand.backends.linux.act.scroll_witness import Converged, converge, find_witness
from deskhand.backends.linux.act.seam import ActSession
from deskhand.backends.linux.act.session import not_dispatched
from deskhand.backends.linux.atspi.element import Ref
from deskhand.backends.linux.atspi.enums import Role
from deskhand.core import effects
from deskhand.core import scroll as corescroll
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

__all__ = ("Scrolling",)

_log = logging.getLogger(__name__)

#: One wheel notch per this many pixels, the step GTK3 uses for a 210-point page (pow(page, 2/3)):
#: the estimate when nothing under the point can be measured.
WHEEL_NOTCH_PX: Final = 53
#: The first batch assumes this many pixels a notch, more than any app measured (browsers
#: scroll 100-120 px), so it falls short and the rest is sent at the measured step.
FIRST_NOTCH_PX: Final = 150


class Scrolling:
    """Scroll for one session (the caller holds ``session.lock``)."""

    def __init__(self, session: ActSession) -> None:
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
        """Wheel notches (X buttons 4-7, Wayland axis steps) at the plan's point, measured and
        converged (module docstring).

        X wheels have no pixel unit: the app decides the step (GTK about 53 px at a 210 px page,
        the browsers 100-120 px). So a first batch at ``FIRST_NOTCH_PX`` a notch goes first, the
        content under the point is measured (``act.scroll_witness``), and the rest is sent at the
        measured step and measured again until the achieved distance is within half a notch of
        the request (or the content stops moving: its end); a last reading must agree. Without
        anything to measure, the notches are estimated at ``WHEEL_NOTCH_PX`` and the outcome is
        unverifiable.
        """
        vertical = direction in ("up", "down")
        amount = abs(plan.delta.dy if vertical else plan.delta.dx)
        requested = [plan.delta.dx, plan.delta.dy]
        witness = find_witness(self._s, app, plan.point, ref, direction)
        if witness is None:
            clicks = max(1, round(amount / WHEEL_NOTCH_PX))  # at least one notch
            self._s.wheel(app, plan.point, direction, clicks)
            return ActionResult(
                {"route": "wheel", "requested": requested, "clicks": clicks, "exact": False},
                effects.judge("wheel", []),
            )
        back = corescroll.OPPOSITE[direction]

        def wheel(n: int) -> None:
            self._s.wheel(app, plan.point, direction if n > 0 else back, abs(n))

        done = converge(wheel, witness, amount, max(1, amount // FIRST_NOTCH_PX))
        _log.debug("wheel: %d notches moved %d of %d (stable: %s)", done.notches, done.moved, amount, done.stable)
        return self._measured(requested, amount, done, direction)

    def _measured(self, requested: list[int], amount: int, done: Converged, direction: Direction) -> ActionResult:
        """The result of a measured wheel scroll: confirmed only when the last two readings agreed
        and the distance is within half a notch of the request; the achieved pixels either way."""
        moved = done.moved
        vertical = direction in ("up", "down")
        sign = -1 if direction in ("down", "right") else 1
        achieved = [0, sign * moved] if vertical else [sign * moved, 0]
        detail = f"the content moved {moved} px of {amount} px ({done.notches} notches)"
        if not done.stable:
            detail += "; it was still moving when last measured"
        seen = (effects.Evidence("scroll_measured", detail),)
        measured: dict[str, object] = {"achieved": achieved}
        if moved > 0 and done.stable and abs(amount - moved) <= done.per / 2 + 1:
            outcome = effects.Outcome("confirmed", "wheel", seen, measured)
        elif moved > 0:
            outcome = effects.Outcome("partial", "wheel", seen, measured)
        else:
            outcome = effects.Outcome("suspected_noop", "wheel", seen, measured)
        exact = done.stable and moved == amount
        return ActionResult(
            {"route": "wheel", "requested": requested, "achieved": achieved, "clicks": done.notches, "exact": exact},
            outcome,
        )
