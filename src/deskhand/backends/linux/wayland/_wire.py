"""The Wayland wire protocol, client side: one unix socket, messages marshalled from a signature.

A message is ``object id (u32)``, ``size << 16 | opcode (u32)`` and its arguments, each padded to
32 bits: ``i``/``u`` 32-bit integers, ``f`` 24.8 fixed point, ``s`` a length-prefixed string with
its NUL (length 0: null), ``o`` an object id (0: null), ``n`` a new object id, ``a`` a
length-prefixed byte array, ``h`` a file descriptor (sent beside the bytes, ``SCM_RIGHTS``). The
interfaces and their messages come from :mod:`._protocol`, our own description of the few
requests and events deskhand uses. Standard library only.
"""

from __future__ import annotations

import array
import os
import select
import socket
import struct
import time
from collections.abc import Callable, Sequence
from typing import Final

from deskhand.backends.linux.wayland._protocol import INTERFACES, Interface, Message
from deskhand.core.errors import BackendUnavailable

__all__ = ()

Arg = int | float | str | bytes | None
Handler = Callable[..., None]

DISPLAY_ID: Final = 1
_HEADER: Final = struct.Struct("<II")
_MAX_FDS: Final = 28  # libwayland's per-message limit


class WaylandError(BackendUnavailable):
    """The compositor ended the connection (a protocol error) or cannot be reached."""


class Proxy:
    """One object on the connection: its id, interface, version and the handlers of its events."""

    def __init__(self, conn: Connection, oid: int, interface: Interface, version: int) -> None:
        self.conn = conn
        self.id = oid
        self.interface = interface
        self.version = version
        self.handlers: dict[str, Handler] = {}
        self.alive = True

    def on(self, event: str, handler: Handler) -> None:
        if event not in self.interface.event_names:
            raise ValueError(f"{self.interface.name} has no event {event!r}")
        self.handlers[event] = handler

    def request(
        self, name: str, *args: Arg, fds: Sequence[int] = (), new: tuple[str, int] | None = None
    ) -> Proxy | None:
        """Send request ``name``; when it creates an object (``n``), return that object's proxy.

        ``new`` names the new object's interface and version where the message does not fix it
        (``wl_registry.bind``).
        """
        opcode, message = self.interface.request(name)
        created: Proxy | None = None
        values = list(args)
        if "n" in message.args:
            iface_name, version = new if new is not None else (message.new or "", self.version)
            created = self.conn.new_proxy(INTERFACES[iface_name], version)
            before = message.args[: message.args.index("n")]
            values.insert(len(before) - before.count("h"), created.id)  # args exclude the fds
        self.conn.send(self.id, opcode, message, values, fds)
        if message.destructor:
            self.alive = False
        return created

    def create(self, name: str, *args: Arg, fds: Sequence[int] = (), new: tuple[str, int] | None = None) -> Proxy:
        """Send a request that creates an object and return that object."""
        created = self.request(name, *args, fds=fds, new=new)
        if created is None:
            raise ValueError(f"{self.interface.name}.{name} creates no object")
        return created


class Connection:
    """A client connection to a compositor's socket (``$WAYLAND_DISPLAY``, a name or a path)."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        try:
            self.sock.connect(path)
        except OSError as exc:
            self.sock.close()
            raise WaylandError(f"wayland: cannot connect to {path}: {exc.strerror or exc}") from exc
        self._next_id = 2
        self._buf = b""
        self._fds: list[int] = []
        self.objects: dict[int, Proxy] = {}
        self.error: str | None = None
        self.display = Proxy(self, DISPLAY_ID, INTERFACES["wl_display"], 1)
        self.objects[DISPLAY_ID] = self.display
        self.display.on("error", self._on_error)
        self.display.on("delete_id", self._on_delete)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds.clear()
        self.sock.close()

    def new_proxy(self, interface: Interface, version: int) -> Proxy:
        proxy = Proxy(self, self._next_id, interface, version)
        self.objects[proxy.id] = proxy
        self._next_id += 1
        return proxy

    # -- sending -----------------------------------------------------------------------------
    def send(self, oid: int, opcode: int, message: Message, args: Sequence[Arg], fds: Sequence[int]) -> None:
        if self.error is not None:
            raise WaylandError(self.error)
        body = bytearray()
        values = iter(args)
        for kind in message.args:
            if kind == "h":
                continue
            value = next(values)
            body += _pack(kind, value)
        size = _HEADER.size + len(body)
        data = _HEADER.pack(oid, size << 16 | opcode) + bytes(body)
        try:
            if fds:
                self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
            else:
                self.sock.sendall(data)
        except OSError as exc:
            raise WaylandError(f"wayland: the compositor connection broke: {exc}") from exc

    # -- receiving ---------------------------------------------------------------------------
    def dispatch(self, timeout_s: float) -> bool:
        """Read what has arrived within ``timeout_s`` and run the handlers; False when nothing came."""
        ready, _, _ = select.select([self.sock], [], [], max(0.0, timeout_s))
        if not ready:
            return False
        try:
            data, ancdata, _flags, _addr = self.sock.recvmsg(65536, socket.CMSG_SPACE(_MAX_FDS * 4))
        except OSError as exc:
            raise WaylandError(f"wayland: the compositor connection broke: {exc}") from exc
        if not data:
            raise WaylandError(self.error or "wayland: the compositor closed the connection")
        for level, kind, raw in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(raw[: len(raw) - len(raw) % fds.itemsize])
                self._fds.extend(fds)
        self._buf += data
        while len(self._buf) >= _HEADER.size:
            oid, word = _HEADER.unpack_from(self._buf)
            size, opcode = word >> 16, word & 0xFFFF
            if len(self._buf) < size:
                break
            payload, self._buf = self._buf[_HEADER.size : size], self._buf[size:]
            self._deliver(oid, opcode, payload)
        if self.error is not None:
            raise WaylandError(self.error)
        return True

    def _deliver(self, oid: int, opcode: int, payload: bytes) -> None:
        target = self.objects.get(oid)
        if target is None:  # an event for an object we destroyed: skip it (and its fds)
            return
        message = target.interface.events[opcode]
        args: list[Arg] = []
        offset = 0
        for kind in message.args:
            if kind == "h":
                args.append(self._fds.pop(0))
                continue
            value, offset = _unpack(kind, payload, offset)
            if kind == "n":
                created = Proxy(self, int(value or 0), INTERFACES[message.new or ""], target.version)
                self.objects[created.id] = created
                args.append(created.id)
            else:
                args.append(value)
        handler = target.handlers.get(message.name)
        if handler is not None:
            handler(*args)
        elif "h" in message.args:  # nobody wants it: do not leak the descriptors
            for kind, value in zip(message.args, args, strict=True):
                if kind == "h" and isinstance(value, int):
                    os.close(value)

    def roundtrip(self, timeout_s: float = 2.0) -> None:
        """Wait until the compositor has handled every request sent so far (``wl_display.sync``)."""
        done: list[int] = []
        callback = self.display.create("sync")
        callback.on("done", lambda serial: done.append(int(serial)))
        self.wait(lambda: bool(done), timeout_s, "wayland: the compositor did not answer a sync")

    def wait(self, condition: Callable[[], bool], timeout_s: float, what: str) -> None:
        """Dispatch events until ``condition()`` holds; raise WaylandError with ``what`` past the deadline."""
        deadline = time.monotonic() + timeout_s
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaylandError(what)
            self.dispatch(left)

    def _on_error(self, oid: int, code: int, message: str) -> None:
        target = self.objects.get(int(oid))
        name = target.interface.name if target is not None else f"object {oid}"
        self.error = f"wayland: protocol error on {name} (code {code}): {message}"

    def _on_delete(self, oid: int) -> None:
        self.objects.pop(int(oid), None)


def _pack(kind: str, value: Arg) -> bytes:
    if kind in "uon":
        return struct.pack("<I", int(value or 0) & 0xFFFFFFFF)
    if kind == "i":
        return struct.pack("<i", int(value or 0))
    if kind == "f":
        return struct.pack("<i", round(float(value or 0) * 256))
    if kind in "sa":
        if value is None:
            return struct.pack("<I", 0)
        raw = value.encode() + b"\0" if isinstance(value, str) else bytes(value)  # type: ignore[arg-type]
        return struct.pack("<I", len(raw)) + raw + b"\0" * (-len(raw) % 4)
    raise ValueError(f"wayland: unknown argument kind {kind!r}")


def _unpack(kind: str, data: bytes, offset: int) -> tuple[Arg, int]:
    if kind in "uon":
        return struct.unpack_from("<I", data, offset)[0], offset + 4
    if kind == "i":
        return struct.unpack_from("<i", data, offset)[0], offset + 4
    if kind == "f":
        return struct.unpack_from("<i", data, offset)[0] / 256.0, offset + 4
    if kind in "sa":
        (length,) = struct.unpack_from("<I", data, offset)
        raw = data[offset + 4 : offset + 4 + length]
        end = offset + 4 + length + (-length % 4)
        if kind == "a":
            return raw, end
        return (raw[:-1].decode("utf-8", "replace") if length else None), end
    raise ValueError(f"wayland: unknown argument kind {kind!r}")
