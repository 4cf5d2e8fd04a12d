"""The input barrier on Linux: before an action, the app has handled the one before (``core.barrier``).

The core decides what to wait for; this module waits for it on one session, X11's or Wayland's
(``act.seam.BarrierSession``: one barrier, the round trip through the app the display server's):

* the round trip (``round_trip``): on X11 a ``_NET_WM_PING`` (behind a fence,
  ``x11.input.AppPing``) to the window the keys go to, answered by the app only after everything
  queued before it (the D-Bus call's own reply came first: its handler ran; what it queued, an
  idle callback or a Qt queued call, runs before the app reads the ping); on Wayland a
  ``wl_display.sync`` on the virtual input's connection, then an accessible getter answered from
  the app's main loop (``act.wl_session.WaylandSession.round_trip`` says what that proves);
* the deferred action: a sleep until ``after_s`` after the previous action was dispatched (the
  toolkit's own timer, not a synchronization: the round trip and the quiet below follow it); a
  text typed through EditableText counts as an entry's (``a11y_entry``) when the element focused
  now is SINGLE_LINE, read only when a next action comes and the toolkit completes entries; so do
  keys typed at once (``typed_entry``: the session's ``typed`` kind, Wayland's typist), else they
  are plain input;
* the action thread's round trip (``loop``, Swing): a state read of the app's first window,
  which java-atk-wrapper answers from the event dispatch thread once what was queued before it
  ran (the press action, its ``doClick`` delay, the handler it called); no answer within the
  barrier's time is ``unsettled``. It decides alone: Swing's dialogs take no ping. Keys are
  queued for that thread by AWT's toolkit thread as it reads them from the X server, so after
  keys to a window without ping the trip shows only what AWT had read by then;
* the refocus, after keys: once the app answered the round trip, a D-Bus round trip to the app on
  the focus watch's own connection (``act.focuswatch.FocusWatch.sync``: the focus events it sent before
  are then read), and while an element of the app lost the focus since the keys were sent and none
  has gained it after, a wait for one that does (``Focus.refocused``); on Wayland first, while
  the app shows a window the compositor does not show yet, a wait for it (``windows_landed``);
* the quiet: the settle's activity watch (``observe.quiet.Activity``) until the app's AT-SPI events and
  drawing have been quiet for ``QUIET_S`` since the previous action; returns at once when nothing
  was seen since then.

Nothing is waited for when the app was observed since the previous action (the observation
settled it), so the first action of a cell after an observation costs nothing. The time left of
the call's deadline bounds every wait; a barrier that gives up lets the action go and marks the
result ``unsettled``.
"""

from __future__ import annotations

import time
from typing import Final

from deskhand.backends.base import ActionResult, RunningApp
from deskhand.backends.linux import procfs
from deskhand.backends.linux.act.focus import Focus
from deskhand.backends.linux.act.seam import BarrierSession
from deskhand.backends.linux.atspi.connection import ROOT_PATH
from deskhand.backends.linux.atspi.element import Ref
from deskhand.backends.linux.atspi.enums import State
from deskhand.core import barrier
from deskhand.core import deadline as call_deadline
from deskhand.core.barrier import Sent
from deskhand.core.errors import NativeError

__all__ = ("Barrier", "sent_by")

#: Linux result routes -> what the action sent (``core.barrier.Sent``); any other route is input.
ROUTE_SENT: Final[dict[str, Sent]] = {
    "select_row": "a11y_action",
    "action": "a11y_action",
    "descendant_action": "a11y_action",
    "hit_test": "a11y_action",
    "grab_focus": "a11y_action",
    "accessible_text": "a11y_entry",
    "scroll_bar_value": "a11y_edit",
    "scroll_action": "a11y_action",
}


def sent_by(result: ActionResult, default: Sent, *, typed: Sent = "input") -> Sent:
    """What an action sent, by the route its result names (``default`` without one); a text typed
    through EditableText is ``a11y_entry`` until the barrier finds it was no single-line entry,
    one typed by key events or committed whole by an input method ``typed`` (the display's typist:
    ``Barrier.typed``)."""
    route = result.structured.get("route")
    if not isinstance(route, str):
        return default
    if route in ("key_events", "input_method"):
        return typed
    return ROUTE_SENT.get(route, "input" if route in ("synthetic", "wheel") else default)


class Barrier:
    """The barrier of one session (the caller holds ``session.lock``); see the module docstring."""

    def __init__(self, session: BarrierSession, focus: Focus, *, typed: Sent = "input") -> None:
        self._s = session
        #: what a text typed by key events sent (``sent_by``): X11's typist paces keys into a
        #: line one a round trip (``input``), Wayland's sends them at once (``typed_entry``)
        self.typed = typed
        self._focus = focus  # the apps' focus events and focused elements (``act.focus``)
        self._sent: Sent | None = None
        self._to: RunningApp | None = None  # the app the previous action went to
        self._at = 0.0
        self._began = 0.0  # when the action now going out was about to be sent
        self._sent_from = 0.0  # ... and the previous one
        #: the calls sent since the app was last observed, described for a refusal's text
        self.calls: list[str] = []

    def sent(self, app: RunningApp, kind: Sent, what: str) -> None:
        """An action (``what``) was dispatched to ``app``, or may have been: the next one waits
        by ``kind``, for ``app``."""
        self._sent = kind
        self._to = app
        self._at = time.monotonic()
        self._sent_from = self._began
        self.calls.append(what)

    def hold(self, app: RunningApp, *, next_is_input: bool) -> bool:
        """Before the next action, on ``app``: wait as ``core.barrier.before`` says, for the app the
        previous action went to (keys to one app, then a click that activates another: the keys
        are handled before the click goes; waited for on the other app, its focus, lost to the
        first, counted as in transit until the barrier's cap: 2 s an action). False when that app
        could not be seen to have handled the previous action (the result then says so)."""
        previous, self._sent = self._sent, None
        to, self._to = self._to or app, None
        try:
            if not self._s.observed.settling.clock.pending(to.view):
                self.calls.clear()
                return True  # nothing sent since the app was last observed
            if previous is None:
                return True
            if to.identity != app.identity and procfs.start_time(to.pid) != to.identity.start_time:
                return True  # the app the previous action went to has exited: nothing to wait for
            return self._wait(to, previous, next_is_input=next_is_input, since=self._at)
        finally:
            self._began = time.monotonic()

    def handled(self, app: RunningApp, kind: Sent) -> bool:
        """Within an action: wait until the app handled what it just sent (``kind``), as the next
        action would (a click reads the focus its accessible action moved)."""
        return self._wait(app, kind, next_is_input=False, since=time.monotonic())

    def _wait(self, app: RunningApp, previous: Sent, *, next_is_input: bool, since: float) -> bool:
        bus = self._s.observed.bus_of(app)
        toolkit = self._s.a11y.toolkit(bus) if bus is not None else ""
        if previous == "a11y_entry" and not self._entry(app, toolkit):
            previous = "a11y_edit"
        elif previous == "typed_entry" and not self._entry(app, toolkit):
            previous = "input"
        wait = barrier.before(previous, next_is_input=next_is_input, toolkit=toolkit)
        if wait.none:
            return True
        end = time.monotonic() + call_deadline.bound(wait.cap_s)
        if wait.after_s > 0 and (left := since + wait.after_s - time.monotonic()) > 0:
            time.sleep(min(left, max(0.0, end - time.monotonic())))  # the toolkit's own timer (docstring)
        if wait.loop and bus is not None:
            # Swing's windows may take no ping (its dialogs list no _NET_WM_PING): the trip through
            # its action thread decides
            self._round_trip(app, end)
            settled = self._loop_trip(bus, end)
        else:
            settled = not wait.processed or self._round_trip(app, end)
        if wait.refocus and settled and bus is not None:
            settled = self._s.windows_landed(app, end) and self._focus.refocused(bus, since=self._sent_from, end=end)
        if wait.quiet and settled:
            window = self._window(app)
            self._s.observed.settling.activity().wait_quiet(bus, window, since=since, floor_s=0.0)
        return settled

    def _entry(self, app: RunningApp, toolkit: str) -> bool:
        """Whether the text just typed went into a single-line entry of a toolkit that completes
        entries later (read only then: the focused element, which the insert did not move)."""
        if not any(toolkit.startswith(name) for name in barrier.ENTRY_COMPLETION_S):
            return False
        bus = self._focus.bus(app)
        ref = self._focus.now(bus) if bus is not None else None
        return ref is not None and bool(self._s.a11y.states(ref) & State.SINGLE_LINE)

    def _window(self, app: RunningApp) -> int | None:
        """The window keys go to: the key window of the app's last observation."""
        try:
            return self._s.observed.observed_key_window(app)
        except NativeError:
            return None

    def _round_trip(self, app: RunningApp, end: float) -> bool:
        window = self._window(app)
        return window is not None and self._s.round_trip(app, window, end)

    def _loop_trip(self, bus: str, end: float) -> bool:
        """A round trip through the thread that runs the app's queued actions (``core.barrier``'s
        ``loop``): the states of its first window, read within the time left."""
        a11y = self._s.a11y
        windows = a11y.children(Ref(bus, ROOT_PATH))
        if not windows:
            return False
        return a11y.states_within(windows[0], max(0.0, end - time.monotonic())) is not None
