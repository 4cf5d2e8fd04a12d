"""When an observation may look: the settle after an action, and the wait for a change.

After an action the next capture waits by the settle rule: the seed's fixed window (6.12), then,
while the app is still changing, until it has been quiet (``observe.quiet``). ``wait_for_change`` waits
for the app to do something after its last observation (an AT-SPI event, drawing in its window),
then for it to go quiet.
"""

from __future__ import annotations

import time
from collections.abc import Hashable

from deskhand.backends.linux.observe.quiet import Activity
from deskhand.core.axtree import notices as advisory
from deskhand.core.axtree.settle import SettleClock


class Settling:
    """The settle clock per app, the watch on the apps' activity (opened on first use), and when
    each app's last observation was complete. ``bus`` and ``window``: the app's bus name and
    the window of its last capture, each None when unknown."""

    def __init__(self, a11y_address: str, display: str) -> None:
        self.clock = SettleClock()
        self._a11y_address = a11y_address
        self._display = display
        self._watch: Activity | None = None
        #: view (``observer.ViewKey``) -> when its last observation was complete (what ``wait_for_change`` waits past)
        self._observed_at: dict[Hashable, float] = {}

    def mark_mutation(self, key: Hashable) -> None:
        """Record that an action changed the app: its next capture waits by the settle rule."""
        self.clock.mark_mutation(key, time.monotonic())

    def settle(self, key: Hashable, bus: str | None, window: int | None) -> None:
        """The UI settle before a capture after a mutation: the seed's fixed window (6.12), then,
        while the app is still changing, until it has been quiet (``observe.quiet``)."""
        since = self.clock.pending(key)
        floor = self.clock.take(key, time.monotonic())
        if since is None:
            return
        self.activity().wait_quiet(bus, window, since=since, floor_s=floor)

    def wait_for_change(self, key: Hashable, bus: str | None, window: int | None, timeout_s: float) -> str:
        """Wait up to ``timeout_s`` for the app to do something after its last observation (an
        AT-SPI event, drawing in its window), then for it to go quiet; the notice says which."""
        start = time.monotonic()
        activity = self.activity()
        after = self._observed_at.get(key, start)
        last = activity.wait_for_activity(bus, window, after=after, timeout_s=timeout_s)
        if last is not None:
            activity.wait_quiet(bus, window, since=last, floor_s=0.0)
        return advisory.waited_for_change((time.monotonic() - start) * 1000, changed=last is not None)

    def quiet_since(self, bus: str, since: float) -> bool:
        """Whether the app on ``bus`` provably emitted no AT-SPI event from ``since`` on: the
        watch was listening (and toolkits had been told to emit) well before, and heard none."""
        return self.activity().silent_since(bus, since)

    def observed(self, key: Hashable) -> None:
        """Note that an observation of the app is complete now."""
        self._observed_at[key] = time.monotonic()

    def activity(self) -> Activity:
        if self._watch is None:
            self._watch = Activity(self._a11y_address, self._display)
        return self._watch

    def close(self) -> None:
        """Close the activity watch (a later call opens a new one)."""
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.close()
