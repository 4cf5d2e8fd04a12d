"""The X11 CLIPBOARD owner: snapshot, lazy serving, restore, all on one dedicated thread.

X has no clipboard storage: the selection *owner* answers each ``SelectionRequest``. Serving those
requests from the thread that also makes blocking AT-SPI calls to the pasting app deadlocks (the
app blocks on our ``SelectionNotify`` while we block on its D-Bus reply; linux-stack.md section 4),
so ``ClipboardOwner`` runs its own thread with its **own X connection** and a private window.
Other threads talk to it only through ``_call`` (a queued function run on that thread).

A transaction is: ``snapshot()`` every target of the current owner (INCR transfers included),
``own(items)`` with a real server timestamp, count data requests for text targets as reads,
``restore(snapshot)`` only while we still own the selection, and keep serving the restored
items until another client takes the selection. An external copy (``SelectionClear``) always
wins: ``owns`` turns false and nothing is written back. Items over ``MAX_WRITE_BYTES`` are
served over INCR (ICCCM 2.7.2).

The clipboard outlives deskhand (issue 14 item 3): ``close`` hands what we still own to a
clipboard manager when one runs (``SAVE_TARGETS`` on ``CLIPBOARD_MANAGER``, ICCCM 2.6.1.3
as freedesktop managers implement it), else to a detached keeper process (``_clipkeeper``)
that serves it until another client copies.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from Xlib import X, Xatom, display
from Xlib.error import XError
from Xlib.protocol import request

from deskhand.backends.linux._clipwire import Item, spawn_keeper
from deskhand.backends.linux._x11 import close_display
from deskhand.core.errors import NativeError

__all__ = ("Item",)

T = TypeVar("T")

#: Targets that describe the selection rather than carry its data; never snapshotted as data.
META_TARGETS: Final = frozenset({"TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE", "INSERT_SELECTION"})
#: Text targets we serve for a paste; a data request for one of these counts as a read.
TEXT_TARGETS: Final = ("text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING", "TEXT")
HTML_TARGET: Final = "text/html"
#: How long one conversion from the previous owner may take during a snapshot.
CONVERT_TIMEOUT_S: Final = 1.0
#: Largest property we read in one piece (bigger ones come over INCR).
MAX_PROPERTY_BYTES: Final = 256 * 1024
#: Largest property we write in one request (an X request without BIG-REQUESTS is under 256 KiB):
#: bigger items go over INCR in chunks of this size.
MAX_WRITE_BYTES: Final = 128 * 1024
#: How long an INCR transfer may wait for the requestor to take the next chunk.
INCR_TIMEOUT_S: Final = 5.0
#: How long ``close`` waits for a clipboard manager or the keeper to take the clipboard over.
HANDOFF_TIMEOUT_S: Final = 3.0


@dataclass(slots=True)
class _Transfer:
    """One INCR transfer in progress: the requestor deletes the property, we write the next chunk."""

    requestor: Any
    prop: int
    type: int
    data: bytes
    offset: int
    expires: float


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every target of the clipboard at one moment; empty when nobody owned it."""

    items: Mapping[str, Item] = field(default_factory=dict)
    #: Targets the owner listed but refused to convert (they never had data to keep).
    refused: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.items


def text_items(text: str, html: str | None = None) -> dict[str, Item]:
    """The items we serve for a paste: UTF-8 text under every text target, plus ``text/html``."""
    raw = text.encode("utf-8")
    items = {
        "text/plain;charset=utf-8": Item("text/plain;charset=utf-8", 8, raw),
        "UTF8_STRING": Item("UTF8_STRING", 8, raw),
        "text/plain": Item("text/plain", 8, raw),
        "TEXT": Item("UTF8_STRING", 8, raw),
        "STRING": Item("STRING", 8, text.encode("latin-1", "replace")),
    }
    if html is not None:
        items[HTML_TARGET] = Item(HTML_TARGET, 8, html.encode("utf-8"))
    return items


class ClipboardOwner:
    """Owns CLIPBOARD from its own thread and X connection; see the module docstring."""

    def __init__(self, display_name: str | None = None) -> None:
        self._d = display.Display(display_name)
        screen = self._d.screen()
        self._win = screen.root.create_window(-10, -10, 1, 1, 0, screen.root_depth, event_mask=X.PropertyChangeMask)
        self._atoms: dict[str, int] = {}
        self._names: dict[int, str] = {}
        self._clipboard = self._atom("CLIPBOARD")
        self._items: dict[str, Item] = {}
        self._owned = False
        self._timestamp = X.CurrentTime
        self._generation = 0
        self._reads: list[str] = []
        self._requests: list[str] = []
        self._calls: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        self._closed = threading.Event()
        self._pending: list[Any] = []  # events read while waiting for a conversion
        self._transfers: list[_Transfer] = []
        #: the keeper process ``close`` handed the clipboard to (None: a manager took it, or nothing)
        self.keeper_pid: int | None = None
        self._thread = threading.Thread(target=self._run, name="deskhand-clipboard", daemon=True)
        self._thread.start()

    # -- public, any thread -------------------------------------------------------------------
    @property
    def owns(self) -> bool:
        """True while we own CLIPBOARD (no other client copied since we last took it)."""
        return self._owned

    @property
    def serving(self) -> bool:
        """True while the owner thread runs (it ends when the X connection is lost)."""
        return self._thread.is_alive()

    @property
    def generation(self) -> int:
        return self._generation

    def reads(self) -> list[str]:
        """Text targets requested since the last ``own()``, in order."""
        return list(self._reads)

    def requests(self) -> list[str]:
        """Every target requested since the last ``own()`` (TARGETS included), in order."""
        return list(self._requests)

    def snapshot(self, timeout_s: float = 2.0) -> Snapshot:
        """Every target of the current owner. ``clipboard_snapshot_failed`` when it does not answer."""
        return self._call(lambda: self._snapshot(time.monotonic() + timeout_s), timeout_s + 1.0)

    def own(self, items: Mapping[str, Item]) -> int:
        """Take CLIPBOARD and serve ``items``; returns the new generation. ``clipboard_write_failed``."""
        return self._call(lambda: self._own(dict(items)))

    def restore(self, snapshot: Snapshot, generation: int) -> bool:
        """Serve ``snapshot`` again if we still own the selection we took as ``generation``.

        Returns False (and touches nothing) when another client copied meanwhile.
        """
        return self._call(lambda: self._restore(snapshot, generation))

    def close(self, *, hand_off: bool = True) -> None:
        """Stop serving; what we still own goes to a clipboard manager or a keeper first (see the
        module docstring), so the user's restored clipboard is not lost with us."""
        if self._closed.is_set():
            return
        if hand_off:
            with contextlib.suppress(Exception):  # a dead X server: nothing is left to hand off
                self._call(self._hand_off, HANDOFF_TIMEOUT_S + 12.0)  # the keeper starts within 10 s
        self._closed.set()
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=2.0)
        close_display(self._d)
        os.close(self._wake_r)
        os.close(self._wake_w)

    # -- the owner thread ---------------------------------------------------------------------
    def _call(self, fn: Callable[[], T], timeout_s: float = 5.0) -> T:
        if self._closed.is_set() or not self._thread.is_alive():  # closed, or its X server went away
            raise NativeError("clipboard_write_failed", "The clipboard owner is closed.", dispatched=False)
        done = threading.Event()
        box: dict[str, Any] = {}
        lock = threading.Lock()  # decides, once, whether the call runs or was given up on

        def run() -> None:
            with lock:
                if "abandoned" in box:
                    return  # the caller already got an error: never act late (e.g. take the clipboard)
                box["started"] = True
            try:
                box["value"] = fn()
            except BaseException as exc:
                box["error"] = exc
            done.set()

        self._calls.put(run)
        os.write(self._wake_w, b"x")
        if not done.wait(timeout_s):
            with lock:
                started = "started" in box
                box["abandoned"] = True
            if not started:
                raise NativeError("clipboard_write_failed", "The clipboard thread did not answer.", dispatched=False)
            if not done.wait(timeout_s):  # it is running: wait, bounded, for its effect to be known
                raise NativeError("clipboard_write_failed", "The clipboard thread did not finish.", dispatched=None)
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _run(self) -> None:
        fd = self._d.fileno()
        while not self._closed.is_set():
            self._drain()
            while self._pending:
                self._handle(self._pending.pop(0))
            while self._d.pending_events():
                self._handle(self._d.next_event())
            ready, _, _ = select.select([fd, self._wake_r], [], [], 0.5)
            if self._wake_r in ready:
                os.read(self._wake_r, 64)

    def _drain(self) -> None:
        while True:
            try:
                fn = self._calls.get_nowait()
            except queue.Empty:
                return
            fn()

    def _handle(self, ev: Any) -> None:
        if ev.type == X.SelectionRequest:
            self._serve(ev)
        elif ev.type == X.PropertyNotify and ev.state == X.PropertyDelete:
            self._next_chunk(ev)
        elif ev.type == X.SelectionClear and ev.atom == self._clipboard:
            # Another client copied: it wins, and we never write back over it.
            self._owned = False
            self._items = {}

    def _serve(self, ev: Any) -> None:
        target = self._name(ev.target) or ""  # an unknown target is refused below
        prop = ev.property if ev.property != X.NONE else ev.target
        requestor = ev.requestor
        ok = False
        if self._owned and ev.selection == self._clipboard:
            self._requests.append(target)
            try:
                ok = self._answer(requestor, prop, target)
            except Exception:
                ok = False
            if ok and target not in META_TARGETS:
                self._reads.append(target)
        notify = _selection_notify(ev, prop if ok else X.NONE)
        try:
            requestor.send_event(notify, event_mask=0)
            self._d.flush()
        except Exception:  # noqa: S110 -- the requestor went away
            pass

    def _answer(self, requestor: Any, prop: int, target: str) -> bool:
        if target == "TARGETS":
            atoms = [self._atom(n) for n in ("TARGETS", "TIMESTAMP", *self._items)]
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
            return True
        requestor.change_property(prop, self._atom(item.type), item.format, item.data)
        return True

    def _next_chunk(self, ev: Any) -> None:
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
                return

    def _hand_off(self) -> None:
        """On the owner thread: a clipboard manager saves what we own, else a keeper serves it."""
        if not self._owned or not self._items:
            return
        manager = self._atom("CLIPBOARD_MANAGER")
        if self._d.get_selection_owner(manager) not in (X.NONE, None):
            self._win.convert_selection(manager, self._atom("SAVE_TARGETS"), self._atom("DESKHAND_SAVE"), X.CurrentTime)
            self._d.flush()
            try:  # the manager asks for TARGETS and each target meanwhile (served by _wait)
                ev = self._wait(
                    lambda e: e.type == X.SelectionNotify and e.selection == manager,
                    time.monotonic() + HANDOFF_TIMEOUT_S,
                )
                if ev.property != X.NONE:
                    return
            except NativeError:
                pass
        keeper = spawn_keeper(self._d.get_display_name(), self._win.id, self._items)
        if keeper is None:
            return
        # serve on (INCR chunks too) until the keeper took the selection from us
        fd = self._d.fileno()
        deadline = time.monotonic() + HANDOFF_TIMEOUT_S
        while self._owned and time.monotonic() < deadline:
            while self._d.pending_events():
                self._handle(self._d.next_event())
            select.select([fd], [], [], 0.05)
        self.keeper_pid = None if self._owned else keeper

    def _own(self, items: dict[str, Item]) -> int:
        # The timestamp first: until we take the selection anew, a restored snapshot we still
        # own is what requests (served while waiting) get, and a failure leaves it in place.
        try:
            timestamp = self._server_time()
        except NativeError as err:
            msg = "The X server sent no timestamp to take the clipboard with; the clipboard was not modified."
            raise NativeError("clipboard_write_failed", msg, dispatched=False) from err
        self._items = items
        self._timestamp = timestamp
        self._win.set_selection_owner(self._clipboard, self._timestamp)
        self._d.sync()
        if self._d.get_selection_owner(self._clipboard) != self._win:
            self._items = {}
            raise NativeError("clipboard_write_failed", "Could not take the clipboard.", dispatched=False)
        self._owned = True
        self._generation += 1
        self._reads = []
        self._requests = []
        return self._generation

    def _restore(self, snapshot: Snapshot, generation: int) -> bool:
        if not self._owned or generation != self._generation:
            return False
        if snapshot.empty:
            # Nobody owned the clipboard before: give it up, so it is empty again (X has no
            # storage: "no owner" is how an empty clipboard looks). Our own timestamp makes the
            # server ignore this if another client took the selection meanwhile.
            request.SetSelectionOwner(
                display=self._d.display, window=X.NONE, selection=self._clipboard, time=self._timestamp
            )
            self._d.sync()
            self._owned = False
            self._items = {}
        else:
            self._items = dict(snapshot.items)
        self._generation += 1
        return True

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
        return None if kind is None else Item(kind, reply.format, _raw(reply))

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
            data = _raw(reply)
            if not data:
                return Item(kind, fmt, b"".join(chunks))
            kind, fmt = self._name(reply.property_type) or kind, reply.format
            chunks.append(data if isinstance(data, bytes) else bytes(data))

    def _wait(self, match: Callable[[Any], bool], deadline: float) -> Any:
        """The next event that matches, handling every other event as usual meanwhile."""
        fd = self._d.fileno()
        while True:
            while self._d.pending_events():
                ev = self._d.next_event()
                if match(ev):
                    return ev
                if ev.type == X.SelectionRequest:
                    self._serve(ev)
                else:
                    self._pending.append(ev)
            left = deadline - time.monotonic()
            if left <= 0:
                msg = "The clipboard owner did not answer in time; the clipboard was not modified."
                raise NativeError("clipboard_snapshot_failed", msg, dispatched=False)
            select.select([fd], [], [], left)

    def _server_time(self) -> int:
        """A real server timestamp: append to a property on our window and read the notify."""
        prop = self._atom("DESKHAND_TIMESTAMP")
        self._win.change_property(prop, Xatom.STRING, 8, b"", mode=X.PropModeAppend)
        self._d.flush()
        ev = self._wait(lambda e: e.type == X.PropertyNotify and e.atom == prop, time.monotonic() + 1.0)
        return int(ev.time)

    def _atom(self, name: str) -> int:
        atom = self._atoms.get(name)
        if atom is None:
            atom = self._atoms[name] = int(self._d.intern_atom(name))
            self._names[atom] = name
        return atom

    def _name(self, atom: int) -> str | None:
        """The atom's name; None for 0 or an id the server does not know (never a BadAtom)."""
        if atom == X.NONE:
            return None
        name = self._names.get(atom)
        if name is None:
            try:
                name = str(self._d.get_atom_name(atom))
            except XError:
                return None
            self._names[atom] = name
            self._atoms[name] = atom
        return name


def _raw(reply: Any) -> bytes | tuple[int, ...]:
    value = reply.value
    if reply.format == 8:
        return value if isinstance(value, bytes) else bytes(value)
    return tuple(int(v) for v in value)


def _selection_notify(ev: Any, prop: int) -> Any:
    from Xlib.protocol import event  # noqa: PLC0415 -- keeps the module's import surface small

    return event.SelectionNotify(
        time=ev.time, requestor=ev.requestor, selection=ev.selection, target=ev.target, property=prop
    )
