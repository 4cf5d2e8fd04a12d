"""Reading every target of the current CLIPBOARD owner (a snapshot), INCR included.

Runs on the clipboard owner's thread (``x11.clipboard.owner``); requests for what we own are served
while it waits for the other owner's answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from Xlib import X

from deskhand.backends.linux.x11.clipboard.connection import MAX_PROPERTY_BYTES, raw_value
from deskhand.backends.linux.x11.clipboard.pipe import Item
from deskhand.backends.linux.x11.clipboard.server import META_TARGETS, Serving
from deskhand.core.errors import NativeError

__all__ = ("CONVERT_TIMEOUT_S", "Reading", "Snapshot")

#: How long one conversion from the previous owner may take during a snapshot.
CONVERT_TIMEOUT_S: Final = 1.0


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every target of the clipboard at one moment; empty when nobody owned it."""

    items: Mapping[str, Item] = field(default_factory=dict)
    #: Targets the owner listed but refused to convert (they never had data to keep).
    refused: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.items


class Reading(Serving):
    """The reading half of the clipboard owner."""

    def _snapshot(self, deadline: float) -> Snapshot:
        owner = self._d.get_selection_owner(self._clipboard)
        if owner == X.NONE or owner is None:
            return Snapshot()
        if self._owned and owner == self._win:
            return Snapshot(dict(self._items))
        listed = self._convert("TARGETS", deadline)
        if listed is None:
            msg = "The clipboard owner did not list its targets; the clipboard was not modified."
            raise NativeError("clipboard_snapshot_failed", msg, dispatched=False)
        items: dict[str, Item] = {}
        refused: list[str] = []
        for atom in listed.data if isinstance(listed.data, tuple) else ():
            name = self._name(atom)
            if name is None or name in META_TARGETS or name in items:
                continue  # None: atom 0 or an id the server does not know (some owners list those)
            got = self._convert(name, deadline)
            if got is None:
                refused.append(name)
            else:
                items[name] = got
        return Snapshot(items, tuple(refused))

    def _convert(self, target: str, deadline: float) -> Item | None:
        """One ConvertSelection from the current owner into our window (INCR included)."""
        prop = self._atom("DESKHAND_SNAPSHOT")
        self._win.delete_property(prop)
        self._win.convert_selection(self._clipboard, self._atom(target), prop, X.CurrentTime)
        self._d.flush()
        ev = self._wait(lambda e: e.type == X.SelectionNotify and e.requestor == self._win, deadline)
        if ev.property == X.NONE:
            return None
        reply = self._win.get_full_property(prop, X.AnyPropertyType, sizehint=MAX_PROPERTY_BYTES)
        self._win.delete_property(prop)
        self._d.flush()
        if reply is None:
            return None
        if reply.property_type == self._atom("INCR"):
            return self._read_incr(prop, deadline)
        kind = self._name(reply.property_type)
        return None if kind is None else Item(kind, reply.format, raw_value(reply))

    def _read_incr(self, prop: int, deadline: float) -> Item:
        chunks: list[bytes] = []
        kind, fmt = "", 8
        while True:
            self._wait(
                lambda e: e.type == X.PropertyNotify and e.atom == prop and e.state == X.PropertyNewValue,
                deadline,
            )
            reply = self._win.get_full_property(prop, X.AnyPropertyType, sizehint=MAX_PROPERTY_BYTES)
            self._win.delete_property(prop)
            self._d.flush()
            if reply is None:
                continue
            data = raw_value(reply)
            if not data:
                return Item(kind, fmt, b"".join(chunks))
            kind, fmt = self._name(reply.property_type) or kind, reply.format
            chunks.append(data if isinstance(data, bytes) else bytes(data))
