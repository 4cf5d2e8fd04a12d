"""The apps' focus events, read on a bus connection of its own (``act.focus`` asks it).

``FocusWatch`` reads AT-SPI ``object:state-changed:focused`` events on its own connection, opened
before the key that may move the focus is posted, and keeps for each app (bus name) the element
that last gained focus, the time of its last focus event, and whether that event was a loss. It
never blocks except in ``wait_quiet``, ``wait_gained`` and ``sync``, reads only what is waiting,
and reconnects if the bus dropped it. Nothing it sees is acted on; it only tells the typist and
the barrier where to look and how long to wait.

``sync`` is a D-Bus round trip to the app on the watch's own connection
(``org.freedesktop.DBus.Peer.Ping``, which every D-Bus library answers itself): the focus events
the app sent before it read the call leave it on the same connection before the answer, and the
bus delivers them to this connection in that order, so once the answer is read, so are they.
"""

from __future__ import annotations

import contextlib
import time
from typing import Final, NamedTuple

from jeepney import DBusAddress, new_method_call
from jeepney.bus_messages import MatchRule, message_bus
from jeepney.io.blocking import DBusConnection
from jeepney.low_level import HeaderFields, Message, MessageType

from deskhand.core import deadline as call_deadline
from deskhand.dbusconn import open_bus

__all__ = ("FOCUS_EVENT", "FocusWatch", "Gained")

#: The AT-SPI event the registry is told about (toolkits emit only registered events).
FOCUS_EVENT: Final = "object:state-changed:focused"
_INTERFACE: Final = "org.a11y.atspi.Event.Object"
_REGISTRY: Final = DBusAddress("/org/a11y/atspi/registry", "org.a11y.atspi.Registry", "org.a11y.atspi.Registry")


class Gained(NamedTuple):
    """The element that last gained the focus in one app, and when its event was read."""

    path: str
    at: float


class FocusWatch:
    """Focus events per app bus name; see the module docstring."""

    def __init__(self, address: str) -> None:
        self._address = address
        self._conn: DBusConnection | None = None
        self._gained: dict[str, Gained] = {}
        self._last: dict[str, float] = {}
        self._lost: dict[str, float] = {}  # when an element of the app last lost the focus
        self._has_focus: dict[str, bool] = {}  # whether the app's last focus event was a gain

    def open(self) -> bool:
        """Connect and subscribe (once); False when the bus refuses (the typist then does without)."""
        if self._conn is not None:
            return True
        try:
            conn = open_bus(self._address)
        except (OSError, ConnectionError, TimeoutError):
            return False
        try:
            rule = MatchRule(type="signal", interface=_INTERFACE, member="StateChanged")
            rule.add_arg_condition(0, "focused")
            conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=2.0)
            register = new_method_call(_REGISTRY, "RegisterEvent", "sass", (FOCUS_EVENT, [], ""))
            conn.send_and_get_reply(register, timeout=2.0)
        except (OSError, ConnectionError, TimeoutError):
            conn.close()
            return False
        self._conn = conn
        return True

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.close()
            self._conn = None

    def gained(self, bus: str) -> Gained | None:
        """The element of ``bus`` that last gained the focus (after reading what is waiting)."""
        self._drain(0.0)
        return self._gained.get(bus)

    def gained_after(self, bus: str, at: float) -> bool:
        """Whether an element of ``bus`` gained the focus after ``at`` (monotonic)."""
        gained = self.gained(bus)
        return gained is not None and gained.at > at

    def seed(self, bus: str, read: Gained) -> None:
        """A tree read that began at ``read.at`` found ``read.path`` focused: it counts as that
        element gaining the focus then, unless a focus event read since is newer."""
        self._drain(0.0)
        known = self._gained.get(bus)
        if self._conn is not None and (known is None or known.at < read.at):
            self._gained[bus] = read

    def last_event(self, bus: str) -> float | None:
        """When the last focus event (gained or lost) of ``bus`` was read."""
        self._drain(0.0)
        return self._last.get(bus)

    def wait_quiet(self, bus: str, *, since: float, quiet_s: float, after_gain_s: float, cap_s: float) -> float:
        """Wait until ``bus``'s focus has settled after ``since`` (a key): ``after_gain_s`` of quiet
        once an element gained the focus after it, else ``quiet_s`` from ``since``; at most until
        ``since + cap_s`` and the call's deadline. Returns the seconds waited (0 without a
        connection)."""
        start = time.monotonic()
        if self._conn is None:
            return 0.0
        cap = min(since + cap_s, start + call_deadline.bound(cap_s))
        while True:
            self._drain(0.0)
            now = time.monotonic()
            gained = self._gained.get(bus)
            if gained is not None and gained.at > since:  # the key moved the focus: wait out its burst
                end = max(gained.at, self._last.get(bus, since)) + after_gain_s
            else:
                end = max(since, self._last.get(bus, since)) + quiet_s
            left = min(end, cap) - now
            if left <= 0:
                return now - start
            self._drain(left)

    def sync(self, bus: str, timeout_s: float) -> bool:
        """A round trip to the app over this connection (``org.freedesktop.DBus.Peer.Ping``), the
        events read on the way: the focus events it sent before it answered are then all read.
        False without a connection or an answer in time."""
        conn = self._conn
        if conn is None:
            return False
        ping = new_method_call(DBusAddress("/", bus, "org.freedesktop.DBus.Peer"), "Ping")
        end = time.monotonic() + call_deadline.bound(timeout_s)
        try:
            serial = next(conn.outgoing_serial)
            conn.send(ping, serial=serial)
            while (left := end - time.monotonic()) > 0:
                msg = conn.receive(timeout=left)
                if msg.header.fields.get(HeaderFields.reply_serial) == serial:
                    return True  # an answer (an error too: the app read the call after its events)
                self._take(msg)
        except TimeoutError:
            return False
        except (OSError, ConnectionError, ValueError):
            self.close()
            self.open()
        return False

    def in_transit(self, bus: str, since: float) -> bool:
        """Whether an element of ``bus`` lost the focus after ``since`` and none has gained it
        since, while no other app gained it after ``since`` either (the events waiting read
        first). The focus another app took has left this one: it is not in transit in it (keys to
        one app, then a click that activates another, or a window of another process opened)."""
        self._drain(0.0)
        lost = not self._has_focus.get(bus, True) and self._lost.get(bus, since) > since
        return lost and not self._elsewhere(bus, since)

    def wait_gained(self, bus: str, end: float, since: float = 0.0) -> bool:
        """Wait, up to ``end`` (monotonic), until an element of ``bus`` gains the focus after its
        last loss, or one of another app did after ``since``; True once one has."""
        while True:
            if self._has_focus.get(bus, True) or self._elsewhere(bus, since):
                return True
            left = end - time.monotonic()
            if left <= 0 or self._conn is None:
                return False
            self._drain(left)

    def _elsewhere(self, bus: str, since: float) -> bool:
        """Whether an element of an app other than ``bus`` gained the focus after ``since``."""
        return any(gained.at > since for sender, gained in self._gained.items() if sender != bus)

    def _drain(self, timeout_s: float) -> None:
        """Read the events waiting; with ``timeout_s``, also wait that long for the first one."""
        conn = self._conn
        if conn is None:
            return
        wait = timeout_s
        while True:
            try:
                msg = conn.receive(timeout=wait)
            except TimeoutError:
                return
            except (OSError, ConnectionError, ValueError):
                self.close()  # dropped by the bus (a long unread backlog): reopen on next use
                self.open()
                return
            wait = 0.0
            self._take(msg)

    def _take(self, msg: Message) -> None:
        """Record one message read: a focus event (gained or lost) of its sender."""
        h = msg.header
        sender = h.fields.get(HeaderFields.sender)
        path = h.fields.get(HeaderFields.path)
        if h.message_type != MessageType.signal or not isinstance(sender, str) or not isinstance(path, str):
            return
        now = time.monotonic()
        self._last[sender] = now
        body = msg.body
        if len(body) > 1 and body[0] == "focused":
            self._has_focus[sender] = body[1] == 1
            if body[1] == 1:
                self._gained[sender] = Gained(path, now)
            else:
                self._lost[sender] = now
