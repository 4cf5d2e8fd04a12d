"""Answering other clients' requests for the items we own (ICCCM 2.6.2), on the owner thread.

``TARGETS``, ``TIMESTAMP``, each item's target, and ``MULTIPLE`` (several targets in one request,
as clipboard managers ask for them when they save a clipboard). Items over ``MAX_WRITE_BYTES``
go over INCR (ICCCM 2.7.2): each time the requestor deletes the property, the next chunk.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any, Final

from Xlib import X, Xatom

from deskhand.backends.linux.x11.clipboard.connection import ClipConn
from deskhand.backends.linux.x11.clipboard.pipe import Item

__all__ = ("META_TARGETS", "Serving")

#: Targets that describe the selection rather than carry its data; never snapshotted as data.
META_TARGETS: Final = frozenset({"TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE", "INSERT_SELECTION"})
#: Largest property we write in one request (an X request without BIG-REQUESTS is under 256 KiB):
#: bigger items go over INCR in chunks of this size.
MAX_WRITE_BYTES: Final = 128 * 1024
#: How long an INCR transfer may wait for the requestor to take the next chunk.
INCR_TIMEOUT_S: Final = 5.0


@dataclass(slots=True)
class _Transfer:
    """One INCR transfer in progress: the requestor deletes the property, we write the next chunk."""

    requestor: Any
    prop: int
    type: int
    data: bytes
    offset: int
    expires: float


class Serving(ClipConn):
    """The serving half of the clipboard owner: what it owns and how it answers for it."""

    def __init__(self, display_name: str | None = None) -> None:
        super().__init__(display_name)
        self._items: dict[str, Item] = {}
        self._owned = False
        self._timestamp = X.CurrentTime
        self._reads: list[str] = []
        self._requests: list[str] = []
        self._transfers: list[_Transfer] = []

    def _serve(self, ev: Any) -> None:
        target = self._name(ev.target) or ""  # an unknown target is refused below
        prop = ev.property if ev.property != X.NONE else ev.target
        requestor = ev.requestor
        ok = False
        if self._owned and ev.selection == self._clipboard:
            self._requests.append(target)
            try:
                ok = (
                    self._answer_multiple(requestor, prop)
                    if target == "MULTIPLE"
                    else self._answer(requestor, prop, target)
                )
            except Exception:
                ok = False
        notify = _selection_notify(ev, prop if ok else X.NONE)
        with contextlib.suppress(Exception):  # the requestor went away
            requestor.send_event(notify, event_mask=0)
            self._d.flush()

    def _answer_multiple(self, requestor: Any, prop: int) -> bool:
        """ICCCM 2.6.2: convert each (target, property) pair; a refused one's property becomes None."""
        pair = self._atom("ATOM_PAIR")
        reply = requestor.get_full_property(prop, pair)
        if reply is None or reply.format != 32:
            return False
        pairs = [int(v) for v in reply.value]
        for i in range(0, len(pairs) - 1, 2):
            target = self._name(pairs[i]) or ""
            if target == "MULTIPLE" or not pairs[i + 1] or not self._answer(requestor, pairs[i + 1], target):
                pairs[i + 1] = X.NONE
        requestor.change_property(prop, pair, 32, pairs)
        return True

    def _answer(self, requestor: Any, prop: int, target: str) -> bool:
        if target == "TARGETS":
            atoms = [self._atom(n) for n in ("TARGETS", "TIMESTAMP", "MULTIPLE", *self._items)]
            requestor.change_property(prop, Xatom.ATOM, 32, atoms)
            return True
        if target == "TIMESTAMP":
            requestor.change_property(prop, Xatom.INTEGER, 32, [int(self._timestamp)])
            return True
        item = self._items.get(target)
        if item is None:
            return False
        if len(item.data) * max(1, item.format // 8) > MAX_WRITE_BYTES:
            if item.format != 8 or not isinstance(item.data, bytes):
                return False
            # INCR: announce the size; each time the requestor deletes the property, the next chunk
            requestor.change_attributes(event_mask=X.PropertyChangeMask)
            requestor.change_property(prop, self._atom("INCR"), 32, [len(item.data)])
            expires = time.monotonic() + INCR_TIMEOUT_S
            self._transfers.append(_Transfer(requestor, prop, self._atom(item.type), item.data, 0, expires))
        else:
            requestor.change_property(prop, self._atom(item.type), item.format, item.data)
        self._reads.append(target)  # a data request counts as a read (text targets, for a paste)
        return True

    def _next_chunk(self, ev: Any) -> bool:
        now = time.monotonic()
        self._transfers = [t for t in self._transfers if t.expires > now]
        for t in self._transfers:
            if t.requestor.id == ev.window.id and t.prop == ev.atom:
                chunk = t.data[t.offset : t.offset + MAX_WRITE_BYTES]
                try:
                    t.requestor.change_property(t.prop, t.type, 8, chunk)
                    self._d.flush()
                except Exception:  # the requestor went away
                    chunk = b""
                t.offset += len(chunk)
                t.expires = now + INCR_TIMEOUT_S
                if not chunk:  # the zero-length chunk ends the transfer
                    self._transfers.remove(t)
                return True
        return False

    @property
    def _transferring(self) -> bool:
        """True while an INCR transfer of ours is still being taken."""
        now = time.monotonic()
        return any(t.expires > now for t in self._transfers)


def _selection_notify(ev: Any, prop: int) -> Any:
    from Xlib.protocol import event  # noqa: PLC0415 -- keeps the module's import surface small

    return event.SelectionNotify(
        time=ev.time, requestor=ev.requestor, selection=ev.selection, target=ev.target, property=prop
    )
