"""Pointer input on X11: clicks at a point, synthetic clicks, drags, posted through XTest.

Every gesture is the core's event list (``core.pointer``) posted as one burst after the session's
gate (``act.session``); a first motion to its start is added only when the pointer is elsewhere.

A click (at a point, or the synthetic tier of an element click) is ``core.clicktiers``'s
synthetic click over ``Bursts``: the pre-click hover (a motion to the point, when the pointer is
elsewhere) as its own burst, the contract's ``PRE_CLICK_HOVER_S`` pause (6.3 step 3, 6.12), then a
second gate (same window) and the click pairs. On X11 the hover's motion would reach the app
before the press even in one burst; the pause, as on macOS, lets the app handle the pointer's
arrival (enter, prelight, hover-dependent widgets) before the press, for 10 ms per click.

What a drag guarantees, and where (contract 6.4: press, three motions, release, in order and at
their points in the app). On deskhand's own desktop openbox runs with ``desktop/_openbox.py``'s
configuration, which grabs no button on client windows: the five events are one burst, flushed
once, with no wait. On a desktop we do not own, the window manager may grab presses
synchronously (stock openbox does on every client window; others on unfocused ones), freezing
the pointer until it replays the press, and motions posted during the freeze reach the app at the
final position. The gate therefore probes, in the same round trip as its other checks, whether
another client grabs the drag's button on the window or its frame (``x11.grabs.GrabProbe``); only
then the burst is split after the press and waits for the manager to answer a no-op configure
request (``x11.grabs.ReplayWaiter``, typically about 1 ms; at most ``x11.grabs.REPLAY_TIMEOUT_S``, after
which the motions are posted anyway and the path may be lost). Clicks need no wait: a freeze only
delays a press and its release, it keeps their order and place.

Drag-and-drop (a Linux addition to 6.4, same five events in the same order): a toolkit starts an
XDND session on the motion past its threshold, and drops on the release only once the target
has answered the motion over it with ``XdndStatus``; a release in the same burst comes too early
and the drag is cancelled (Thunar only selects the file). So the drag is posted in three parts:
press and the motions to the origin and the midpoint; then, if ``XdndSelection`` gets an owner
(``x11.xdnd.XdndWatch``; at most ``DND_START_S``, less once the app answered a ping without one),
the motion to the destination and a wait for the target's answer (its ``XdndStatus`` seen
through RECORD, or the source's drag cursor change; at most ``DND_FIRST_STATUS_S``). GTK
sends its first ``XdndPosition`` only on the motion after the one that found the target, so
without an answer the pointer moves one pixel off the destination and back, and the wait goes on
(at most ``DND_STATUS_S``); then the release, at the destination. The five events keep their
order and points; only these two motions, inside the destination, are added. Without a session
the rest follows at once.

That wait costs a drag at least ``x11.xdnd.AFTER_PING_S`` (an app may answer a ping before its
toolkit has handled the last motion: GTK 3 holds it back until its next frame), so it is cut
where it cannot matter:

* no drop can happen, so the drag is one burst: the app's toolkit never starts an XDND session
  (``NO_XDND_SOURCE``: Tk without tkdnd, SDL, Xaw, Xt/Motif), or the top-level window under the
  release is the app's own and has neither ``XdndAware`` nor ``XdndProxy``
  (``x11.gate.WindowProbe.accepts_drops``, asked in the gate's round trip; an XDND source drops
  nowhere else, so a session there would end without a drop either way);
* no drag began, in a GTK 3 app (``FENCED``): the press and first motions are followed by a
  fenced ping (``x11.input.AppPing``: answered only after GTK has handled them). GTK begins a drag
  inside that motion's handler, grabbing the pointer with its drag cursor, so a fence answered
  with no cursor change and no ``XdndSelection`` owner means no drag began, and the rest follows
  at once (a cursor change for any other reason only keeps the wait). The fence goes out on the
  input's own connection behind the first part (``XInput.fence``), so that part is flushed
  without a round trip: the answer is the proof the server processed it.

Other toolkits keep the timed wait.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Final

from deskhand.backends.base import ActionResult, MouseButton, RunningApp
from deskhand.backends.linux import procfs
from deskhand.backends.linux.act.session import Gate, LinuxSession
from deskhand.backends.linux.display import DragWatch
from deskhand.backends.linux.x11.input import PointerState
from deskhand.backends.linux.x11.xdnd import XdndWatch
from deskhand.core import clicktiers, effects
from deskhand.core import pointer as corepointer
from deskhand.core.geometry import Point

__all__ = ("Bursts", "Pointer")

#: Server-side delay before each later press of a multi-click (``Pointer.post_events``).
MULTI_CLICK_DELAY_MS: Final = 1
#: How long a drag waits for an XDND session to start, and then for the target's answer.
DND_START_S: Final = 0.5
DND_FIRST_STATUS_S: Final = 0.3
DND_STATUS_S: Final = 1.0
#: Events of the drag posted before the XDND check: press, motion at the origin, at the midpoint.
DND_FIRST_PART: Final = 3
#: Toolkits (``procfs.toolkit``) that never start an XDND session: Tk (unless the tkdnd
#: extension is loaded), SDL, Xaw, and Xt/Motif (whose drags use the Motif protocol).
NO_XDND_SOURCE: Final = frozenset({"tk", "sdl1", "sdl2", "xaw", "xt"})
#: Toolkits whose apps answer a fenced ping only after handling the input before it (module docstring).
FENCED: Final = frozenset({"gtk3"})


class Bursts:
    """``core.clicktiers.PointerPrimitives``: the hover and the click, each right after a gate.

    The click's gate also proves the window is still the hover's (``target_window_changed``).
    """

    def __init__(self, pointer: Pointer, app: RunningApp, gate: Gate | None) -> None:
        self._pointer = pointer
        self._app = app
        self._gate = gate

    @property
    def window(self) -> int | None:
        """The window the hover's gate proved (None before the hover)."""
        return self._gate.window if self._gate is not None else None

    def hover(self, at: Point) -> None:
        s = self._pointer.session
        gate = self._gate or s.gate(self._app)
        self._gate = gate
        here = gate.pointer
        if (here.x, here.y) != (round(at.x), round(at.y)):
            s.post([lambda: s.input.move(at.x, at.y)])

    def click(self, at: Point, button: MouseButton, count: int) -> None:
        s = self._pointer.session
        gate = s.gate(self._app, self._gate.window if self._gate is not None else None)
        events = corepointer.click_events(at, button, count, s.numbers)
        self._pointer.post_events(events, gate.pointer)


class Pointer:
    """Clicks and drags for one session (the caller holds ``session.lock``)."""

    def __init__(self, session: LinuxSession) -> None:
        self._s = session
        self._xdnd: DragWatch | None = None

    @property
    def session(self) -> LinuxSession:
        return self._s

    def close(self) -> None:
        if self._xdnd is not None:
            self._xdnd.close()
            self._xdnd = None

    def _watch(self) -> DragWatch | None:
        if self._xdnd is None:
            try:
                self._xdnd = XdndWatch(self._s.d.get_display_name())
            except Exception:  # no XFixes or no connection: drags go unwatched
                return None
        return self._xdnd if self._xdnd.available else None

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], button: MouseButton
    ) -> ActionResult:
        s = self._s
        source = self._may_source(app)
        gate = s.gate(app, points=(start, end), button=corepointer.X_BUTTONS[button], drop_probe=source)
        a, b = gate.points
        events = corepointer.drag_events(a, b, button, s.numbers)
        grabbed = gate.window if gate.grabbed else None
        structured: dict[str, object] = {"from": [a.x, a.y], "to": [b.x, b.y], "events": len(events)}
        watch = self._watch() if source and gate.drops else None
        if watch is None:
            self.post_events(events, gate.pointer, grabbed_by_wm=grabbed)
            return ActionResult(structured, effects.judge("synthetic_events", []))
        watch.reset()
        first, rest = events[:DND_FIRST_PART], events[DND_FIRST_PART:]
        fence = gate.window if procfs.toolkit_of(app.identity) in FENCED else None
        fenced = self.post_events(first, gate.pointer, grabbed_by_wm=grabbed, fence=fence)
        try:
            started = False
            if not self._no_drag_began(fenced, watch):
                s.input.flush()  # the first part processed before a ping on another connection
                started = watch.wait_started(DND_START_S, done=self._answered_ping(gate.window))
            seen: list[effects.Evidence] = []
            status = False
            before = (0, 0)
            if started:
                seen.append(effects.Evidence("event_receipt", "the source started an XDND session"))
                watch.record()
                before = watch.answers()
                self._post_rest(rest[:-1])
                status = watch.wait_answer(before, DND_FIRST_STATUS_S)
                if not status:
                    # GTK answers the target only from the motion after the one that found it
                    self._nudge(rest[-2].point)
                    status = watch.wait_answer(before, DND_STATUS_S)
                if status:
                    seen.append(effects.Evidence("event_receipt", _answer(watch, before)))
                rest = rest[-1:]
        finally:
            try:
                self._post_rest(rest)  # the release always goes out: never leave the button pressed
            finally:
                watch.stop_recording()
        xdnd: dict[str, object] = {"started": started, "status_seen": status}
        if status and watch.status_seen_since(before):
            xdnd["accepted"] = watch.accepted()
        structured["xdnd"] = xdnd
        return ActionResult(structured, effects.judge("synthetic_events", seen))

    def _no_drag_began(self, fenced: int | None, watch: DragWatch) -> bool:
        """True once the fenced ping ``fenced`` (``post_events``) proves the app handled the drag's
        first part without beginning a drag (``FENCED`` toolkits; module docstring); False when
        unknown (no fence, no answer in time, or a drag began)."""
        if fenced is None:
            return False
        answered = self._s.input.fence_answered(DND_START_S)
        return answered and watch.answers()[1] == 0 and not watch.wait_started(0.0)

    def _may_source(self, app: RunningApp) -> bool:
        """Whether the app's toolkit could start an XDND session at all (module docstring); where
        it could drop is the gate's ``drops`` (the same round trip as the gate's probe)."""
        kit = procfs.toolkit_of(app.identity)
        return kit not in NO_XDND_SOURCE or (kit == "tk" and procfs.maps_library(app.pid, "libtkdnd"))

    def _answered_ping(self, window: int) -> Callable[[], bool] | None:
        """A check that the app has handled the input so far (one ping), or None without pings."""
        pinger = self._s.pinger()
        token = pinger.send(window)
        if token is None:
            return None

        def done() -> bool:
            if pinger.answered(token):
                pinger.forget(token)
                return True
            return False

        return done

    def _nudge(self, at: Point) -> None:
        """One pixel off the destination and back: motions that end where the drag ends."""
        inp = self._s.input
        self._s.post([partial(inp.move, at.x + 1, at.y), partial(inp.move, at.x, at.y)])

    def _post_rest(self, events: Sequence[corepointer.PointerEvent]) -> None:
        """The drag's later events as they are, in order (the pointer is already on the path)."""
        inp = self._s.input
        steps: list[Callable[[], None]] = []
        for ev in events:
            if ev.kind == "up":
                steps.append(partial(inp.button_up, corepointer.X_BUTTONS[ev.button]))
            else:
                steps.append(partial(inp.move, ev.point.x, ev.point.y))
        if steps:
            self._s.post(steps)

    def click_point(self, app: RunningApp, point: tuple[float, float], button: MouseButton, count: int) -> ActionResult:
        """A synthetic click at screenshot pixels of the latest observation (``core.clicktiers``)."""
        gate = self._s.gate(app, points=(point,))
        at = gate.points[0]
        clicktiers.synthetic_click(self.bursts(app, gate), at, button, count)
        return ActionResult({"route": "coordinates", "point": [at.x, at.y], "button": button, "count": count})

    def bursts(self, app: RunningApp, gate: Gate | None = None) -> Bursts:
        """The synthetic click's primitives for ``app`` (``gate``: one just passed, used by the hover)."""
        return Bursts(self, app, gate)

    def post_events(
        self,
        events: Sequence[corepointer.PointerEvent],
        here: PointerState,
        *,
        grabbed_by_wm: int | None = None,
        fence: int | None = None,
    ) -> int | None:
        """Post a gesture; a first motion to its start only when the pointer (``here``) is elsewhere.

        ``grabbed_by_wm``: the window a manager's synchronous grab covers (``Gate.grabbed``); a
        motion after a press then waits until the manager has replayed the press (``x11.grabs``).
        ``fence``: a window whose app gets a fenced ping behind the gesture (``XInput.fence``);
        returns its token (None without one), and the gesture is flushed without a round trip.
        """
        inp = self._s.input
        if fence is not None:
            inp.drop_events()
        steps: list[Callable[[], None]] = []
        start = events[0].point
        if (here.x, here.y) != (round(start.x), round(start.y)):
            steps.append(lambda: inp.move(start.x, start.y))
        pressed = False
        for ev in events:
            button = corepointer.X_BUTTONS[ev.button]
            if ev.kind == "down":
                # A later press of a multi-click goes out one millisecond after the previous one,
                # held by the server (see ``XInput.button_down``): the events of a burst otherwise
                # share one timestamp, and Qt 6 does not count a press stamped with its
                # predecessor's millisecond as the next click (no double click at all).
                delay = MULTI_CLICK_DELAY_MS if ev.click_state > 1 else 0
                steps.append(partial(inp.button_down, button, delay_ms=delay))
                pressed = True
            elif ev.kind == "up":
                steps.append(partial(inp.button_up, button))
            else:
                if pressed and grabbed_by_wm is not None:
                    steps.append(partial(self._await_replay, grabbed_by_wm))
                pressed = False
                steps.append(partial(inp.move, ev.point.x, ev.point.y))
        token: int | None = None
        if fence is not None:

            def queue_fence() -> None:
                nonlocal token
                token = inp.fence(self._s.pinger(), fence)

            steps.append(queue_fence)
        self._s.post(steps)
        return token

    def _await_replay(self, window: int) -> None:
        """After a grabbed press: flush it, then wait until the manager replayed it to the app."""
        self._s.input.flush()
        self._s.replay_waiter().wait(window)


def _answer(watch: DragWatch, since: tuple[int, int]) -> str:
    if not watch.status_seen_since(since):
        return "the target answered (the drag cursor changed)"
    return f"the target answered with XdndStatus ({'accepts' if watch.accepted() else 'refuses'} the drop)"
