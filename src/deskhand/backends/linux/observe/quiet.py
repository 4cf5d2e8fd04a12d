"""When an app has gone quiet after an action: its AT-SPI events and the damage on its window.

The UI settle of native-contract.md 6.12 waits a fixed ``max(50 ms, 250 ms - elapsed)`` before the
next capture after a mutation. On Linux we also know when the app is still changing: a toolkit
emits AT-SPI object events while its tree changes, and X's DAMAGE extension reports every drawing
into its window. ``Activity`` records the last time each app bus and each watched window did
either; the executor waits the seed's window first, then, while activity goes on, until the app
has been quiet for ``QUIET_S`` (at most ``SETTLE_CAP_S`` after the mutation: an animation never
settles). A documented Linux addition: the seed's numbers stay the floor.

Two daemon threads, each with a connection of its own: one reads AT-SPI signals (every object and
window event, as a screen reader receives them; the registry is told, so toolkits emit them), the
other DAMAGE notifications for the windows ``watch`` names. They only record times; nothing they
see is ever acted on, and a failure of either leaves the seed's fixed window in force.
"""

from __future__ import annotations

import contextlib
import queue
import select
import threading
import time
from collections.abc import Callable
from typing import Any, Final

from jeepney import DBusAddress, new_method_call
from jeepney.bus_messages import MatchRule, message_bus
from jeepney.low_level import HeaderFields
from Xlib import display
from Xlib.ext import damage

from deskhand.dbusconn import open_bus

__all__ = ("QUIET_S", "SETTLE_CAP_S", "Activity")

#: The app counts as settled once nothing happened for this long.
QUIET_S: Final = 0.050
#: A settle never lasts longer than this after the mutation.
SETTLE_CAP_S: Final = 1.0
#: AT-SPI event interfaces whose signals count as activity (tree, text, state and window changes).
EVENT_INTERFACES: Final = ("org.a11y.atspi.Event.Object", "org.a11y.atspi.Event.Window")
#: The event classes registered with the registry so toolkits emit them.
REGISTERED_EVENTS: Final = ("object:", "window:")
#: How long after the registration apps are trusted to emit those events (they learn of it from a
#: registry signal): ``silent_since`` vouches only for times this long after it.
EMITTING_AFTER_S: Final = 0.5
_POLL_S: Final = 0.05


class Activity:
    """Last activity times per app bus name and per window; see the module docstring."""

    def __init__(self, a11y_address: str, display_name: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._seen = threading.Condition(self._lock)
        self._bus_seen: dict[str, float] = {}
        self._window_seen: dict[int, float] = {}
        self._watch: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._closing = threading.Event()
        self.bus_ok = False
        self.damage_ok = False
        #: when the bus thread started hearing every event (None: not, or no longer)
        self._hearing_since: float | None = None
        self._threads = [
            threading.Thread(target=self._read_bus, args=(a11y_address,), name="deskhand-quiet-bus", daemon=True),
            threading.Thread(target=self._read_damage, args=(display_name,), name="deskhand-quiet-x", daemon=True),
        ]
        for t in self._threads:
            t.start()

    def close(self) -> None:
        self._closing.set()
        for t in self._threads:
            t.join(timeout=1.0)

    def watch(self, window: int) -> None:
        """Record damage on ``window`` from now on (a no-op for a window already watched)."""
        self._watch.put(window)

    def last(self, bus: str | None, window: int | None) -> float | None:
        """The latest activity of the app's bus or its window, or None when none was seen."""
        with self._lock:
            return self._latest(bus, window)

    def _latest(self, bus: str | None, window: int | None, after: float | None = None) -> float | None:
        """The latest activity of the bus or window (later than ``after``); the lock is held."""
        times = (self._bus_seen.get(bus or ""), self._window_seen.get(window or 0))
        seen = [t for t in times if t is not None and (after is None or t > after)]
        return max(seen) if seen else None

    def silent_since(self, bus: str, since: float) -> bool:
        """Whether ``bus`` provably sent no event from ``since`` on: the bus thread has been hearing
        every event since at least ``EMITTING_AFTER_S`` before ``since``, still is, and heard none
        from ``bus`` since (the unique bus name is one process's one connection)."""
        with self._lock:
            hearing = self._hearing_since
            last = self._bus_seen.get(bus)
        return hearing is not None and hearing + EMITTING_AFTER_S <= since and (last is None or last < since)

    def wait_for_activity(self, bus: str | None, window: int | None, *, after: float, timeout_s: float) -> float | None:
        """Block until the app's bus or window does something later than ``after`` (its time), or
        ``timeout_s`` passes (None)."""
        deadline = self._clock() + timeout_s
        with self._seen:
            while (found := self._latest(bus, window, after)) is None:
                left = deadline - self._clock()
                if left <= 0 or not self._seen.wait(left):
                    return self._latest(bus, window, after)
            return found

    def wait_quiet(self, bus: str | None, window: int | None, *, since: float, floor_s: float) -> float:
        """Wait ``floor_s`` (the seed's settle), then while activity continues, until ``QUIET_S`` of
        quiet or ``SETTLE_CAP_S`` after ``since``. Returns the seconds waited."""
        start = self._clock()
        if floor_s > 0:
            time.sleep(floor_s)  # the contract's settle window (6.12), not a synchronization sleep
        cap = since + SETTLE_CAP_S
        while True:
            now = self._clock()
            last = self.last(bus, window)
            if last is None or last < since or now - last >= QUIET_S or now >= cap:
                return now - start
            time.sleep(min(QUIET_S - (now - last), cap - now))

    # -- threads ------------------------------------------------------------------------------
    def _mark(self, table: dict[Any, float], key: object) -> None:
        now = self._clock()
        with self._seen:
            table[key] = now
            self._seen.notify_all()

    def _read_bus(self, address: str) -> None:
        with contextlib.suppress(Exception), open_bus(address) as conn:
            for iface in EVENT_INTERFACES:
                conn.send_and_get_reply(message_bus.AddMatch(MatchRule(type="signal", interface=iface)), timeout=2.0)
            registry = DBusAddress("/org/a11y/atspi/registry", "org.a11y.atspi.Registry", "org.a11y.atspi.Registry")
            for name in REGISTERED_EVENTS:
                conn.send_and_get_reply(new_method_call(registry, "RegisterEvent", "sass", (name, [], "")), timeout=2.0)
            self.bus_ok = True
            with self._lock:
                self._hearing_since = self._clock()
            try:
                while not self._closing.is_set():
                    try:
                        msg = conn.receive(timeout=_POLL_S)
                    except TimeoutError:
                        continue
                    sender = msg.header.fields.get(HeaderFields.sender)
                    if isinstance(sender, str):
                        self._mark(self._bus_seen, sender)
            finally:
                with self._lock:
                    self._hearing_since = None  # what is not heard can no longer vouch for silence

    def _read_damage(self, display_name: str) -> None:
        with contextlib.suppress(Exception):
            d = display.Display(display_name)
            try:
                if not d.has_extension("DAMAGE"):
                    return
                d.damage_query_version()
                first = d.extension_event.DamageNotify
                watched: dict[int, int] = {}
                self.damage_ok = True
                while not self._closing.is_set():
                    fresh = self._add_watches(d, watched)
                    while d.pending_events():
                        ev = d.next_event()
                        # a new damage object reports the window's existing contents once: not a change
                        if ev.type == first and ev.damage not in fresh:
                            self._mark(self._window_seen, ev.drawable.id)
                    d.flush()
                    _readable(d, _POLL_S)
            finally:
                d.close()

    def _add_watches(self, d: Any, watched: dict[int, int]) -> set[int]:
        """Create damage objects for newly named windows; returns their ids (their first reports,
        queued by the ``sync``, describe what was already drawn)."""
        fresh: set[int] = set()
        while True:
            try:
                window = self._watch.get_nowait()
            except queue.Empty:
                if fresh:
                    with contextlib.suppress(Exception):
                        d.sync()
                return fresh
            if window in watched:
                continue
            try:
                watched[window] = d.create_resource_object("window", window).damage_create(
                    damage.DamageReportRawRectangles
                )
                fresh.add(watched[window])
            except Exception:  # the window went away: nothing to watch
                watched.pop(window, None)


def _readable(d: Any, timeout_s: float) -> None:
    with contextlib.suppress(OSError, ValueError):
        select.select([d.fileno()], [], [], timeout_s)
