"""The X side of the session's gate: one round trip for the active window, a pid and the pointer.

``WindowProbe.probe`` queues ``_NET_ACTIVE_WINDOW``, a window's ``_NET_WM_PID``, the pointer and,
for a drag, ``accepts_drops`` together (``send_probe`` sends them and lets the caller work until
it reads the answers); ``grab_probe`` starts a ``x11.grabs.GrabProbe`` on a window
and its frames (remembered per window) so it is answered in the same round trip.
``accepts_drops`` says whether a drag released at a point could drop anything there
(``act.pointer``'s XDND wait). The requests go out through ``x11.requests``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from Xlib import X, Xatom
from Xlib.error import XError

from deskhand.backends.linux.x11 import requests as wire
from deskhand.backends.linux.x11.grabs import GrabProbe, ancestors
from deskhand.backends.linux.x11.input import PointerState

__all__ = ("WindowProbe",)

#: Windows whose ancestor chain (for the button-grab probe) is remembered.
CHAIN_CACHE: Final = 256


class WindowProbe:
    """Deferred X requests for the gate on the session's own connection."""

    def __init__(self, d: Any, root: Any) -> None:
        self._d = d
        self._root_id = int(root.id)
        self._atoms: dict[str, int] = {}
        self._chains: dict[int, tuple[int, ...]] = {}

    def grab_probe(self, window: int, button: int, mods: int) -> GrabProbe:
        """Whether another client grabs ``button`` (with ``mods``) on the window or its frames."""
        return GrabProbe(self._d, self._chain(window), button, mods)

    def _chain(self, window: int) -> tuple[int, ...]:
        """``window`` and its frame(s) below the root, remembered per window."""
        chain = self._chains.get(window)
        if chain is None:
            try:
                chain = ancestors(self._d, window)
            except XError:
                return ()  # gone: the gate's pid check reports it
            if len(self._chains) >= CHAIN_CACHE:
                self._chains.clear()
            self._chains[window] = chain
        return chain

    def probe(
        self, window: int | None, drop_at: tuple[int, int] | None = None
    ) -> tuple[int, int | None, PointerState, bool | None]:
        """``_NET_ACTIVE_WINDOW``, ``window``'s ``_NET_WM_PID`` (None when gone), the pointer and,
        with ``drop_at``, :meth:`accepts_drops` for ``window`` there (else None).

        All requests are queued together and answered in one round trip.
        """
        return self.send_probe(window, drop_at)()

    def send_probe(
        self, window: int | None, drop_at: tuple[int, int] | None = None
    ) -> Callable[[], tuple[int, int | None, PointerState, bool | None]]:
        """:meth:`probe`'s requests queued and sent now (with any queued before them, such as a
        ``grab_probe``); the returned call waits for the answers. The caller does its own work
        (the gate reads /proc) while the server answers."""
        d, root = self._d, self._root_id
        active_req = wire.get_property(d, root, self._atom("_NET_ACTIVE_WINDOW"), X.AnyPropertyType)
        pid_req = None
        if window is not None:
            pid_req = wire.get_property(d, window, self._atom("_NET_WM_PID"), Xatom.CARDINAL)
        pointer_req = wire.query_pointer(d, root)
        drops = self._queue_drop(window, *drop_at) if window is not None and drop_at is not None else None
        d.flush()

        def answer() -> tuple[int, int | None, PointerState, bool | None]:
            active = wire.card32(active_req.raw()) or 0
            pid: int | None = None
            if pid_req is not None:
                try:
                    pid = wire.card32(pid_req.raw())
                except XError:
                    pid = None  # the window is gone
            at = wire.pointer(pointer_req.raw())
            here = PointerState(at.root_x, at.root_y, at.child, at.mask)
            return active, pid, here, (drops() if drops is not None else None)

        return answer

    def accepts_drops(self, window: int, x: int, y: int) -> bool:
        """Whether an XDND drop could happen at root point (``x``, ``y``): False only when the
        top-level window there is ``window`` (or its frame) and ``window`` has neither
        ``XdndAware`` nor ``XdndProxy`` (an XDND source drops only on a top-level that has one).

        The two properties and the window at the point are queued together: one round trip.
        """
        return self._queue_drop(window, x, y)()

    def _queue_drop(self, window: int, x: int, y: int) -> Callable[[], bool]:
        """Queue :meth:`accepts_drops`'s requests; the returned call reads their replies."""
        d = self._d
        chain = self._chain(window)
        if not chain:
            return lambda: True  # gone: the caller's wait decides, as before
        props = [wire.get_property(d, window, self._atom(name)) for name in ("XdndAware", "XdndProxy")]
        at = wire.translate_coords(d, self._root_id, self._root_id, x, y)

        def answer() -> bool:
            try:
                found = [wire.property_exists(p.raw()) for p in props]
                child = wire.child_at(at.raw())
            except XError:
                return True
            return child != chain[-1] or any(found)

        return answer

    def _atom(self, name: str) -> int:
        atom = self._atoms.get(name)
        if atom is None:
            atom = self._atoms[name] = int(self._d.intern_atom(name))
        return atom
