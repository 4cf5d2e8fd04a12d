"""Which accessible objects of an app hold FOCUSED, kept from its focus events (``type_text``).

``type_text`` chooses its route from the app's focused element. Finding it by reading the whole
tree costs a full observation (100 ms on a window with a large table), so the AT-SPI watcher
(``_quiet.Activity``, which already receives every ``object:`` event of every app) also hands
each ``object:state-changed:focused`` event to a ``FocusLog``. The log knows an app's focused
objects only once it was seeded by one full read taken while the watcher was listening; from
then on each event updates it: the latest of an object's events wins, and the full read counts
as one value per object at the time it began.

What the log gives is a list of candidates, never an answer: the caller proves each with a live
``GetState`` (FOCUSED now) before using it, and reads the whole tree again when none is proven.
So an event still in flight can only make the caller fall back to the full read, except in one
case the caller excludes: an app whose toolkit may hold FOCUSED on several objects at once and
gained one whose event has not arrived (``_typing`` uses the log only for GTK 3 and Qt, where the
focus widget and at most its focused cell hold it, and both report it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Final

from deskhand.backends.linux._a11y_act import STATE_FOCUSED, A11y, Ref
from deskhand.backends.linux._atspi import TEXT

__all__ = ("MAX_OBJECTS", "FocusLog", "proven")

#: Objects remembered per app (then those without focus are forgotten first).
MAX_OBJECTS: Final = 256
#: Apps remembered (then the log starts over: every app needs a new seed).
MAX_APPS: Final = 64


class FocusLog:
    """Per app bus: each object's latest focus value and when it was seen (module docstring)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._values: dict[str, dict[str, tuple[bool, float]]] = {}
        self._seeded: set[str] = set()
        self._closed = False

    def close(self) -> None:
        """The events stopped coming (the watcher ended): nothing is trusted from now on."""
        with self._lock:
            self._closed = True
            self._values.clear()
            self._seeded.clear()

    def event(self, bus: str, path: str, focused: bool) -> None:
        """An ``object:state-changed:focused`` event (``detail1``: ``focused``) seen now."""
        now = self._clock()
        with self._lock:
            if self._closed:
                return
            values = self._values.setdefault(bus, {})
            values.pop(path, None)
            values[path] = (focused, now)
            if len(values) > MAX_OBJECTS:
                self._trim(bus, values)
            if len(self._values) > MAX_APPS:
                self._values = {bus: values}
                self._seeded &= {bus}

    def seed(self, bus: str, focused: Iterable[str], since: float) -> None:
        """A full read that began at ``since`` found ``focused`` FOCUSED. Events seen from
        ``since`` on are newer than (or as new as) the read and keep their value."""
        paths = set(focused)
        with self._lock:
            if self._closed:
                return
            values = self._values.setdefault(bus, {})
            for path, (_on, at) in list(values.items()):
                if at < since:
                    values[path] = (path in paths, since)
            for path in paths - set(values):
                values[path] = (True, since)
            self._seeded.add(bus)

    def candidates(self, bus: str) -> list[str] | None:
        """The objects the log holds FOCUSED, latest first; None while the app is not seeded."""
        with self._lock:
            if bus not in self._seeded:
                return None
            values = self._values.get(bus, {})
            held = [(at, path) for path, (on, at) in values.items() if on]
        return [path for _at, path in sorted(held, reverse=True)]

    def forget(self, bus: str) -> None:
        """Stop trusting the log for ``bus`` (until the next seed)."""
        with self._lock:
            self._values.pop(bus, None)
            self._seeded.discard(bus)

    def _trim(self, bus: str, values: dict[str, tuple[bool, float]]) -> None:
        for path in [p for p, (on, _at) in values.items() if not on]:
            if len(values) <= MAX_OBJECTS:
                return
            del values[path]
        if len(values) > MAX_OBJECTS:  # FOCUSED on hundreds of objects: not an app the log can follow
            values.clear()
            self._seeded.discard(bus)


def proven(a11y: A11y, bus: str, candidates: list[str]) -> Ref | None:
    """The first candidate that is FOCUSED now (a live ``GetState`` each), those with the Text
    interface first, as ``type_text``'s tree read orders them; None when none is."""
    held = [Ref(bus, path) for path in candidates if a11y.states(Ref(bus, path)) & STATE_FOCUSED]
    held.sort(key=lambda ref: TEXT not in a11y.interfaces(ref))
    return held[0] if held else None
