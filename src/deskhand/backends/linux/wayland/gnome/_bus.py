"""One session-bus connection for the GNOME backend: calls with deadlines, and pipelined bursts.

A burst of input is many small method calls to Mutter. They are written one after the other
without waiting (D-Bus keeps one connection's messages in order, and Mutter handles them in that
order), then every reply is collected: one round trip for the whole burst. An error reply to any
call raises once all replies are in, so nothing is left unread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from jeepney import DBusAddress, HeaderFields, Message, MessageType, new_method_call
from jeepney.io.blocking import DBusConnection

from deskhand.core.errors import BackendUnavailable, NativeError
from deskhand.dbusconn import open_bus

__all__ = ()

CALL_TIMEOUT_S: Final = 2.0

#: One method call: the object, the method's name, its signature and its arguments.
Call = tuple[DBusAddress, str, str, tuple[Any, ...]]


class BusError(NativeError):
    """A D-Bus error reply; ``name`` is its D-Bus error name."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__("unknown", f"{name}: {message}", dispatched=None)
        self.name = name


class Bus:
    """A connection to the bus at ``address``. Not thread-safe: the caller serializes."""

    def __init__(self, address: str, *, timeout_s: float = CALL_TIMEOUT_S, enable_fds: bool = False) -> None:
        self.timeout_s = timeout_s
        #: how many calls of the last batch were written to the bus (the rest never went out)
        self.written = 0
        #: given every message that answers none of our calls (a signal), instead of jeepney's filters
        self.on_other: Callable[[Message], None] | None = None
        try:
            self.conn: DBusConnection = open_bus(bus=address, timeout_s=timeout_s, enable_fds=enable_fds)
        except (OSError, ValueError) as exc:
            raise BackendUnavailable(f"gnome: the session bus at {address} is unreachable: {exc}") from exc

    @property
    def unique_name(self) -> str:
        return str(self.conn.unique_name)

    def close(self) -> None:
        self.conn.close()

    def call(
        self, address: DBusAddress, method: str, signature: str = "", body: tuple[Any, ...] = ()
    ) -> tuple[Any, ...]:
        return self.calls([(address, method, signature, body)])[0]

    def calls(self, batch: Sequence[Call], timeout_s: float | None = None) -> list[tuple[Any, ...]]:
        """Send every call, then read every reply; the bodies, in order (``BusError`` on an error
        reply, ``BackendUnavailable`` when the bus breaks or does not answer in time)."""
        deadline = time.monotonic() + (self.timeout_s if timeout_s is None else timeout_s)
        serials: list[int] = []
        self.written = 0
        try:
            for address, method, signature, body in batch:
                serial = next(self.conn.outgoing_serial)
                self.conn.send(new_method_call(address, method, signature, body), serial=serial)
                serials.append(serial)
                self.written += 1
            replies = self._replies(serials, deadline)
        except (OSError, TimeoutError) as exc:
            raise BackendUnavailable(f"gnome: the session bus did not answer: {exc or 'timed out'}") from exc
        bodies = []
        for serial in serials:
            reply = replies[serial]
            if reply.header.message_type is MessageType.error:
                name = str(reply.header.fields.get(HeaderFields.error_name, "org.freedesktop.DBus.Error.Failed"))
                raise BusError(name, str(reply.body[0]) if reply.body else "")
            bodies.append(tuple(reply.body))
        return bodies

    def _replies(self, serials: list[int], deadline: float) -> dict[int, Message]:
        wanted = set(serials)
        got: dict[int, Message] = {}
        while wanted:
            msg = self.conn.receive(timeout=max(0.0, deadline - time.monotonic()))
            serial = msg.header.fields.get(HeaderFields.reply_serial)
            if serial in wanted:
                wanted.discard(serial)
                got[serial] = msg
            else:
                self.other(msg)
        return got

    def other(self, msg: Message) -> None:
        """A message that answers none of our calls: to ``on_other``, else to whoever subscribed
        through jeepney's ``DBusConnection.filter``."""
        if self.on_other is not None:
            self.on_other(msg)
            return
        for matched in self.conn._filters.matches(msg):
            matched.queue.append(msg)
