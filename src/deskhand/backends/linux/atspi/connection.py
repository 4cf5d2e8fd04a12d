"""AT-SPI over D-Bus for Linux, in pure Python (jeepney): apps, pids, and bounded tree reads.

Every read is pipelined (many calls in flight, replies matched by serial) and bounded by a
``Deadline``: a hung app (SIGSTOPped, or just busy) can delay an observation by at most its
deadline, after which the read returns what it has with ``timed_out`` set. Late replies to
abandoned calls are dropped by serial. The connection is shared with the actor, so every
exchange holds ``AtspiConnection.lock``.

Trees come from the toolkit's cache where it exports one (GTK, Chromium) and from a walk of
the shown tree where it does not (Qt), checked and completed on every read (``atspi.tree``).

A read never harms the app: containers that manage their descendants (MANAGES_DESCENDANTS, or an
absurd child count such as LibreOffice Calc's 2147483647) are never asked for their children;
only their visible part is read (``atspi.visible``), and one read sends at most ``MAX_READ_CALLS``.

Tree reads go over the app's own peer-to-peer D-Bus server when it has one (atk-bridge's
``GetApplicationBusAddress``, as libatspi does): no bus daemon in between, so each call
costs about a third less. Actions stay on the bus, where the app's signals arrive in order
with its replies.

jeepney opens connections (authentication, ``Hello``) and serializes calls; replies are read
by ``atspi.wire.ReplyReader``, which parses only what a caller needs (most of a read's CPU time
was jeepney's general message parsing).

The modules: ``atspi.calls`` (calls, replies, deadlines and links), ``atspi.nodes`` (what a
read returns), ``atspi.read`` (one read's pipelined exchange), ``atspi.walk`` and
``atspi.tree`` (the reading itself), and this one: the connection, the registry, and the names
the rest of the backend imports.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import Any

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import DBusConnection

from deskhand.backends.linux.atspi.calls import (
    ACCESSIBLE,
    ACTION,
    APPLICATION,
    CALL_TIMEOUT_S,
    CAPPED,
    COMPONENT,
    EDITABLE_TEXT,
    MAX_IN_FLIGHT,
    MAX_PEERS,
    PROPERTIES,
    REGISTRY,
    ROOT_PATH,
    SELECTION,
    TEXT,
    TIMED_OUT,
    VALUE,
    Call,
    Deadline,
    Failed,
    Link,
    Links,
    next_reply,
)
from deskhand.backends.linux.atspi.nodes import TEXT_VALUE_ROLES, Node, Snapshot
from deskhand.backends.linux.atspi.popups import Popups
from deskhand.backends.linux.atspi.tree import TreeReader
from deskhand.core.errors import BackendUnavailable
from deskhand.dbusconn import open_bus

__all__ = (
    "ACCESSIBLE", "ACTION", "APPLICATION", "CALL_TIMEOUT_S", "CAPPED", "COMPONENT", "EDITABLE_TEXT", "PROPERTIES",
    "ROOT_PATH", "SELECTION", "TEXT", "TEXT_VALUE_ROLES", "TIMED_OUT", "VALUE", "AtspiConnection",
    "Call", "Deadline", "Failed", "Node", "Snapshot", "bus_address",
)  # fmt: skip


def bus_address() -> str:
    """The accessibility bus address: ``AT_SPI_BUS_ADDRESS``, else ``org.a11y.Bus.GetAddress``."""
    env = os.environ.get("AT_SPI_BUS_ADDRESS")
    if env:
        return env
    try:
        session = open_bus(bus="SESSION")
    except (OSError, KeyError, ValueError) as e:
        raise BackendUnavailable(
            f"No session D-Bus ({e}). Start one (dbus-launch) or run inside `deskhand desktop run`."
        ) from e
    try:
        # Ask NameHasOwner first: GetAddress would auto-activate a second bus launcher.
        owner = session.send_and_get_reply(
            new_method_call(_DBUS, "NameHasOwner", "s", ("org.a11y.Bus",)), timeout=CALL_TIMEOUT_S
        ).body[0]
        if not owner:
            raise BackendUnavailable(
                "The AT-SPI bus launcher is not running on the session bus. Start "
                "/usr/libexec/at-spi-bus-launcher or run inside `deskhand desktop run`."
            )
        reply = session.send_and_get_reply(
            new_method_call(
                DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus"), "GetAddress"
            ),
            timeout=CALL_TIMEOUT_S,
        )
        return str(reply.body[0])
    except TimeoutError as e:
        raise BackendUnavailable("The session D-Bus did not answer within 2 s.") from e
    finally:
        session.close()


_DBUS = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")


class AtspiConnection:
    """One connection to the accessibility bus, shared by the observer and the actor."""

    def __init__(self, address: str | None = None) -> None:
        self.address = address or bus_address()
        try:
            self._conn: DBusConnection = open_bus(bus=self.address)
        except OSError as e:
            raise BackendUnavailable(f"Cannot connect to the AT-SPI bus at {self.address}: {e}") from e
        #: The bus connection as our exchanges use it (jeepney only opened it and said Hello),
        #: the apps' direct links, and the serialized calls they send.
        self._links = Links(Link.over(self._conn))
        #: Held for every exchange; the actor takes it too when it calls ``call``/``pipeline``.
        self.lock = threading.RLock()
        self._cache_events_registered = False
        #: Why the registry's last listing failed (a D-Bus error name, or "timeout"); None once
        #: it answers. A new registry forgets every event registration: ``registry_epoch``
        #: counts the registry's changes of unique name, for those who registered.
        self.registry_error: str | None = None
        self.registry_epoch = 0
        self._registry_owner: str | None = None
        self._tree = TreeReader()
        #: Per app bus name: where the origin of the bounds it reports is on the screen, for an
        #: app whose bounds are window-relative (GTK 4): its key window's content origin, set by
        #: each observation (``observe.tree``); the actor adds it to bounds it reads and
        #: subtracts it from points it hit-tests.
        self.origins: dict[str, tuple[int, int]] = {}
        #: Per app bus name, by object path: the content origin of the window each element of
        #: the last observation is in (an element of another window than the key window is
        #: placed by its own window's origin).
        self.path_origins: dict[str, dict[str, tuple[int, int]]] = {}

    def origin_of(self, bus: str, path: str) -> tuple[int, int]:
        """Where the bounds of the object at ``path`` start on the screen: (0, 0) but for a
        window-relative app (``path_origins``, else ``origins``)."""
        found = self.path_origins.get(bus, {}).get(path)
        return found if found is not None else self.origins.get(bus, (0, 0))

    def close(self) -> None:
        with self.lock:
            self._links.close()
            self._conn.close()

    # -- primitives -------------------------------------------------------------------------

    def pipeline(self, calls: Sequence[Call], deadline: Deadline, *, direct: bool = False) -> list[Any]:
        """Send ``calls`` with up to MAX_IN_FLIGHT in flight; return each reply body (a tuple),
        a ``Failed`` for a D-Bus error, or ``TIMED_OUT`` for a reply that missed the deadline.

        ``direct``: send over the app's direct link when one is open (the calls all go to one
        app); if the link breaks, the calls are sent again over the bus.

        Each batch of calls goes out in one write, and replies are read in large chunks: most of
        a read's cost is per message, so per-message system calls would dominate it."""
        with self.lock:
            link = self._links.peers.get(calls[0].bus) if direct and calls else None
            if link is not None:
                try:
                    return self._exchange(link, calls, deadline)
                except OSError as e:
                    # A half-written message would corrupt the link: never use it again.
                    self._links.peers[calls[0].bus] = None
                    link.close()
                    if isinstance(e, TimeoutError):
                        return [TIMED_OUT] * len(calls)  # the app stopped reading: it is hung
            return self._exchange(self._links.bus, calls, deadline)

    def _exchange(self, conn: Link, calls: Sequence[Call], deadline: Deadline) -> list[Any]:
        results: list[Any] = [TIMED_OUT] * len(calls)
        pending: dict[int, int] = {}
        next_call = 0
        while next_call < len(calls) or pending:
            if next_call < len(calls) and len(pending) < MAX_IN_FLIGHT:
                batch: list[bytes] = []
                while next_call < len(calls) and len(pending) < MAX_IN_FLIGHT:
                    serial = next(conn.outgoing_serial)
                    batch.append(self._links.wire.serialize(calls[next_call], serial))
                    pending[serial] = next_call
                    next_call += 1
                if conn.direct:
                    # An app that stops reading must not block the write past the deadline.
                    conn.sock.settimeout(max(deadline.remaining(), 0.001))
                conn.sock.sendall(b"".join(batch))
            reply = next_reply(conn, deadline)
            if reply is None:
                break  # deadline: stop feeding a hung peer; late replies are dropped by serial
            i = pending.pop(reply.serial, None)
            if i is not None:
                results[i] = Failed(reply.error) if reply.error else reply.body
        return results

    def call(self, c: Call, *, timeout_s: float = CALL_TIMEOUT_S, direct: bool = False) -> Any:
        """One call with its own deadline; returns the reply body or a ``Failed``."""
        return self.pipeline([c], Deadline(timeout_s), direct=direct)[0]

    # -- registry and processes -------------------------------------------------------------

    def apps(self, deadline: Deadline) -> list[str]:
        """Bus names of the applications registered on the accessibility bus."""
        reply = self.call(Call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren"), timeout_s=deadline.remaining())
        if isinstance(reply, Failed):
            self.registry_error = reply.error
            return []
        self.registry_error = None
        return [str(bus) for bus, _path in reply[0]]

    def pids(self, buses: Sequence[str], deadline: Deadline) -> dict[str, int]:
        """The process id behind each bus name (the bus daemon answers, never the app). The same
        pipeline asks who owns the registry's name (``_note_registry``)."""
        daemon = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
        calls = [Call(*daemon, "GetConnectionUnixProcessID", "s", (b,)) for b in buses]
        replies = self.pipeline([*calls, Call(*daemon, "GetNameOwner", "s", (REGISTRY,))], deadline)
        owner = replies.pop()
        self._note_registry(None if isinstance(owner, Failed) else str(owner[0]))
        return {b: int(r[0]) for b, r in zip(buses, replies, strict=True) if not isinstance(r, Failed)}

    def with_windows(self, buses: Sequence[str], deadline: Deadline) -> str | None:
        """Of one pid's bus names, the one with windows: a Qt app under GNOME loads GTK for its
        platform theme, and GTK registers the process a second time, with none."""
        if len(buses) < 2:
            return buses[0] if buses else None
        calls = [Call(b, ROOT_PATH, PROPERTIES, "Get", "ss", (ACCESSIBLE, "ChildCount")) for b in buses]
        counts = self.pipeline(calls, deadline)
        return next((b for b, c in zip(buses, counts, strict=True) if not isinstance(c, Failed) and c[0][1]), buses[0])

    def _note_registry(self, owner: str | None) -> None:
        """A registry under a new unique name (killed, and started again by D-Bus activation or by
        hand) knows none of the events registered with the old one: ``registry_epoch`` counts it."""
        if owner is None:
            return
        if self._registry_owner is not None and owner != self._registry_owner:
            self.registry_epoch += 1
            self._cache_events_registered = False
        self._registry_owner = owner

    def register_cache_events(self) -> None:
        """Make atk-bridge export ``/org/a11y/atspi/cache`` (it is lazy until someone listens)."""
        if self._cache_events_registered:
            return
        reply = self.call(
            Call(
                REGISTRY,
                "/org/a11y/atspi/registry",
                REGISTRY,
                "RegisterEvent",
                "sass",
                ("object:children-changed", [], ""),
            )
        )
        self._cache_events_registered = not isinstance(reply, Failed)

    def app_name(self, bus: str, deadline: Deadline) -> str | None:
        reply = self.call(
            Call(bus, ROOT_PATH, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")), timeout_s=deadline.remaining()
        )
        return None if isinstance(reply, Failed) else str(reply[0][1])

    # -- tree reads -------------------------------------------------------------------------

    def walk_only(self, bus: str) -> None:
        """Read this app by walks only, never from its cache (``TreeReader.walk_only``)."""
        with self.lock:
            self._tree.walk_only(bus)

    def snapshot(self, bus: str, deadline: Deadline, popups: Popups | None = None) -> Snapshot:
        """The app's shown tree with details, from the cache or a walk, within ``deadline``
        (``popups``: the app's mapped popup windows, see ``atspi.popups``)."""
        start = time.monotonic()
        self.register_cache_events()
        with self.lock:
            self._connect_peer(bus, deadline)
            return self._tree.read(bus, deadline, self._links, start, popups)

    def _connect_peer(self, bus: str, deadline: Deadline) -> None:
        """Open the app's direct link once (atk-bridge apps have one; Qt answers with an error)."""
        if bus in self._links.peers:
            return
        reply = self.call(Call(bus, ROOT_PATH, APPLICATION, "GetApplicationBusAddress"), timeout_s=deadline.remaining())
        if reply is TIMED_OUT:
            return  # busy or hung: ask again next time
        link = None
        if not isinstance(reply, Failed) and reply[0]:
            try:
                link = Link(str(reply[0]), deadline.remaining())
            except TimeoutError:
                return
            except (OSError, ValueError, RuntimeError, StopIteration):
                link = None
        peers = self._links.peers
        if len(peers) >= MAX_PEERS:
            oldest = next(iter(peers))
            dropped = peers.pop(oldest)
            if dropped is not None:
                dropped.close()
        peers[bus] = link


def registry_gone_text(address: str, error: str) -> str:
    """The plain error for an app not found on the bus because the registry did not list it."""
    where = address.split(",", 1)[0]
    how = "does not answer (it may hang)" if error == "timeout" else f"is not running ({error})"
    return (
        f"The AT-SPI registry (at-spi2-registryd) on the accessibility bus at {where} {how}, so apps not "
        "bound before cannot be found or read. Stop it if it hangs and start it again: the bus starts a "
        "new one by itself on the next call when it has the registry's service file (D-Bus activation), "
        "else run `/usr/libexec/at-spi2-registryd` with AT_SPI_BUS_ADDRESS set to the bus (or `deskhand "
        "desktop start` for a fresh desktop). The running apps join the new registry by themselves; then "
        "retry: deskhand picks it up without a restart."
    )
