"""AT-SPI calls and the D-Bus links they travel on: the vocabulary of every exchange.

A ``Call`` is one method call, a ``Failed`` the reply to one that failed or never came, and a
``Deadline`` bounds how long an exchange waits. A ``Link`` is a socket with its serial counter and
reply reader (``atspi.wire.ReplyReader``: it parses only what a caller needs); ``Links`` holds the bus
link, the direct links to apps, and the serialized calls both reuse (jeepney serializes a call
once, then only its serial is patched).
"""

from __future__ import annotations

import itertools
import select
import struct
import time
from collections.abc import Iterator
from typing import Any, Final, NamedTuple

from jeepney import DBusAddress, Message, new_method_call
from jeepney.bus import get_connectable_addresses
from jeepney.io.blocking import DBusConnection, prep_socket

from deskhand.backends.linux.atspi.wire import Reply, ReplyReader
from deskhand.core import deadline as call_deadline

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


def next_reply(conn: Link, deadline: Deadline) -> Reply | None:
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


class Link:
    """A D-Bus connection as the exchanges use it: a socket, a serial counter and a reply
    reader. ``direct``: a peer-to-peer connection to one app (no bus daemon, no ``Hello``)."""

    __slots__ = ("direct", "outgoing_serial", "reader", "sock")

    def __init__(self, address: str, timeout_s: float) -> None:
        self.sock = prep_socket(next(get_connectable_addresses(address)), timeout=timeout_s)
        self.reader = ReplyReader()
        self.outgoing_serial: Iterator[int] = itertools.count(1)
        self.direct = True

    @classmethod
    def over(cls, conn: DBusConnection) -> Link:
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


def message(c: Call) -> Message:
    return new_method_call(DBusAddress(c.path, bus_name=c.bus, interface=c.interface), c.method, c.signature, c.body)


class Wire:
    """Serialized calls kept for reuse (a walk of a big app repeats thousands of calls)."""

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict[Call, bytes] = {}

    def serialize(self, c: Call, serial: int) -> bytes:
        """The call's bytes with ``serial``: serialized once per distinct call, then patched
        (the serial is the only part of a message that differs between repeats of a call)."""
        try:
            template = self._cache.get(c)
        except TypeError:  # a body with a list is not hashable: serialize it every time
            return message(c).serialise(serial=serial)
        if template is None:
            if len(self._cache) >= WIRE_CACHE_SIZE:
                self._cache.clear()
            template = self._cache[c] = message(c).serialise(serial=1)
        data = bytearray(template)
        struct.pack_into("<I" if data[0] == 0x6C else ">I", data, 8, serial)
        return bytes(data)


class Links:
    """The bus link, the direct links to apps (by bus name: None for an app that has none, as
    Qt, or whose link broke), and the serialized calls they all send."""

    __slots__ = ("bus", "peers", "wire")

    def __init__(self, bus: Link) -> None:
        self.bus = bus
        self.peers: dict[str, Link | None] = {}
        self.wire = Wire()

    def drop(self, app: str) -> None:
        """Never use the app's direct link again (a half-written message would corrupt it)."""
        link = self.peers.get(app)
        self.peers[app] = None
        if link is not None:
            link.close()

    def close(self) -> None:
        for link in self.peers.values():
            if link is not None:
                link.close()
        self.peers.clear()
