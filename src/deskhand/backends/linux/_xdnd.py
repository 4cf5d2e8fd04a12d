"""Watching an XDND session from outside (a Linux addition to the drag of native-contract.md 6.4).

A toolkit starts drag-and-drop when the pointer moves past its threshold with the button down:
the source takes ownership of the ``XdndSelection`` selection, sends ``XdndPosition`` to the
window under the pointer at each motion and waits for its ``XdndStatus`` before it lets a release
drop (a release before any status cancels the drag: the file is only selected). The client
messages go between the two apps and are not visible to a third client, but two of their effects
are, through XFixes on a connection of our own:

* ``SetSelectionOwnerNotify`` for ``XdndSelection``: the session started;
* ``CursorNotify``: the source changed the drag cursor, which GTK and Qt do when a status arrives
  (accept or refuse, with its action), so the first cursor change after the motion onto the target
  stands for the target's answer.

``XdndWatch`` only listens; every wait is bounded.
"""

from __future__ import annotations

import time
from typing import Any, Final

from Xlib import display
from Xlib.ext import xfixes

__all__ = ("XdndWatch",)

POLL_S: Final = 0.005
#: GTK starts the session about 0.1 s after the motion, well after answering a ping sent with it: the
#: wait for a session goes on this long after the app answered.
AFTER_PING_S: Final = 0.3


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

    @property
    def available(self) -> bool:
        return self._ok

    def close(self) -> None:
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

    def cursor_changes(self) -> int:
        self._drain()
        return self._cursor_changes

    def wait_cursor_change(self, since: int, timeout_s: float) -> bool:
        """True once the cursor changed after the ``cursor_changes()`` value ``since``."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self.cursor_changes() > since:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_S)


def _wid(value: Any) -> int:
    """A window field of an event: a resource object, or the number itself."""
    return int(getattr(value, "id", value) or 0)
