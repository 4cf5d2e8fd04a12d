"""The X11 CLIPBOARD owner: snapshot, lazy serving, restore, all on one dedicated thread.

X has no clipboard storage: the selection *owner* answers each ``SelectionRequest``. Serving those
requests from the thread that also makes blocking AT-SPI calls to the pasting app deadlocks (the
app blocks on our ``SelectionNotify`` while we block on its D-Bus reply; linux-stack.md section 4),
so ``ClipboardOwner`` runs its own thread with its **own X connection** and a private window.
Other threads talk to it only through ``_call`` (a queued function run on that thread).

A transaction is: ``snapshot()`` every target of the current owner (``x11.clipboard.reader``, INCR transfers
included), ``own(items)`` with a real server timestamp, count data requests for text targets as
reads, ``restore(snapshot)`` only while we still own the selection, and keep serving the restored
items (``x11.clipboard.server``: MULTIPLE and INCR too) until another client takes the selection. An
external copy (``SelectionClear``) always wins: ``owns`` turns false and nothing is written back.

The clipboard outlives deskhand (issue 14 item 3): ``close`` hands what we still own to a
clipboard manager when one runs (``SAVE_TARGETS`` on ``CLIPBOARD_MANAGER``, ICCCM 2.6.1.3
as freedesktop managers implement it), else to a detached keeper process (``x11.clipboard.keeper``)
that serves it until another client copies. Both take the selection as of the timestamp we took
it with (the manager gets it in the ``SAVE_TARGETS`` request), so the server refuses it if anyone
copied since (ICCCM 2.1): a copy made during the hand-off wins.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from Xlib import X
from Xlib.protocol import request

from deskhand.backends.linux.x11.clipboard.pipe import Item, spawn_keeper
from deskhand.backends.linux.x11.clipboard.reader import Reading, Snapshot
from deskhand.backends.linux.x11.connection import close_display
from deskhand.core.errors import NativeError

__all__ = ("ClipboardOwner", "Item", "Snapshot", "text_items")

T = TypeVar("T")

#: Text targets we serve for a paste; a data request for one of these counts as a read.
TEXT_TARGETS: Final = ("text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING", "TEXT")
HTML_TARGET: Final = "text/html"
#: How long ``close`` waits for a clipboard manager or the keeper to take the clipboard over.
HANDOFF_TIMEOUT_S: Final = 3.0


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


class ClipboardOwner(Reading):
    """Owns CLIPBOARD from its own thread and X connection; see the module docstring."""

    def __init__(self, display_name: str | None = None) -> None:
        super().__init__(display_name)
        self._generation = 0
        self._calls: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        self._closed = threading.Event()
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

    @property
    def timestamp(self) -> int:
        """The server time we last took the selection at (ICCCM: the keeper takes it with this)."""
        return int(self._timestamp)

    def reads(self) -> list[str]:
        """Data targets requested since the last ``own()``, in order."""
        return list(self._reads)

    def requests(self) -> list[str]:
        """Every target requested since the last ``own()`` (TARGETS included), in order."""
        return list(self._requests)

    def snapshot(self, timeout_s: float = 2.0) -> Snapshot:
        """Every target of the current owner. ``clipboard_snapshot_failed`` when it does not answer."""
        return self._call(lambda: self._snapshot(time.monotonic() + timeout_s), timeout_s + 1.0)

    def own(self, items: Mapping[str, Item], *, timestamp: int | None = None) -> int:
        """Take CLIPBOARD and serve ``items``; returns the new generation. ``clipboard_write_failed``.

        ``timestamp``: take it as of that server time (ICCCM 2.1), which the server refuses when
        the selection changed hands since; the keeper takes over from deskhand this way.
        """
        return self._call(lambda: self._own(dict(items), timestamp))

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
            self._handle_events()
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

    def _handle_events(self) -> None:
        """Every event read so far: those put aside during a wait first, then the queued ones."""
        while self._pending:
            self._handle(self._pending.pop(0))
        while self._d.pending_events():
            self._handle(self._d.next_event())

    def _handle(self, ev: Any) -> None:
        if ev.type == X.SelectionRequest:
            self._serve(ev)
        elif ev.type == X.PropertyNotify and ev.state == X.PropertyDelete:
            self._next_chunk(ev)
        elif ev.type == X.SelectionClear and ev.atom == self._clipboard:
            # Another client copied: it wins, and we never write back over it.
            self._owned = False
            self._items = {}

    def _hand_off(self) -> None:
        """On the owner thread: a clipboard manager saves what we own, else a keeper serves it."""
        if not self._owned or not self._items:
            return
        manager = self._atom("CLIPBOARD_MANAGER")
        if self._d.get_selection_owner(manager) not in (X.NONE, None):
            # as of the time we took CLIPBOARD: the manager takes it with that time, which the X
            # server refuses if anyone copied since (ICCCM 2.1), so a copy made meanwhile wins
            save, into = self._atom("SAVE_TARGETS"), self._atom("DESKHAND_SAVE")
            self._win.convert_selection(manager, save, into, self._timestamp)
            self._d.flush()
            try:  # the manager asks for TARGETS and the items meanwhile (served by _wait, INCR too)
                ev = self._wait(
                    lambda e: e.type == X.SelectionNotify and e.selection == manager,
                    time.monotonic() + HANDOFF_TIMEOUT_S,
                )
                if ev.property != X.NONE:
                    return
            except NativeError:
                pass
            self._handle_events()  # a manager that refused may still have taken the selection
            if not self._owned:
                return
        keeper = spawn_keeper(self._d.get_display_name(), self.timestamp, self._items)
        if keeper is None:
            return
        # serve on (INCR chunks too) until the keeper took the selection from us
        fd = self._d.fileno()
        deadline = time.monotonic() + HANDOFF_TIMEOUT_S
        while time.monotonic() < deadline:
            self._handle_events()
            if not self._owned and not self._transferring:
                break
            select.select([fd], [], [], 0.05)
        self.keeper_pid = None if self._owned else keeper

    def _own(self, items: dict[str, Item], at: int | None) -> int:
        # The timestamp first: until we take the selection anew, a restored snapshot we still
        # own is what requests (served while waiting) get, and a failure leaves it in place.
        if at is None:
            try:
                at = self._server_time()
            except NativeError as err:
                msg = "The X server sent no timestamp to take the clipboard with; the clipboard was not modified."
                raise NativeError("clipboard_write_failed", msg, dispatched=False) from err
        self._items = items
        self._timestamp = at
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
