"""Pointer input on X11: clicks at a point, synthetic clicks, drags, posted through XTest.

Every gesture is the core's event list (``core.pointer``) posted as one burst after the session's
gate (``_session``); a first motion to its start is added only when the pointer is elsewhere.

What a drag guarantees, and where (contract 6.4: press, three motions, release, in order and at
their points in the app). On deskhand's own desktop openbox runs with ``desktop/_openbox.py``'s
configuration, which grabs no button on client windows: the five events are one burst, flushed
once, with no wait. On a desktop we do not own, the window manager may grab presses
synchronously (stock openbox does on every client window; others on unfocused ones), freezing
the pointer until it replays the press, and motions posted during the freeze reach the app at the
final position. The gate therefore probes, in the same round trip as its other checks, whether
another client grabs the drag's button on the window or its frame (``_grabs.GrabProbe``); only
then the burst is split after the press and waits for the manager to answer a no-op configure
request (``_grabs.ReplayWaiter``, typically about 1 ms; at most ``_grabs.REPLAY_TIMEOUT_S``, after
which the motions are posted anyway and the path may be lost). Clicks need no wait: a freeze only
delays a press and its release, it keeps their order and place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Final

from deskhand.backends.base import ActionResult, MouseButton, RunningApp
from deskhand.backends.linux._input import PointerState
from deskhand.backends.linux._session import LinuxSession
from deskhand.core import pointer as corepointer
from deskhand.core.geometry import Point

__all__ = ("Pointer",)

#: Server-side delay before each later press of a multi-click (``_pointer_events``).
MULTI_CLICK_DELAY_MS: Final = 1


class Pointer:
    """Clicks and drags for one session (the caller holds ``session.lock``)."""

    def __init__(self, session: LinuxSession) -> None:
        self._s = session

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], button: MouseButton
    ) -> ActionResult:
        s = self._s
        gate = s.gate(app, points=(start, end), button=corepointer.X_BUTTONS[button])
        a, b = gate.points
        events = corepointer.drag_events(a, b, button, s.numbers)
        self._pointer_events(events, gate.pointer, grabbed_by_wm=gate.window if gate.grabbed else None)
        return ActionResult("Dragged.", {"from": [a.x, a.y], "to": [b.x, b.y], "events": len(events)})

    def click_point(self, app: RunningApp, point: tuple[float, float], button: MouseButton, count: int) -> ActionResult:
        """A click at screenshot pixels of the latest observation."""
        gate = self._s.gate(app, points=(point,))
        return self._post_click(gate.points[0], gate.pointer, button, count, route="coordinates")

    def synthetic_click(self, app: RunningApp, at: Point, button: MouseButton, count: int, route: str) -> ActionResult:
        """A click at root coordinates (an element's centre) after the gate."""
        gate = self._s.gate(app)
        return self._post_click(at, gate.pointer, button, count, route)

    def _post_click(self, at: Point, here: PointerState, button: MouseButton, count: int, route: str) -> ActionResult:
        events = corepointer.click_events(at, button, count, self._s.numbers)
        self._pointer_events(events, here)
        return ActionResult("Clicked.", {"route": route, "point": [at.x, at.y], "button": button, "count": count})

    def _pointer_events(
        self, events: Sequence[corepointer.PointerEvent], here: PointerState, *, grabbed_by_wm: int | None = None
    ) -> None:
        """Post a gesture; a first motion to its start only when the pointer (``here``) is elsewhere.

        ``grabbed_by_wm``: the window a manager's synchronous grab covers (``Gate.grabbed``); a
        motion after a press then waits until the manager has replayed the press (``_grabs``).
        """
        inp = self._s.input
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
        self._s.post(steps)

    def _await_replay(self, window: int) -> None:
        """After a grabbed press: flush it, then wait until the manager replayed it to the app."""
        self._s.input.flush()
        self._s.replay_waiter().wait(window)
