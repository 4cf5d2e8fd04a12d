"""AT-SPI over D-Bus for Linux, in pure Python (jeepney): apps, pids, and bounded tree reads.

Every read is pipelined (many calls in flight, replies matched by serial) and bounded by a
``Deadline``: a hung app (SIGSTOPped, or just busy) can delay an observation by at most its
deadline, after which the read returns what it has with ``timed_out`` set. Late replies to
abandoned calls are dropped by serial. The connection is shared with the actor, so every
exchange holds ``AtspiConnection.lock``.

Trees come from ``org.a11y.atspi.Cache.GetItems`` where the toolkit exports the cache (GTK,
Chromium; the cache object appears only after a client registers for ``children-changed``),
and from a breadth-first walk (five pipelined calls per node) where it does not (Qt returns
an empty list). The cache is checked on every read, never trusted blindly: each item's child
count and index are live, and a shown node whose cached children are not exactly its live
ones (Chromium's page after a navigation) has its children read and walked again.
Hidden subtrees (not SHOWING) are not walked. Details such as extents,
values, texts and actions are read only for the nodes that are shown.

A read never harms the app: containers that manage their descendants (MANAGES_DESCENDANTS, or an
absurd child count such as LibreOffice Calc's 2147483647) are never asked for their children;
only their visible part is read (``_visible``), and one read sends at most ``MAX_READ_CALLS``.

Tree reads go over the app's own peer-to-peer D-Bus server when it has one (atk-bridge's
``GetApplicationBusAddress``, as libatspi does): no bus daemon in between, so each call
costs about a third less. Actions stay on the bus, where the app's signals arrive in order
with its replies.

jeepney opens connections (authentication, ``Hello``) and serializes calls; replies are read
by ``_wire.ReplyReader``, which parses only what a caller needs (most of a read's CPU time
was jeepney's general message parsing).

A tree read sends the calls of the app's previous read (its plan) with its first call, so an
unchanged app is read in one round trip; no reply outlives the read that asked for it (see
``AtspiConnection._snapshot``).
"""

from __future__ import annotations

import itertools
import os
import select
import struct
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from jeepney import DBusAddress, Message, new_method_call
from jeepney.bus import get_connectable_addresses
from jeepney.io.blocking import DBusConnection, open_dbus_connection, prep_socket

from deskhand.backends.linux import _visible
from deskhand.backends.linux._wire import Reply, ReplyReader
from deskhand.core import deadline as call_deadline
from deskhand.core.errors import BackendUnavailable

ACCESSIBLE: Final = "org.a11y.atspi.Accessible"
COMPONENT: Final = "org.a11y.atspi.Component"
VALUE: Final = "org.a11y.atspi.Value"
TEXT: Final = "org.a11y.atspi.Text"
ACTION: Final = "org.a11y.atspi.Action"
EDITABLE_TEXT: Final = "org.a11y.atspi.EditableText"
PROPERTIES: Final = "org.freedesktop.DBus.Properties"
ROOT_PATH: Final = "/org/a11y/atspi/accessible/root"
REGISTRY: Final = "org.a11y.atspi.Registry"

APPLICATION: Final = "org.a11y.atspi.Application"
#: AT-SPI message timeout per call, as the contract's AX messaging timeout (2.0 s).
CALL_TIMEOUT_S: Final = 2.0
#: Calls kept in flight at once during a pipelined read.
MAX_IN_FLIGHT: Final = 256
#: Serialized calls kept for reuse (a walk of a big app repeats thousands of calls).
WIRE_CACHE_SIZE: Final = 20000
#: Direct connections to apps kept open (the least recently opened is closed first).
MAX_PEERS: Final = 32
#: Bytes read from the bus socket at once.
RECV_BYTES: Final = 1 << 16
#: A walk stops adding nodes beyond this many (the state text shows at most 1500 lines).
MAX_WALK_NODES: Final = 5000
#: Properties read per shown node in a walk.
#: (Not AccessibleId: Qt fills it with a synthesized object path, not an app identifier.)
WALK_PROPS: Final = ("Name", "Description")
#: Objects whose interfaces and last shown state are remembered (then the memo starts over).
MEMO_SIZE: Final = 100_000
#: A cache of more items than this, most of them hidden (this many per shown node), is slower to
#: read than a walk of the shown tree: such an app is walked from then on.
WALK_CACHE_ITEMS: Final = 1000
WALK_CACHE_RATIO: Final = 4
#: Passes over a cached tree completing what the cache does not list.
COMPLETE_PASSES: Final = 4
#: Calls one tree read sends at most (a hard cap: what is beyond it is not read).
MAX_READ_CALLS: Final = 12_000
#: Calls of an app's last read sent along with the first call of its next read (its plan).
MAX_PLAN_CALLS: Final = 4096

# AT-SPI state bits (AtspiStateType) used by the reader; the full set is in ``_mapping``.
STATE_EXPANDED: Final = 1 << 10
STATE_FOCUSED: Final = 1 << 12
STATE_SHOWING: Final = 1 << 25
STATE_VISIBLE: Final = 1 << 30
#: Not an AT-SPI state: SHOWING was inferred from VISIBLE (GTK 4), until the extents say the
#: object has no size (a collapsed revealer's content, a hidden tab bar).
STATE_SHOWN_BY_VISIBLE: Final = 1 << 62

ROLE_MENU: Final = 33
#: Document frame, document text, document web: their visible children are found down the middle.
DOCUMENT_ROLES: Final = frozenset({82, 94, 95})
#: Interfaces of a cell read by ``_visible`` that the details round still reads.
CELL_LEFT_TO_READ: Final = frozenset({ACTION, EDITABLE_TEXT})
#: Roles whose text content is read (entries, text areas, spin buttons, documents, paragraphs,
#: headings, captions, table cells, list items, sections and static text of web content).
TEXT_VALUE_ROLES: Final = frozenset({29, 32, 52, 56, 60, 61, 73, 79, 81, 82, 83, 85, 94, 116})
STATE_MANAGES_DESCENDANTS: Final = 1 << 31
ROLE_COMBO_BOX: Final = 11
SELECTION: Final = "org.a11y.atspi.Selection"


class Deadline:
    """A point in monotonic time after which a read stops waiting."""

    __slots__ = ("at",)

    def __init__(self, seconds: float) -> None:
        # never past the deadline of the call in progress (a js cell's timeout_ms)
        self.at = time.monotonic() + call_deadline.bound(seconds)

    def remaining(self, cap: float = CALL_TIMEOUT_S) -> float:
        return max(0.0, min(cap, self.at - time.monotonic()))

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.at


class Call(NamedTuple):
    """One AT-SPI method call to send in a pipeline (a tuple: a read hashes each call several
    times, and a tuple's hash is computed in C)."""

    bus: str
    path: str
    interface: str
    method: str
    signature: str | None = None
    body: tuple[Any, ...] = ()


class Failed:
    """The reply to a call that failed (D-Bus error) or never came (deadline)."""

    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"Failed({self.error!r})"


TIMED_OUT: Final = Failed("timeout")
#: The reply to a call that was not sent because the read reached ``MAX_READ_CALLS``.
CAPPED: Final = Failed("call cap")


@dataclass(slots=True)
class Node:
    """One accessible object as read from an app (native AT-SPI values, not yet mapped)."""

    path: str
    role: int
    name: str
    description: str
    states: int
    interfaces: frozenset[str]
    parent: str = ""
    index: int = -1
    children: list[str] = field(default_factory=list)
    #: The child count the app reports (the cache may hold fewer children than this).
    child_count: int = 0
    accessible_id: str = ""
    extents: tuple[int, int, int, int] | None = None
    value: float | None = None  # Value.CurrentValue
    text: str | None = None
    selection: tuple[int, int] | None = None
    actions: tuple[str, ...] = ()
    #: Only the visible part of the children was read (a container that manages its
    #: descendants): which part, e.g. ``rows 1-20, columns 1-12 of 1048576 x 16384``, or "".
    partial: str | None = None

    @property
    def showing(self) -> bool:
        return bool(self.states & STATE_SHOWING)


@dataclass(slots=True)
class Snapshot:
    """What one bounded read of an app's tree returned."""

    bus: str
    nodes: dict[str, Node]
    #: Paths of the app root's children (the top-level windows), in order.
    windows: list[str]
    source: str  # "cache" or "walk"
    timed_out: bool = False
    #: The read stopped at ``MAX_READ_CALLS``.
    capped: bool = False
    elapsed_s: float = 0.0


def bus_address() -> str:
    """The accessibility bus address: ``AT_SPI_BUS_ADDRESS``, else ``org.a11y.Bus.GetAddress``."""
    env = os.environ.get("AT_SPI_BUS_ADDRESS")
    if env:
        return env
    try:
        session = open_dbus_connection(bus="SESSION")
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
            self._conn: DBusConnection = open_dbus_connection(bus=self.address)
        except OSError as e:
            raise BackendUnavailable(f"Cannot connect to the AT-SPI bus at {self.address}: {e}") from e
        #: The bus connection as our exchanges use it (jeepney only opened it and said Hello).
        self._bus = _Link.over(self._conn)
        #: Held for every exchange; the actor takes it too when it calls ``call``/``pipeline``.
        self.lock = threading.RLock()
        self._cache_events_registered = False
        self._wire_cache: dict[Call, bytes] = {}
        #: Per object (bus, path): its interfaces (fixed by its type), and whether it was shown in
        #: the last read (only to plan the calls of the next one; every value is read again).
        self._interfaces: dict[tuple[str, str], frozenset[str]] = {}
        self._seen_showing: dict[tuple[str, str], bool] = {}
        #: Per app bus name: its direct link, or None when it has none (Qt) or refused one.
        self._peers: dict[str, _Link | None] = {}
        #: Per app bus name: the source and calls of its last complete read (see ``_snapshot``).
        self._plans: dict[str, tuple[str, tuple[Call, ...]]] = {}
        #: Apps always walked (their cache does not cover their windows), apps whose big cache is
        #: mostly hidden (a walk is tried), the last cost of each source per app (see
        #: ``_source``), and per app whether it is GTK 4.
        self._walk_forced: set[str] = set()
        self._walk_trial: set[str] = set()
        self._costs: dict[str, dict[str, float]] = {}
        self._gtk4: dict[str, bool] = {}

    def close(self) -> None:
        with self.lock:
            for link in self._peers.values():
                if link is not None:
                    link.close()
            self._peers.clear()
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
            link = self._peers.get(calls[0].bus) if direct and calls else None
            if link is not None:
                try:
                    return self._exchange(link, calls, deadline)
                except OSError as e:
                    # A half-written message would corrupt the link: never use it again.
                    self._peers[calls[0].bus] = None
                    link.close()
                    if isinstance(e, TimeoutError):
                        return [TIMED_OUT] * len(calls)  # the app stopped reading: it is hung
            return self._exchange(self._bus, calls, deadline)

    def _exchange(self, conn: _Link, calls: Sequence[Call], deadline: Deadline) -> list[Any]:
        results: list[Any] = [TIMED_OUT] * len(calls)
        pending: dict[int, int] = {}
        next_call = 0
        while next_call < len(calls) or pending:
            if next_call < len(calls) and len(pending) < MAX_IN_FLIGHT:
                batch: list[bytes] = []
                while next_call < len(calls) and len(pending) < MAX_IN_FLIGHT:
                    serial = next(conn.outgoing_serial)
                    batch.append(self._wire(calls[next_call], serial))
                    pending[serial] = next_call
                    next_call += 1
                if conn.direct:
                    # An app that stops reading must not block the write past the deadline.
                    conn.sock.settimeout(max(deadline.remaining(), 0.001))
                conn.sock.sendall(b"".join(batch))
            reply = _next_reply(conn, deadline)
            if reply is None:
                break  # deadline: stop feeding a hung peer; late replies are dropped by serial
            i = pending.pop(reply.serial, None)
            if i is not None:
                results[i] = Failed(reply.error) if reply.error else reply.body
        return results

    def _wire(self, c: Call, serial: int) -> bytes:
        """The call's bytes with ``serial``: serialized once per distinct call, then patched
        (the serial is the only part of a message that differs between repeats of a call)."""
        try:
            template = self._wire_cache.get(c)
        except TypeError:  # a body with a list is not hashable: serialize it every time
            return _message(c).serialise(serial=serial)
        if template is None:
            if len(self._wire_cache) >= WIRE_CACHE_SIZE:
                self._wire_cache.clear()
            template = self._wire_cache[c] = _message(c).serialise(serial=1)
        data = bytearray(template)
        struct.pack_into("<I" if data[0] == 0x6C else ">I", data, 8, serial)
        return bytes(data)

    def call(self, c: Call, *, timeout_s: float = CALL_TIMEOUT_S, direct: bool = False) -> Any:
        """One call with its own deadline; returns the reply body or a ``Failed``."""
        return self.pipeline([c], Deadline(timeout_s), direct=direct)[0]

    # -- registry and processes -------------------------------------------------------------

    def apps(self, deadline: Deadline) -> list[str]:
        """Bus names of the applications registered on the accessibility bus."""
        reply = self.call(Call(REGISTRY, ROOT_PATH, ACCESSIBLE, "GetChildren"), timeout_s=deadline.remaining())
        if isinstance(reply, Failed):
            return []
        return [str(bus) for bus, _path in reply[0]]

    def pids(self, buses: Sequence[str], deadline: Deadline) -> dict[str, int]:
        """The process id behind each bus name (the bus daemon answers, never the app)."""
        replies = self.pipeline(
            [
                Call(
                    "org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus",
                    "GetConnectionUnixProcessID",
                    "s",
                    (b,),
                )
                for b in buses
            ],
            deadline,
        )
        return {b: int(r[0]) for b, r in zip(buses, replies, strict=True) if not isinstance(r, Failed)}

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

    def snapshot(self, bus: str, deadline: Deadline) -> Snapshot:
        """The app's shown tree with details, from the cache or a walk, within ``deadline``."""
        start = time.monotonic()
        self.register_cache_events()
        with self.lock:
            self._connect_peer(bus, deadline)
            return self._snapshot(bus, deadline, start)

    def _snapshot(self, bus: str, deadline: Deadline, start: float) -> Snapshot:
        """One read in rounds (cache or walk, then the lazy children, then details), each round
        deciding its calls from the replies of the ones before.

        The rounds' calls are those of the app's previous read when nothing changed, so that
        read's calls (its plan) go out with the first call, in one pipeline: an unchanged app
        is read in one round trip. Each round still asks for exactly the calls it needs, and
        takes a reply from the plan only for the same call (same object, method and arguments)
        in this read; what the plan did not foresee is sent then. Plan replies are as fresh as
        any: they answer calls sent during this read. Replies nobody asks for are dropped."""
        r = _Read(bus, deadline, self._peers.get(bus) or self._bus)
        r.visible_is_shown = self._visible_is_shown(bus, r)
        source = self._source(bus)
        planned_source, plan = self._plans.pop(bus, ("", ()))
        if planned_source != source:
            plan = ()  # the other source's calls: not this read's
        snap = None
        if source == "cache":
            snap = self._from_cache(r, plan)
            if snap is not None and not snap.timed_out and r.visible_is_shown and not _covers_windows(snap):
                self._walk_forced.add(bus)  # GTK 4: the cache holds little more than the focus chain
                snap, source = None, "walk"
        if snap is None:
            snap = self._walk(r, plan if source == "walk" else ())
            source = "walk"
        elif not snap.timed_out:
            cached = len(snap.nodes)
            snap.timed_out = not self._complete(snap, r)
            if cached > WALK_CACHE_ITEMS and cached > WALK_CACHE_RATIO * sum(1 for _ in _shown(snap)):
                # Most of a big cache is hidden (LibreOffice's menus): a walk may be cheaper; the
                # next reads try one, planned from what the cache showed, and keep the cheaper.
                self._walk_trial.add(bus)
                for node in snap.nodes.values():
                    safe = not _visible.must_not_enumerate(node.states, node.child_count)
                    self._remember(bus, node.path, showing=node.showing and safe)
        if not snap.timed_out:
            snap.timed_out = not self._enrich(snap, r)
        snap.capped = r.capped
        if not snap.timed_out:
            snap.timed_out = not self._choices(snap, r)
        if not snap.timed_out:
            if len(self._plans) >= MAX_PEERS:
                self._plans.pop(next(iter(self._plans)))
            self._plans[bus] = (source, tuple(dict.fromkeys(r.used))[:MAX_PLAN_CALLS])
            if plan:  # an unplanned read (an app's first, or the first of a source) costs more than it will
                self._costs.setdefault(bus, {})[source] = time.monotonic() - start
        snap.elapsed_s = time.monotonic() - start
        return snap

    def _source(self, bus: str) -> str:
        """How to read the app: "walk" when its cache does not cover its windows; else the
        cheaper of the cache and a walk once both were timed (a walk is tried only for an app
        whose cache is mostly hidden), else the cache."""
        if bus in self._walk_forced:
            return "walk"
        costs = self._costs.get(bus, {})
        if "cache" in costs and "walk" in costs:
            return "walk" if costs["walk"] < costs["cache"] else "cache"
        return "walk" if bus in self._walk_trial and "walk" not in costs else "cache"

    def _visible_is_shown(self, bus: str, r: _Read) -> bool:
        """Whether the app is GTK 4 (``Application.ToolkitName`` and ``Version``), asked once."""
        known = self._gtk4.get(bus)
        if known is None:
            name, version = self._ask(
                r,
                [
                    Call(bus, ROOT_PATH, PROPERTIES, "Get", "ss", (APPLICATION, "ToolkitName")),
                    Call(bus, ROOT_PATH, PROPERTIES, "Get", "ss", (APPLICATION, "Version")),
                ],
            )
            if name is TIMED_OUT or version is TIMED_OUT:
                return False
            known = _got(name).upper() == "GTK" and _got(version).startswith("4.")
            if len(self._gtk4) >= MAX_PEERS:
                self._gtk4.clear()
            self._gtk4[bus] = known
        return known

    def _ask(self, r: _Read, calls: Sequence[Call], plan: Sequence[Call] = ()) -> list[Any]:
        """The replies to ``calls`` in read ``r`` (a ``Failed`` for an error, ``TIMED_OUT`` past
        the deadline), with ``plan`` queued behind them.

        A call is sent once per read. Calls go out in order with up to MAX_IN_FLIGHT in flight,
        and ``_ask`` returns as soon as the replies to ``calls`` are in: the app answers the
        rest of the plan while the caller works on these."""
        fresh = [c for c in dict.fromkeys(calls) if c not in r.asked]
        if len(r.asked) + len(fresh) > MAX_READ_CALLS:
            r.capped = True
            fresh = fresh[: max(0, MAX_READ_CALLS - len(r.asked))]
        r.asked.update(fresh)
        r.queue.extendleft(reversed(fresh))  # what a round needs goes before what it may need
        for c in plan:
            if c not in r.asked:
                r.asked.add(c)
                r.queue.append(c)
        # One reply per call, in order: a call past the cap is answered CAPPED, never sent.
        need = {c for c in calls if c in r.asked and c not in r.replies}
        while need and not r.dead:
            try:
                self._send_queued(r)
                reply = _next_reply(r.link, r.deadline)
            except OSError as e:
                self._link_broke(r, e)
                continue
            if reply is None:
                r.dead = True  # deadline: stop feeding a hung app; late replies are dropped by serial
                break
            answered = r.waiting.pop(reply.serial, None)
            if answered is not None:
                r.replies[answered] = Failed(reply.error) if reply.error else reply.body
                need.discard(answered)
        r.used.extend(c for c in calls if c in r.asked)
        return [r.replies.get(c, TIMED_OUT if c in r.asked else CAPPED) for c in calls]

    def _send_queued(self, r: _Read) -> None:
        """Send queued calls of ``r`` in one write, up to MAX_IN_FLIGHT in flight."""
        link = r.link
        if not r.queue or len(r.waiting) >= MAX_IN_FLIGHT:
            return
        batch: list[bytes] = []
        while r.queue and len(r.waiting) < MAX_IN_FLIGHT:
            c = r.queue.popleft()
            serial = next(link.outgoing_serial)
            batch.append(self._wire(c, serial))
            r.waiting[serial] = c
        if link.direct:
            # An app that stops reading must not block the write past the deadline.
            link.sock.settimeout(max(r.deadline.remaining(), 0.001))
        link.sock.sendall(b"".join(batch))

    def _link_broke(self, r: _Read, e: OSError) -> None:
        """A direct link failed mid-read: never use it again (a half-written message would
        corrupt it), and send the unanswered calls again over the bus; an app that stopped
        reading is hung, so the read ends. A failing bus connection is not handled here."""
        if not r.link.direct:
            raise e
        self._peers[r.bus] = None
        r.link.close()
        if isinstance(e, TimeoutError):
            r.dead = True
            return
        r.queue.extendleft(reversed(list(r.waiting.values())))
        r.waiting.clear()
        r.link = self._bus

    def _connect_peer(self, bus: str, deadline: Deadline) -> None:
        """Open the app's direct link once (atk-bridge apps have one; Qt answers with an error)."""
        if bus in self._peers:
            return
        reply = self.call(Call(bus, ROOT_PATH, APPLICATION, "GetApplicationBusAddress"), timeout_s=deadline.remaining())
        if reply is TIMED_OUT:
            return  # busy or hung: ask again next time
        link = None
        if not isinstance(reply, Failed) and reply[0]:
            try:
                link = _Link(str(reply[0]), deadline.remaining())
            except TimeoutError:
                return
            except (OSError, ValueError, RuntimeError, StopIteration):
                link = None
        if len(self._peers) >= MAX_PEERS:
            oldest = next(iter(self._peers))
            dropped = self._peers.pop(oldest)
            if dropped is not None:
                dropped.close()
        self._peers[bus] = link

    def _from_cache(self, r: _Read, plan: Sequence[Call]) -> Snapshot | None:
        bus = r.bus
        [reply] = self._ask(r, [Call(bus, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems")], plan)
        if reply is TIMED_OUT:
            return Snapshot(bus, {}, [], "cache", timed_out=True)
        if isinstance(reply, Failed) or not reply[0]:
            return None  # no cache (Qt answers with an empty list)
        nodes: dict[str, Node] = {}
        for item in reply[0]:
            (_sb, path), _app, (pbus, ppath), index, count, ifaces, name, role, desc, states = item
            node = Node(
                path,
                int(role),
                str(name),
                str(desc),
                _states(states, visible_is_shown=r.visible_is_shown),
                frozenset(ifaces),
                parent=ppath if pbus == bus else "",
                index=int(index),
                child_count=int(count),
            )
            nodes[path] = node
        order: dict[str, list[Node]] = {}
        for node in nodes.values():
            order.setdefault(node.parent, []).append(node)
        for parent, kids in order.items():
            # Entries with index -1 (GTK menu items) keep the cache's order, after indexed ones.
            kids.sort(key=lambda n: n.index if n.index >= 0 else 1 << 30)
            if parent in nodes:
                nodes[parent].children = [k.path for k in kids]
        windows = [k.path for k in order.get(ROOT_PATH, [])]
        return Snapshot(bus, nodes, windows, "cache")

    def _walk(self, r: _Read, plan: Sequence[Call] = ()) -> Snapshot:
        bus = r.bus
        [root_kids] = self._ask(r, [Call(bus, ROOT_PATH, ACCESSIBLE, "GetChildren")], plan)
        if isinstance(root_kids, Failed):
            return Snapshot(bus, {}, [], "walk", timed_out=root_kids is TIMED_OUT)
        windows = [p for b, p in root_kids[0] if b == bus]
        snap = Snapshot(bus, {}, windows, "walk")
        snap.timed_out = not self._walk_from(snap, [(p, ROOT_PATH, i) for i, p in enumerate(windows)], r)
        return snap

    def _complete(self, snap: Snapshot, r: _Read) -> bool:
        """Walk below shown nodes whose children the cache does not hold exactly, and read only the
        visible part of containers that must not be enumerated.

        GTK creates some accessibles (list box rows, tree view cells) only when a client asks, and
        Chromium's page content never enters the cache: after a navigation the new document is
        missing and the old one is still cached, its parent kept but its index -1. Each item's
        child count and index are read live when the cache answers, so a node's cached children
        are its children only when they are exactly indices 0..count-1 (``_children_known``); for
        every other shown node (and a root the cache missed) one pipelined ``GetChildren`` reads
        the live list: children no longer there are dropped, new ones walked. Containers that
        manage their descendants (LibreOffice Calc's sheet) are never asked for their children
        (``_read_visible``). Each pass may reach more such nodes: at most ``COMPLETE_PASSES``."""
        bus = snap.bus
        done: set[str] = set()
        probes: _Probes = {}
        root = snap.nodes.get(ROOT_PATH)
        for _ in range(COMPLETE_PASSES):
            leaves: list[Node] = []
            frontier: list[tuple[str, str, int]] = []
            candidates = list(_shown(snap))
            if root is not None and all(n is not root for n in candidates):
                candidates.append(root)  # a window the cache missed (or one it still holds)
            for n in candidates:
                if n.path in done:
                    continue
                if _unlisted_menu(n):
                    done.add(n.path)
                    leaves.append(n)  # GTK 3 caches a menu's child count as -1: its items are few
                elif _visible.must_not_enumerate(n.states, n.child_count):
                    done.add(n.path)
                    frontier.extend(self._read_visible(snap, n, r))
                elif not _children_known(snap, n):
                    done.add(n.path)
                    leaves.append(n)
            if not leaves and not frontier:
                return True
            replies = self._ask(r, [Call(bus, n.path, ACCESSIBLE, "GetChildren") for n in leaves])
            if any(x is TIMED_OUT for x in replies):
                return False
            for node, reply in zip(leaves, replies, strict=True):
                if isinstance(reply, Failed):
                    continue
                node.children = [p for b, p in reply[0] if b == bus]
                node.child_count = len(node.children)
                if node is root:
                    snap.windows = list(node.children)
                items = [(p, node.path, i) for i, p in enumerate(node.children) if p not in snap.nodes]
                frontier.extend(_probe_menu(node, items, probes))
            if frontier and not self._walk_from(snap, frontier, r, probes):
                return False
        return True

    def _walk_from(
        self, snap: Snapshot, frontier: list[tuple[str, str, int]], r: _Read, probes: _Probes | None = None
    ) -> bool:
        """Breadth-first below shown nodes only; False on timeout.

        Every node's role and states are read; its children, name and description only when it
        is shown (a list of a thousand rows shows a few dozen). The calls for a node that was
        shown in the previous read go out in one batch with its state; a node that turns out
        shown unexpectedly costs one more round trip. A node is asked for its children only
        once its states and child count say it may be (``_visible.must_not_enumerate``); the
        previous read's verdict lets that go out with its state. Interfaces (fixed by the
        object's type) are read once per object."""
        bus, nodes = snap.bus, snap.nodes
        probes = probes if probes is not None else {}
        while frontier:
            frontier = frontier[: max(0, MAX_WALK_NODES - len(nodes))]
            first: list[list[Call]] = []
            for path, _parent, _i in frontier:
                calls = [Call(bus, path, ACCESSIBLE, "GetState"), Call(bus, path, ACCESSIBLE, "GetRole")]
                seen = self._seen_showing.get((bus, path))
                if seen is not False:
                    calls.extend(self._detail_calls(bus, path, children=seen is True))
                first.append(calls)
            replies = self._grouped(first, r)
            if replies is None:
                return False
            late: list[int] = []
            unread: list[Node] = []
            for k, (path, parent, index) in enumerate(frontier):
                state, role, *_ = replies[k]
                if isinstance(state, Failed) or isinstance(role, Failed):
                    continue
                states = _states(state[0], visible_is_shown=r.visible_is_shown)
                node = Node(path, int(role[0]), "", "", states, frozenset(), parent=parent, index=index)
                nodes[path] = node
                if not node.showing:
                    self._remember(bus, path, showing=False)
                    node.interfaces = self._interfaces.get((bus, path), frozenset())
                elif len(replies[k]) > 2:
                    if self._fill(bus, node, replies[k][2:]):
                        self._remember(bus, path, showing=True)
                    else:
                        unread.append(node)
                else:
                    late.append(k)
            if late:
                more = self._grouped([self._detail_calls(bus, frontier[k][0], children=False) for k in late], r)
                if more is None:
                    return False
                for k, detail in zip(late, more, strict=True):
                    node = nodes[frontier[k][0]]
                    self._fill(bus, node, detail)
                    unread.append(node)
            if unread and not self._children_of(snap, unread, r):
                return False
            frontier = _next_frontier(frontier, nodes, probes)
        return True

    def _children_of(self, snap: Snapshot, unread: list[Node], r: _Read) -> bool:
        """Read the children of shown nodes whose child count is known but whose children are
        not: listed when the container allows it, else only its visible part. False on timeout."""
        bus = snap.bus
        listed: list[Node] = []
        for node in unread:
            safe = not _visible.must_not_enumerate(node.states, node.child_count)
            self._remember(bus, node.path, showing=safe)
            if not safe:
                self._read_visible(snap, node, r)  # sets its children
            elif node.child_count != 0:
                listed.append(node)
        replies = self._ask(r, [Call(bus, n.path, ACCESSIBLE, "GetChildren") for n in listed])
        if any(x is TIMED_OUT for x in replies):
            return False
        for node, kids in zip(listed, replies, strict=True):
            if not isinstance(kids, Failed):
                node.children = [cp for cb, cp in kids[0] if cb == bus]
        return not r.dead

    def _read_visible(self, snap: Snapshot, node: Node, r: _Read) -> list[tuple[str, str, int]]:
        """The visible children of a container that must not be enumerated, as walk frontier
        entries; sets the node's children and what part of them they are."""
        bus = snap.bus
        if node.role == ROLE_MENU and not node.states & STATE_EXPANDED:
            shown = [c for c in node.children if (k := snap.nodes.get(c)) is not None and k.showing]
            if shown:
                return []  # an open GTK 3 menu (not EXPANDED): its cached items are SHOWING, keep them
            node.children, node.child_count = [], 0  # a closed menu shows nothing
            return []

        def call(path: str, iface: str, method: str, sig: str | None, body: tuple[Any, ...]) -> Call:
            return Call(bus, path, iface, method, sig, body)

        got = _visible.read_visible(
            lambda calls: self._ask(r, calls),
            call,
            bus,
            node.path,
            node.interfaces,
            document=node.role in DOCUMENT_ROLES,
        )
        node.children = got.children
        node.partial = got.note
        node.child_count = got.total
        for i, cell in enumerate(got.cells.values()):
            # Its text and extents are read: only its actions (and editability) are left to read.
            snap.nodes[cell.path] = Node(
                cell.path, cell.role, cell.name, "", cell.states, cell.interfaces & CELL_LEFT_TO_READ,
                parent=node.path, index=i, extents=cell.extents, text=cell.text,
            )  # fmt: skip
        return [(p, node.path, i) for i, p in enumerate(got.children) if p not in snap.nodes]

    def _detail_calls(self, bus: str, path: str, *, children: bool) -> list[Call]:
        """Name, description and interfaces of a node, and its children when ``children`` (a
        node known to allow it), else its child count."""
        if children:
            calls = [Call(bus, path, ACCESSIBLE, "GetChildren")]
        else:
            calls = [Call(bus, path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "ChildCount"))]
        # Qt answers Properties.Get but not GetAll for the Accessible interface.
        calls.extend(Call(bus, path, PROPERTIES, "Get", "ss", (ACCESSIBLE, n)) for n in WALK_PROPS)
        if (bus, path) not in self._interfaces:
            calls.append(Call(bus, path, ACCESSIBLE, "GetInterfaces"))
        return calls

    def _fill(self, bus: str, node: Node, replies: Sequence[Any]) -> bool:
        """Set a shown node's children (or child count), name, description and interfaces from
        its detail replies; True when its children were read."""
        kids, name, desc, *ifaces = replies
        node.name, node.description = _got(name), _got(desc)
        key = (bus, node.path)
        if ifaces and not isinstance(ifaces[0], Failed):
            self._interfaces[key] = frozenset(ifaces[0][0])
        node.interfaces = self._interfaces.get(key, frozenset())
        if isinstance(kids, Failed):
            return True
        if kids and isinstance(kids[0], list):
            node.children = [cp for cb, cp in kids[0] if cb == bus]
            node.child_count = len(node.children)
            return True
        node.child_count = int(_variant(kids[0], 0))
        return False

    def _remember(self, bus: str, path: str, *, showing: bool) -> None:
        """Note whether a node was shown (and safe to list the children of) in this read."""
        if len(self._seen_showing) >= MEMO_SIZE:
            self._seen_showing.clear()
            self._interfaces.clear()
        self._seen_showing[(bus, path)] = showing

    def _grouped(self, groups: list[list[Call]], r: _Read) -> list[list[Any]] | None:
        """One pipeline for several groups of calls; the replies regrouped, None on timeout."""
        flat = self._ask(r, [c for g in groups for c in g])
        if any(r is TIMED_OUT for r in flat):
            return None
        out: list[list[Any]] = []
        at = 0
        for g in groups:
            out.append(flat[at : at + len(g)])
            at += len(g)
        return out

    def _enrich(self, snap: Snapshot, r: _Read) -> bool:
        """Read extents, values, texts, selections and actions of shown nodes; False on timeout."""
        calls: list[Call] = []
        targets: list[tuple[Node, str]] = []
        for node in _shown(snap):
            b, p, ifs = snap.bus, node.path, node.interfaces
            if COMPONENT in ifs:
                calls.append(Call(b, p, COMPONENT, "GetExtents", "u", (0,)))
                targets.append((node, "extents"))
            if VALUE in ifs:
                calls.append(Call(b, p, PROPERTIES, "Get", "ss", (VALUE, "CurrentValue")))
                targets.append((node, "value"))
            if TEXT in ifs and node.role in TEXT_VALUE_ROLES:
                # The whole text: LibreOffice answers '' when the end is past the text.
                calls.append(Call(b, p, TEXT, "GetText", "ii", (0, -1)))
                targets.append((node, "text"))
                if node.states & STATE_FOCUSED:
                    calls.append(Call(b, p, TEXT, "GetSelection", "i", (0,)))
                    targets.append((node, "selection"))
            if ACTION in ifs:
                calls.append(Call(b, p, ACTION, "GetActions"))
                targets.append((node, "actions"))
        replies = self._ask(r, calls)
        for (node, what), reply in zip(targets, replies, strict=True):
            if not isinstance(reply, Failed):
                _apply(node, what, reply)
                if what == "extents" and node.states & STATE_SHOWN_BY_VISIBLE and not _has_size(node.extents):
                    node.states &= ~STATE_SHOWING
        return not any(r is TIMED_OUT for r in replies)

    def _choices(self, snap: Snapshot, r: _Read) -> bool:
        """The selected option of shown combo boxes whose list is a child (Chromium's
        ``<select>``: the combo's name is its label, its text an object placeholder, and the
        options sit in a hidden menu below it), as the combo's text; False on timeout."""
        combos = [n for n in _shown(snap) if n.role == ROLE_COMBO_BOX and n.children and n.text is None]
        lists = [(n, c) for n in combos for c in n.children[:2]]
        picked = self._ask(r, [Call(snap.bus, c, SELECTION, "GetSelectedChild", "i", (0,)) for _n, c in lists])
        chosen: dict[str, str] = {}
        for (node, _c), reply in zip(lists, picked, strict=True):
            if not isinstance(reply, Failed) and reply[0][0] == snap.bus and node.path not in chosen:
                chosen[node.path] = str(reply[0][1])
        names = self._ask(
            r, [Call(snap.bus, p, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")) for p in chosen.values()]
        )
        for path, name in zip(chosen, names, strict=True):
            if not isinstance(name, Failed):
                snap.nodes[path].text = _got(name)
        return not any(x is TIMED_OUT for x in (*picked, *names))


class _Read:
    """The state of one tree read: its link and deadline, the calls it asked for and every
    reply it got, and the calls still queued or waiting for a reply (by serial)."""

    __slots__ = (
        "asked", "bus", "capped", "dead", "deadline", "link", "queue", "replies", "used", "visible_is_shown", "waiting",
    )  # fmt: skip

    def __init__(self, bus: str, deadline: Deadline, link: _Link) -> None:
        self.bus = bus
        self.deadline = deadline
        self.link = link
        self.replies: dict[Call, Any] = {}
        self.used: list[Call] = []
        self.asked: set[Call] = set()
        self.queue: deque[Call] = deque()
        self.waiting: dict[int, Call] = {}
        #: The app stopped answering (deadline passed, or it stopped reading): nothing more is read.
        self.dead = False
        #: ``MAX_READ_CALLS`` was reached: calls beyond it were not sent.
        self.capped = False
        #: The app is GTK 4: VISIBLE objects below its windows are shown (see ``_states``).
        self.visible_is_shown = False


def _children_known(snap: Snapshot, node: Node) -> bool:
    """Whether the cache holds exactly the node's live children: as many as its live count,
    at indices 0, 1, ... in order (a child cached under it with index -1 has left it).

    A node with no cached children is known when its count is 0. One with cached children
    that manages its descendants (count -1, as GTK menus say, or an absurd count) keeps the
    cache's: listing its children could make the app build every one of them."""
    kids = node.children
    if not kids:
        return node.child_count == 0
    if node.child_count < 0 or node.child_count > MAX_WALK_NODES or node.states & STATE_MANAGES_DESCENDANTS:
        return True
    if len(kids) != node.child_count:
        return False
    return all((n := snap.nodes.get(k)) is not None and n.index == i for i, k in enumerate(kids))


#: First item of a menu that says nothing of being open -> (the menu, its other items).
_Probes = dict[str, tuple[Node, list[tuple[str, str, int]]]]


def _unlisted_menu(node: Node) -> bool:
    return node.role == ROLE_MENU and node.child_count < 0 and not node.states & STATE_MANAGES_DESCENDANTS


def _probe_menu(node: Node, items: list[tuple[str, str, int]], probes: _Probes) -> list[tuple[str, str, int]]:
    """The walk frontier for ``node``'s unread children. A menu that does not say it is open (GTK 3
    sets no EXPANDED on an open menu) gets only its first item read: if that is SHOWING the menu
    is open and the others follow (``_next_frontier``), else it counts as closed, unread."""
    if node.role == ROLE_MENU and not node.states & STATE_EXPANDED and items:
        probes[items[0][0]] = (node, items[1:])
        return items[:1]
    return items


def _next_frontier(
    frontier: list[tuple[str, str, int]], nodes: dict[str, Node], probes: _Probes
) -> list[tuple[str, str, int]]:
    """The children to read after ``frontier`` (breadth first, shown nodes only, menus probed)."""
    nxt: list[tuple[str, str, int]] = []
    for path, _parent, _i in frontier:
        got = nodes.get(path)
        probe = probes.pop(path, None)
        if probe is not None:
            menu, rest = probe
            if got is not None and got.showing:
                nxt.extend(rest)  # the menu is open: its other items too
            else:
                menu.children = []  # a closed menu's items are hidden: not read at all
        if got is None or not got.showing:
            continue
        items = [(cp, path, i) for i, cp in enumerate(got.children) if cp not in nodes]
        nxt.extend(_probe_menu(got, items, probes))
    return nxt


def _shown(snap: Snapshot) -> Iterable[Node]:
    """Nodes reachable from the windows through SHOWING nodes only."""
    stack = list(reversed(snap.windows))
    while stack:
        node = snap.nodes.get(stack.pop())
        if node is None or not node.showing:
            continue
        yield node
        stack.extend(reversed(node.children))


def _apply(node: Node, what: str, reply: tuple[Any, ...]) -> None:
    if what == "extents":
        x, y, w, h = reply[0]
        node.extents = (int(x), int(y), int(w), int(h))
    elif what == "value":
        node.value = float(_variant(reply[0], 0.0))
    elif what == "text":
        node.text = str(reply[0])
    elif what == "selection":
        start, end = int(reply[0]), int(reply[1])
        node.selection = (start, end) if end > start else None
    elif what == "actions":
        node.actions = tuple(str(a[0]) for a in reply[0])


def _next_reply(conn: _Link, deadline: Deadline) -> Reply | None:
    """The next reply on ``conn`` (the bus or a direct link), or None when none arrives
    before ``deadline``."""
    while True:
        reply = conn.reader.next_reply()
        if reply is not None:
            return reply
        wait = deadline.remaining()
        if wait <= 0:
            return None
        ready, _, _ = select.select([conn.sock], [], [], wait)
        if not ready:
            return None
        data = conn.sock.recv(RECV_BYTES)
        if not data:
            raise ConnectionError("The D-Bus peer closed the connection.")
        conn.reader.feed(data)


class _Link:
    """A D-Bus connection as the exchanges use it: a socket, a serial counter and a reply
    reader. ``direct``: a peer-to-peer connection to one app (no bus daemon, no ``Hello``)."""

    __slots__ = ("direct", "outgoing_serial", "reader", "sock")

    def __init__(self, address: str, timeout_s: float) -> None:
        self.sock = prep_socket(next(get_connectable_addresses(address)), timeout=timeout_s)
        self.reader = ReplyReader()
        self.outgoing_serial: Iterator[int] = itertools.count(1)
        self.direct = True

    @classmethod
    def over(cls, conn: DBusConnection) -> _Link:
        """The bus connection ``conn`` that jeepney opened, read from here on by a ``ReplyReader``."""
        link = cls.__new__(cls)
        link.sock, link.outgoing_serial, link.direct = conn.sock, conn.outgoing_serial, False
        # jeepney may have read past the Hello reply (the NameAcquired signal): keep those bytes.
        while conn.parser.get_next_message() is not None:
            pass
        pipe = conn.parser.buf
        link.reader = ReplyReader(pipe.read(pipe.bytes_buffered) if pipe.bytes_buffered else b"")
        return link

    def close(self) -> None:
        self.sock.close()


def _message(c: Call) -> Message:
    return new_method_call(DBusAddress(c.path, bus_name=c.bus, interface=c.interface), c.method, c.signature, c.body)


def _states(words: Sequence[int], *, visible_is_shown: bool = False) -> int:
    """The state bits of an ``au`` reply; with ``visible_is_shown`` (GTK 4, which sets VISIBLE
    but not SHOWING below its windows) a VISIBLE object counts as SHOWING."""
    states = int(words[0]) | (int(words[1]) << 32 if len(words) > 1 else 0)
    if visible_is_shown and states & STATE_VISIBLE and not states & STATE_SHOWING:
        states |= STATE_SHOWING | STATE_SHOWN_BY_VISIBLE
    return states


def _has_size(extents: tuple[int, int, int, int] | None) -> bool:
    return extents is not None and extents[2] > 0 and extents[3] > 0


def _covers_windows(snap: Snapshot) -> bool:
    """Whether the cache lists what is in the app's shown windows: a shown node with some but
    fewer children in the cache than it reports means it does not (a fresh GTK 4 app's cache
    holds little more than the focus chain). A node with none is completed by ``_complete``
    (an object the cache lists under another parent). Asked for GTK 4 apps only: LibreOffice's
    frame also reports children its cache lists elsewhere, and its cache read is complete."""
    return all(not 0 < len(n.children) < n.child_count for n in _shown(snap))


def _variant(v: Any, default: Any) -> Any:
    return v[1] if isinstance(v, tuple) and len(v) == 2 else default


def _got(reply: Any) -> str:
    """The string of a ``Properties.Get`` reply, or "" when it failed."""
    return "" if isinstance(reply, Failed) else str(_variant(reply[0], ""))
