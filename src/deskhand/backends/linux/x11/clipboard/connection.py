"""The clipboard owner's X connection: its private window, atoms, server time and event waits.

``x11.clipboard.owner.ClipboardOwner`` is built on this base with two concerns beside it: answering other
clients' requests (``x11.clipboard.server``) and reading the current owner's targets (``x11.clipboard.reader``). All
of it runs on the owner's one thread (see ``x11.clipboard.owner``).
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from typing import Any, Final

from Xlib import X, Xatom, display
from Xlib.error import XError

from deskhand.core.errors import NativeError

__all__ = ("ClipConn", "raw_value")

#: Largest property we read in one piece (bigger ones come over INCR).
MAX_PROPERTY_BYTES: Final = 256 * 1024


class ClipConn:
    """A display connection with one unmapped window that sees its own property changes."""

    def __init__(self, display_name: str | None = None) -> None:
        self._d = display.Display(display_name)
        screen = self._d.screen()
        self._win = screen.root.create_window(-10, -10, 1, 1, 0, screen.root_depth, event_mask=X.PropertyChangeMask)
        self._atoms: dict[str, int] = {}
        self._names: dict[int, str] = {}
        self._clipboard = self._atom("CLIPBOARD")
        self._pending: list[Any] = []  # events read while waiting for another, handled later

    # -- hooks the serving side fills in -----------------------------------------------------
    def _serve(self, ev: Any) -> None:
        raise NotImplementedError

    def _next_chunk(self, ev: Any) -> bool:
        """Send the next INCR chunk if ``ev`` (a PropertyDelete) belongs to a transfer of ours."""
        raise NotImplementedError

    # -- waiting --------------------------------------------------------------------------------
    def _wait(self, match: Callable[[Any], bool], deadline: float) -> Any:
        """The next event that matches, serving requests and INCR chunks meanwhile.

        Serving during a wait matters: a clipboard manager saving our items (``SAVE_TARGETS``)
        reads them while we wait for its answer, large ones over INCR.
        """
        fd = self._d.fileno()
        while True:
            while self._d.pending_events():
                ev = self._d.next_event()
                if match(ev):
                    return ev
                if ev.type == X.SelectionRequest:
                    self._serve(ev)
                elif not (ev.type == X.PropertyNotify and ev.state == X.PropertyDelete and self._next_chunk(ev)):
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

    # -- atoms ----------------------------------------------------------------------------------
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


def raw_value(reply: Any) -> bytes | tuple[int, ...]:
    """A property reply's value: bytes for format 8, else the integers."""
    value = reply.value
    if reply.format == 8:
        return value if isinstance(value, bytes) else bytes(value)
    return tuple(int(v) for v in value)
