"""The clipboard on GNOME: the paste transaction's transport through Mutter's RemoteDesktop session.

GNOME has no wlr-data-control. A RemoteDesktop session with ``EnableClipboard`` sees who owns the
selection (``SelectionOwnerChanged``: its MIME types, whether it is ours), reads it
(``SelectionRead``: a pipe the owner writes each type into), owns it (``SetSelection`` with the
types) and serves it (``SelectionTransfer`` asks for one type; ``SelectionWrite`` gives the pipe
to write it into, ``SelectionWriteDone`` ends it). The clipboard has a session (and a
connection, which carries the pipes' descriptors) of its own. Mutter broadcasts each session's
signals (no destination), so only our session's path counts.

:class:`Selection` is ``_clipserver.SelectionTransport``: the transaction, its serving thread and
its restore rules are ``_clipserver.ClipboardServer``'s, as on sway and KWin. A restored
clipboard is kept after the transaction by a detached ``gnome._keeper`` (a session's selection
ends with its session).
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from collections.abc import Mapping
from typing import Any, Final

from jeepney import DBusAddress, MatchRule, Message, message_bus
from jeepney.fds import FileDescriptor

from deskhand.backends.linux.wayland.gnome._bus import Bus, BusError
from deskhand.core.errors import DeskhandError

__all__ = ()

RD: Final = "org.gnome.Mutter.RemoteDesktop"
RD_SESSION: Final = f"{RD}.Session"
#: How long a read of one type, or a write of one, may take.
TRANSFER_TIMEOUT_S: Final = 2.0
_IDLE_S: Final = 0.05


def _fd(value: Any) -> int:
    """The raw descriptor of a ``h`` argument (jeepney hands out ``FileDescriptor``)."""
    return value.to_raw_fd() if isinstance(value, FileDescriptor) else int(value)


class Selection:
    """One RemoteDesktop session with the clipboard enabled, driven by :meth:`pump` (no thread of
    its own: ``_clipserver.ClipboardServer``'s, or the keeper's loop)."""

    keeper = "deskhand.backends.linux.wayland.gnome._keeper"
    keeper_wait_s = 3.0

    def __init__(self, address: str) -> None:
        self.bus = Bus(address, enable_fds=True)
        self.events: list[Message] = []
        self.bus.on_other = self.events.append
        self.data: dict[str, bytes] | None = None  # what we serve while we own the selection
        self.owned = False
        self.offered: list[str] = []  # the types of someone else's selection
        self.sent: list[str] = []  # types read from us since we took the selection
        try:
            manager = DBusAddress("/org/gnome/Mutter/RemoteDesktop", bus_name=RD, interface=RD)
            (path,) = self.bus.call(manager, "CreateSession")
            self.session = DBusAddress(str(path), bus_name=RD, interface=RD_SESSION)
            # Mutter broadcasts every session's signals: only our session's are ours
            rule = MatchRule(type="signal", interface=RD_SESSION, path=str(path))
            self.bus.call(message_bus, "AddMatch", "s", (rule.serialise(),))
            self.bus.call(self.session, "EnableClipboard", "a{sv}", ({},))
            self.bus.call(self.session, "Start")
            self.pump(0.0)
        except BaseException:
            self.bus.close()
            raise

    def close(self) -> None:
        with contextlib.suppress(DeskhandError, OSError):
            self.bus.call(self.session, "Stop")
        self.bus.close()

    def fileno(self) -> int:
        return self.bus.conn.sock.fileno()

    # -- signals ---------------------------------------------------------------------------
    def pump(self, timeout_s: float) -> None:
        """Handle the signals that arrived (waiting up to ``timeout_s`` for the first)."""
        with contextlib.suppress(TimeoutError):
            self.events.append(self.bus.conn.receive(timeout=timeout_s))
            while True:
                self.events.append(self.bus.conn.receive(timeout=0.0))
        while self.events:
            self._handle(self.events.pop(0))

    def _mine(self, msg: Message) -> bool:
        return bool(msg.header.fields.get(1) == self.session.object_path)  # PATH: not another session's

    def _handle(self, msg: Message) -> None:
        if not self._mine(msg):
            return
        member = msg.header.fields.get(3)  # MEMBER
        if member == "SelectionOwnerChanged":
            options = msg.body[0]
            self.owned = bool(options.get("session-is-owner", ("b", False))[1])
            if not self.owned:
                self.data = None
                self.offered = _mime_types(options.get("mime-types", ("as", []))[1])
        elif member == "SelectionTransfer":
            mime, serial = str(msg.body[0]), int(msg.body[1])
            self._serve(mime, serial)

    def _serve(self, mime: str, serial: int) -> None:
        data = (self.data or {}).get(mime)
        if data is None:
            self.bus.call(self.session, "SelectionWriteDone", "ub", (serial, False))
            return
        (handle,) = self.bus.call(self.session, "SelectionWrite", "u", (serial,))
        ok = _write_all(_fd(handle), data)
        self.bus.call(self.session, "SelectionWriteDone", "ub", (serial, ok))
        self.sent.append(mime)

    # -- the selection -----------------------------------------------------------------------
    def read_all(self) -> dict[str, bytes]:
        """Every type of someone else's selection ({} when nobody owns one); ours as we serve it."""
        self.pump(0.0)
        if self.owned:
            return dict(self.data or {})
        out: dict[str, bytes] = {}
        for mime in list(self.offered):
            data = _read_all(self._read_pipe(mime), lambda: self.pump(0.0))
            if data is not None:
                out[mime] = data
        return out

    def _read_pipe(self, mime: str) -> int:
        """``SelectionRead``'s pipe. Mutter reads one type at a time and finishes a read a moment
        after our end of its pipe closed ("Tried to read in parallel" meanwhile): asked again
        until it takes the next one, within the transfer timeout."""
        deadline = time.monotonic() + TRANSFER_TIMEOUT_S
        while True:
            try:
                (handle,) = self.bus.call(self.session, "SelectionRead", "s", (mime,))
                return _fd(handle)
            except BusError as err:
                if err.name != "org.freedesktop.DBus.Error.LimitsExceeded" or time.monotonic() >= deadline:
                    raise
            self.pump(0.002)  # polling Mutter until its last read is done, with a deadline

    def set(self, data: Mapping[str, bytes], *, transient: bool = False) -> None:
        """Own the selection with ``data``'s types (empty: give it up, the clipboard empty).

        Mutter's clipboard manager reads one text type of every new selection at once (it asks
        before ``SetSelection`` returns), to own a copy when the owner goes: that read is not the
        target's, so it is not counted in ``sent``; for a ``transient`` selection (a paste's) it
        is refused, so no copy of the pasted text outlives the paste."""
        self.pump(0.0)
        options: dict[str, tuple[str, Any]] = {"mime-types": ("as", list(data))} if data else {}
        self.data = dict(data) if data else None
        self.bus.call(self.session, "SetSelection", "a{sv}", (options,))
        self.owned = bool(data)
        self.offered = []
        early = list(self.events)
        self.events.clear()  # the same list: ``bus.on_other`` appends to it
        for msg in early:  # arrived before the reply: the clipboard manager's
            if transient and msg.header.fields.get(3) == "SelectionTransfer" and self._mine(msg):
                self.bus.call(self.session, "SelectionWriteDone", "ub", (int(msg.body[1]), False))
            else:
                self._handle(msg)
        self.sent = []

    def clear(self) -> None:
        """Give the selection up: the clipboard is empty."""
        self.set({})


def _mime_types(value: Any) -> list[str]:
    """The types of a ``SelectionOwnerChanged`` (Mutter 43 sends them as ``(as)``), each once."""
    if isinstance(value, tuple) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]
    return list(dict.fromkeys(str(t) for t in value))


def _write_all(fd: int, data: bytes) -> bool:
    try:
        os.set_blocking(fd, False)
        view, deadline = memoryview(data), time.monotonic() + TRANSFER_TIMEOUT_S
        while view:
            _r, ready, _x = select.select([], [fd], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return False
            view = view[os.write(fd, view) :]
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _read_all(fd: int, idle: Any) -> bytes | None:
    """Read the pipe to its end within the transfer timeout (None when it does not end)."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + TRANSFER_TIMEOUT_S
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _w, _x = select.select([fd], [], [], min(left, _IDLE_S))
            if not ready:
                idle()  # our own selection may be what is read: serve it meanwhile
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)
