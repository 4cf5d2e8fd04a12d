"""The X side of the session's gate: one round trip for the active window, a pid and the pointer.

``WindowProbe.probe`` queues ``_NET_ACTIVE_WINDOW``, a window's ``_NET_WM_PID``, the pointer and,
for a drag, ``accepts_drops`` together; ``grab_probe`` starts a ``_grabs.GrabProbe`` on a window
and its frames (remembered per window) so it is answered in the same round trip.
``accepts_drops`` says whether a drag released at a point could drop anything there
(``_pointer``'s XDND wait).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from Xlib import X, Xatom
from Xlib.error import XError
from Xlib.protocol import request

from deskhand.backends.linux._grabs import GrabProbe, ancestors
from deskhand.backends.linux._input import PointerState

__all__ = ("WindowProbe",)

#: Windows whose ancestor chain (for the button-grab probe) is remembered.
CHAIN_CACHE: Final = 256


def _card32(reply: Any) -> int | None:
    """The first value of a 32-bit GetProperty reply; None when the property is absent."""
    if not reply.property_type:
        return None
    fmt, value = reply.value
    return int(value[0]) if fmt == 32 and len(value) else None


class WindowProbe:
    """Deferred X requests for the gate on the session's own connection."""

    def __init__(self, d: Any, root: Any) -> None:
        self._d = d
        self._root = root
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
        d = self._d.display
        active_req = request.GetProperty(
            display=d, defer=True, delete=False, window=self._root, property=self._atom("_NET_ACTIVE_WINDOW"),
            type=X.AnyPropertyType, long_offset=0, long_length=1,
        )  # fmt: skip
        pid_req = None
        if window is not None:
            pid_req = request.GetProperty(
                display=d, defer=True, delete=False, window=window, property=self._atom("_NET_WM_PID"),
                type=Xatom.CARDINAL, long_offset=0, long_length=1,
            )  # fmt: skip
        pointer_req = request.QueryPointer(display=d, defer=True, window=self._root)
        drops = self._queue_drop(window, *drop_at) if window is not None and drop_at is not None else None
        active_req.reply()
        active = _card32(active_req) or 0
        pid: int | None = None
        if pid_req is not None:
            try:
                pid_req.reply()
            except XError:
                pid = None  # the window is gone
            else:
                pid = _card32(pid_req)
        pointer_req.reply()
        child = pointer_req.child
        here = PointerState(
            pointer_req.root_x, pointer_req.root_y, int(getattr(child, "id", child) or 0), pointer_req.mask
        )
        return active, pid, here, (drops() if drops is not None else None)

    def accepts_drops(self, window: int, x: int, y: int) -> bool:
        """Whether an XDND drop could happen at root point (``x``, ``y``): False only when the
        top-level window there is ``window`` (or its frame) and ``window`` has neither
        ``XdndAware`` nor ``XdndProxy`` (an XDND source drops only on a top-level that has one).

        The two properties and the window at the point are queued together: one round trip.
        """
        return self._queue_drop(window, x, y)()

    def _queue_drop(self, window: int, x: int, y: int) -> Callable[[], bool]:
        """Queue :meth:`accepts_drops`'s requests; the returned call reads their replies."""
        d = self._d.display
        chain = self._chain(window)
        if not chain:
            return lambda: True  # gone: the caller's wait decides, as before
        props = [
            request.GetProperty(
                display=d, defer=True, delete=False, window=window, property=self._atom(name),
                type=X.AnyPropertyType, long_offset=0, long_length=1,
            )
            for name in ("XdndAware", "XdndProxy")
        ]  # fmt: skip
        at = request.TranslateCoords(display=d, defer=True, src_wid=self._root, dst_wid=self._root, src_x=x, src_y=y)

        def answer() -> bool:
            try:
                for req in (*props, at):
                    req.reply()
            except XError:
                return True
            child = int(getattr(at.child, "id", at.child) or 0)
            return child != chain[-1] or any(p.property_type for p in props)

        return answer

    def _atom(self, name: str) -> int:
        atom = self._atoms.get(name)
        if atom is None:
            atom = self._atoms[name] = int(self._d.intern_atom(name))
        return atom
