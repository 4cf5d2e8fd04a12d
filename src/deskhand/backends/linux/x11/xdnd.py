"""Watching an XDND session from outside (a Linux addition to the drag of native-contract.md 6.4).

A toolkit starts drag-and-drop when the pointer moves past its threshold with the button down:
the source takes ownership of the ``XdndSelection`` selection, sends ``XdndPosition`` to the
window under the pointer at each motion and waits for its ``XdndStatus`` before it lets a release
drop (a release before any status cancels the drag: the file is only selected). The client
messages go between the two apps (``SendEvent`` with an empty event mask reaches only the window's
creator), so no third client can select them; what ``XdndWatch`` sees, on connections of its own:

* ``SetSelectionOwnerNotify`` for ``XdndSelection`` (XFixes): the session started;
* the target's ``XdndStatus`` itself (the RECORD extension, which shows a third client the
  ``SendEvent`` requests every client makes; only ``XdndStatus`` client messages are kept, with
  their accept bit): the target's answer, when source and target are two clients;
* ``CursorNotify`` (XFixes): the source changes the drag cursor when a status arrives (GTK and Qt
  do, accept or refuse). This stands in for the answer where RECORD cannot see it: a drag inside
  one GTK app (a file onto a folder in Thunar) never goes through the server, GDK hands its own
  XDND messages to itself; and on a server without RECORD.

Either counts as the target's answer (``answers``); ``accepted`` is known only from a status seen.

``XdndWatch`` only listens; every wait is bounded.
"""

from __future__ import annotations

import contextlib
import struct
import threading
import time
from typing import Any, Final

from Xlib import display
from Xlib.ext import record, xfixes

__all__ = ("XdndWatch",)

POLL_S: Final = 0.005
#: GTK starts the session about 0.1 s after the motion, well after answering a ping sent with it: the
#: wait for a session goes on this long after the app answered.
AFTER_PING_S: Final = 0.3
#: After the cursor changed, a status message RECORD may still bring is waited for this long.
STATUS_AFTER_CURSOR_S: Final = 0.02
#: How long the recorder waits for RECORD to start delivering.
RECORD_START_S: Final = 1.0
#: The core request RECORD is asked for, and the client-message event code inside it.
X_SEND_EVENT: Final = 25
CLIENT_MESSAGE: Final = 33


class XdndWatch:
    """XFixes selection and cursor events on a connection of its own (module docstring)."""

    def __init__(self, display_name: str) -> None:
        self._d = display.Display(display_name)
        self._root = self._d.screen().root
        self._ok = self._d.has_extension("XFIXES")
        self._selection = int(self._d.intern_atom("XdndSelection"))
        if self._ok:
            d: Any = self._d
            try:
                d.xfixes_query_version()
                d.xfixes_select_selection_input(self._root, self._selection, xfixes.XFixesSetSelectionOwnerNotifyMask)
                d.xfixes_select_cursor_input(self._root, xfixes.XFixesDisplayCursorNotifyMask)
                d.sync()
            except BaseException:
                d.close()
                raise
        self._owned = False
        self._cursor_changes = 0
        self._status = _StatusRecorder(display_name, int(self._d.intern_atom("XdndStatus")))

    @property
    def available(self) -> bool:
        return self._ok

    def close(self) -> None:
        self._status.close()
        self._d.close()

    def reset(self) -> None:
        """Forget what was seen so far (before a drag's press)."""
        self._drain()
        self._owned = False
        self._cursor_changes = 0

    def _drain(self) -> None:
        while self._d.pending_events():
            ev: Any = self._d.next_event()
            # by class name: python-xlib loads its extension modules a second time, so the
            # classes of the events it builds are not the ones ``Xlib.ext.xfixes`` exports
            kind = type(ev).__name__
            if kind == "SetSelectionOwnerNotify":
                if int(ev.selection) == self._selection and _wid(ev.owner) != 0:
                    self._owned = True
            elif kind == "DisplayCursorNotify":
                self._cursor_changes += 1

    def wait_started(self, timeout_s: float, *, done: Any = None) -> bool:
        """True once ``XdndSelection`` got an owner since ``reset``; False after ``timeout_s``, or
        earlier when ``done()`` says the app has handled the input without starting a session."""
        deadline = time.monotonic() + timeout_s
        answered_at: float | None = None
        while True:
            self._drain()
            if self._owned:
                return True
            now = time.monotonic()
            if answered_at is None and done is not None and done():
                answered_at = now
            if now >= deadline or (answered_at is not None and now - answered_at >= AFTER_PING_S):
                self._drain()
                return self._owned
            time.sleep(POLL_S)

    def record(self) -> bool:
        """Watch for ``XdndStatus`` from now on, until ``stop_recording`` (RECORD runs only while a
        session is under way); False when RECORD cannot (the cursor change still answers)."""
        return self._status.start()

    def stop_recording(self) -> None:
        self._status.stop()

    def answers(self) -> tuple[int, int]:
        """The target's answers so far: ``XdndStatus`` messages seen (RECORD) and the source's
        drag cursor changes (module docstring)."""
        self._drain()
        return self._status.count, self._cursor_changes

    def accepted(self) -> bool | None:
        """The accept bit of the last ``XdndStatus`` seen (None without one)."""
        return self._status.accepted

    def status_seen_since(self, since: tuple[int, int]) -> bool:
        """Whether an ``XdndStatus`` itself (not only a cursor change) came after ``since``."""
        return self._status.count > since[0]

    def wait_answer(self, since: tuple[int, int], timeout_s: float) -> bool:
        """True once an answer of either kind came after the ``answers()`` value ``since``; a
        status is waited for a little longer (``STATUS_AFTER_CURSOR_S``) after a cursor change."""
        deadline = time.monotonic() + timeout_s
        cursor_at: float | None = None
        while True:
            status, cursor = self.answers()
            now = time.monotonic()
            if status > since[0]:
                return True
            if cursor > since[1] and cursor_at is None:
                cursor_at = now
            if cursor_at is not None and (not self._status.recording or now - cursor_at >= STATUS_AFTER_CURSOR_S):
                return True
            if now >= deadline:
                return cursor_at is not None
            time.sleep(POLL_S)


class _StatusRecorder:
    """``XdndStatus`` client messages any client sends, through RECORD (module docstring).

    RECORD needs two connections: ``record_enable_context`` blocks on one (a daemon thread reads
    the intercepted requests), the other creates and later disables the context. ``ok`` is False
    when the server lacks RECORD or refuses it; then nothing is recorded.

    The context is enabled only while a drag's session is under way (``start``, ``stop``): enabled
    all the time, every ``SendEvent`` on the server (each drag's and each key burst's pings, the
    clipboard's answers, apps' own messages) woke the reader thread and was parsed, about a tenth
    of the server's CPU time in a loop of drags.
    """

    def __init__(self, display_name: str, status_atom: int) -> None:
        self._atom = status_atom
        self.count = 0
        self.accepted: bool | None = None
        #: RECORD is there and the context is made (``start`` can record)
        self.ok = False
        #: recording now (between ``start`` and ``stop``)
        self.recording = False
        self._ctrl: Any = None
        self._data: Any = None
        self._ctx = 0
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        with contextlib.suppress(Exception):
            self._make(display_name)

    def _make(self, display_name: str) -> None:
        ctrl: Any = display.Display(display_name)
        if not ctrl.has_extension("RECORD"):
            ctrl.close()
            return
        ranges = {
            "core_requests": (X_SEND_EVENT, X_SEND_EVENT), "core_replies": (0, 0),
            "ext_requests": (0, 0, 0, 0), "ext_replies": (0, 0, 0, 0), "delivered_events": (0, 0),
            "device_events": (0, 0), "errors": (0, 0), "client_started": False, "client_died": False,
        }  # fmt: skip
        self._ctx = ctrl.record_create_context(0, [record.AllClients], [ranges])
        ctrl.sync()
        self._ctrl = ctrl
        self._data = display.Display(display_name)
        self.ok = True

    def start(self) -> bool:
        """Record from now on, once RECORD delivers (at most ``RECORD_START_S``); False when it cannot."""
        if not self.ok or self.recording:
            return self.recording
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deskhand-xdnd-record", daemon=True)
        self._thread.start()
        self.recording = self._started.wait(RECORD_START_S)
        return self.recording

    def _run(self) -> None:
        with contextlib.suppress(Exception):
            self._data.record_enable_context(self._ctx, self._seen)  # returns once disabled

    def stop(self) -> None:
        """Stop recording (the context stays, for the next ``start``)."""
        thread, self._thread = self._thread, None
        self.recording = False
        if thread is None:
            return
        with contextlib.suppress(Exception):
            self._ctrl.record_disable_context(self._ctx)
            self._ctrl.sync()
        thread.join(timeout=1.0)
        if thread.is_alive():
            self.ok = False  # the data connection is still taken: never start on it again

    def _seen(self, reply: Any) -> None:
        """One intercepted ``SendEvent`` request: opcode, propagate, length, destination, mask,
        then the 32-byte event; an ``XdndStatus`` client message counts."""
        if reply.category == record.StartOfData:
            self._started.set()
        if reply.category != record.FromClient:
            return
        raw = bytes(reply.data)
        order = ">" if reply.client_swapped != (struct.pack("=H", 1) == b"\x00\x01") else "<"
        at = 0
        while at + 44 <= len(raw):  # one request a reply in practice; a batch is walked by length
            (words,) = struct.unpack_from(order + "H", raw, at + 2)
            if raw[at] == X_SEND_EVENT and raw[at + 12] & 0x7F == CLIENT_MESSAGE:
                msg_type, _target, flags = struct.unpack_from(order + "III", raw, at + 20)
                if msg_type == self._atom:
                    self.accepted = bool(flags & 1)
                    self.count += 1
            at += max(4, words * 4)

    def close(self) -> None:
        if self._ctrl is None:
            return
        self.stop()
        with contextlib.suppress(Exception):
            self._ctrl.record_free_context(self._ctx)
            self._ctrl.close()
        with contextlib.suppress(Exception):
            self._data.close()
        self._ctrl = None
        self.ok = False


def _wid(value: Any) -> int:
    """A window field of an event: a resource object, or the number itself."""
    return int(getattr(value, "id", value) or 0)
