"""The clipboard through wlr-data-control: read every type of the selection, offer our own.

A data-control device sees the seat's selection whoever owns it, with no focus and no serial: each
new selection arrives as an offer listing its MIME types, and ``receive`` asks the owner to write
one type into a pipe. Our own selection is a source that answers ``send`` by writing the bytes we
hold; it is served while this connection is dispatched (:meth:`DataClipboard.serve`), and it ends
(``cancelled``) when another client takes the selection. :class:`DataControl` is the paste
transaction's transport over it (``_clipserver``), on sway and KWin.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._wire import Proxy, WaylandError

__all__ = ()

_CHUNK: Final = 65536
#: X11 selection targets that name a request, not data (ICCCM): GTK offers SAVE_TARGETS on
#: Wayland too, and on KWin 5.27 a read of it never ends, so a snapshot skips them.
NOT_DATA: Final = frozenset({"SAVE_TARGETS", "TARGETS", "MULTIPLE", "TIMESTAMP", "DELETE", "INSERT_PROPERTY",
                             "INSERT_SELECTION"})  # fmt: skip


class DataClipboard:
    """The seat's regular selection (the clipboard), read and set from outside any app."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.manager = client.need("zwlr_data_control_manager_v1")
        self.device = self.manager.create("get_data_device", client.need("wl_seat").id)
        self._types: dict[int, list[str]] = {}
        self.offer: Proxy | None = None
        self.source: Proxy | None = None
        self.cancelled = False
        self.sent: list[str] = []
        self._data: dict[str, bytes] = {}
        self.device.on("data_offer", self._on_offer)
        self.device.on("selection", self._on_selection)
        self.device.on("primary_selection", self._on_primary)
        self.device.on("finished", lambda: None)
        client.conn.roundtrip(client.timeout_s)

    def _on_offer(self, oid: int) -> None:
        types: list[str] = []
        self._types[oid] = types
        self.client.conn.objects[oid].on("offer", types.append)

    def _on_selection(self, oid: int | None) -> None:
        if self.offer is not None and self.offer.alive:
            self.offer.request("destroy")
        self.offer = self.client.conn.objects.get(int(oid or 0))

    def _on_primary(self, oid: int | None) -> None:
        offer = self.client.conn.objects.get(int(oid or 0))
        if offer is not None and offer is not self.offer:
            offer.request("destroy")

    def types(self) -> list[str]:
        """The MIME types of the current selection, each once (empty when nobody owns it; KWin
        lists some twice)."""
        self.client.conn.roundtrip(self.client.timeout_s)
        return list(dict.fromkeys(self._types.get(self.offer.id, ()))) if self.offer is not None else []

    def read(self, mime: str, timeout_s: float = 2.0) -> bytes:
        """One type of the current selection, as its owner writes it."""
        if self.offer is None:
            raise WaylandError("wayland: the clipboard is empty")
        r, w = os.pipe2(os.O_CLOEXEC)
        try:
            self.offer.request("receive", mime, fds=[w])
            os.close(w)
            w = -1
            self.client.conn.roundtrip(self.client.timeout_s)
            return _read_all(r, time.monotonic() + timeout_s, self.serve_once)
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)

    def read_all(self, timeout_s: float = 2.0) -> dict[str, bytes]:
        """Every type of the current selection that holds data (what a restore needs)."""
        return {mime: self.read(mime, timeout_s) for mime in self.types() if mime not in NOT_DATA}

    def set(self, data: Mapping[str, bytes]) -> None:
        """Own the selection with ``data`` (MIME type -> bytes); served while the connection is dispatched.

        The new source is set before the old one is destroyed: KWin 5.27 leaves the clipboard
        empty when the source it holds is destroyed just before a new one is set (sway does not
        care); the old source's ``cancelled`` is then ignored."""
        if not data:
            raise ValueError("clipboard: nothing to offer")
        old = self.source
        source = self.manager.create("create_data_source")
        self._data = dict(data)
        self.cancelled = False
        self.sent = []
        source.on("send", self._on_send)
        source.on("cancelled", lambda: self._on_cancelled(source))
        for mime in self._data:
            source.request("offer", mime)
        self.device.request("set_selection", source.id)
        self.source = source
        if old is not None and old.alive:
            old.request("destroy")
        self.client.conn.roundtrip(self.client.timeout_s)

    def _on_send(self, mime: str, fd: int) -> None:
        # A writer thread: the reader may be this very connection's thread (``read`` of our own
        # selection), which would never drain a pipe fuller than its buffer.
        threading.Thread(target=_write_all, args=(fd, self._data.get(mime, b"")), daemon=True).start()
        self.sent.append(mime)

    def _on_cancelled(self, source: Proxy) -> None:
        if source is not self.source:
            return  # an earlier source of ours, replaced
        self.cancelled = True
        if source.alive:
            source.request("destroy")
        self.source = None

    def serve_once(self, timeout_s: float = 0.0) -> None:
        self.client.conn.dispatch(timeout_s)

    def serve(self, until: Callable[[], bool], timeout_s: float) -> bool:
        """Answer paste requests until ``until()`` holds or the deadline; whether it held."""
        deadline = time.monotonic() + timeout_s
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.client.conn.dispatch(min(left, 0.05))
        return True

    def clear(self) -> None:
        """Give up our selection (the clipboard is then empty)."""
        self.device.request("set_selection", None)
        self.client.conn.roundtrip(self.client.timeout_s)


class DataControl:
    """``_clipserver.SelectionTransport`` by data control: a connection of its own and its device."""

    keeper = "deskhand.backends.linux.wayland._keeper"
    keeper_wait_s = 2.0

    def __init__(self, env: Mapping[str, str]) -> None:
        self.client = Client(env)
        try:
            self.clip = DataClipboard(self.client)
        except BaseException:
            self.client.close()
            raise

    def fileno(self) -> int:
        return self.client.conn.sock.fileno()

    def pump(self, timeout_s: float) -> None:
        self.clip.serve_once(timeout_s)

    @property
    def owned(self) -> bool:
        return self.clip.source is not None and not self.clip.cancelled

    @property
    def sent(self) -> Sequence[str]:
        return self.clip.sent

    def read_all(self) -> dict[str, bytes]:
        return self.clip.read_all()

    def set(self, data: Mapping[str, bytes], *, transient: bool) -> None:
        """Own the selection (``transient`` is for GNOME's clipboard manager: nothing to refuse here)."""
        del transient
        self.clip.set(data)

    def clear(self) -> None:
        self.clip.clear()

    def close(self) -> None:
        self.client.close()


def _write_all(fd: int, data: bytes) -> None:
    try:
        os.set_blocking(fd, True)
        with contextlib.suppress(BrokenPipeError):
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _read_all(fd: int, deadline: float, pump: Callable[[float], None]) -> bytes:
    """Read ``fd`` to its end; ``pump`` keeps our own connection served meanwhile (we may be the owner)."""
    out = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise WaylandError("wayland: the clipboard owner did not finish writing in time")
        ready, _, _ = select.select([fd], [], [], min(left, 0.02))
        if not ready:
            pump(0.0)
            continue
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return bytes(out)
        out += chunk
