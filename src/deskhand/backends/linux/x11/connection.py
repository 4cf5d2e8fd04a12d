"""The X11 connection of the Linux backend: one python-xlib display, its atoms and extensions.

A window's owning process: ``_NET_WM_PID`` when the client sets it, else the X-Resource
extension's client id (``XResQueryClientIds`` with the local-client-pid mask, which the server
answers from the client's socket credentials; Xvfb and Xorg have it). Tk, SDL, Xt/Xaw and plain
Xlib clients set no ``_NET_WM_PID``; a client on another host has no local pid at all.

One ``XConnection`` is shared by the observer (windows, capture) and the actor (XTest); every
use holds ``XConnection.lock`` because python-xlib replies are read on the calling thread
(``atom`` and ``property`` take it themselves; it is reentrant).
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Final

from Xlib import X, Xatom, display, error
from Xlib.ext import composite, res

from deskhand.backends.linux.x11 import requests as wire
from deskhand.core.errors import BackendUnavailable

#: The longest property value ``XConnection.property`` reads in one request, in 32-bit words.
PROPERTY_WORDS: Final = 1 << 16

#: python-xlib's base error class, for ``except`` clauses at the native boundary.
XError = error.XError


class XConnection:
    """An open X display with cached atoms and the extensions capture needs."""

    def __init__(self, name: str | None = None) -> None:
        name = name or os.environ.get("DISPLAY")
        if not name:
            raise BackendUnavailable("DISPLAY is not set. Run inside `deskhand desktop run -- ...` or export DISPLAY.")
        try:
            self.display: Any = display.Display(name)
        except (error.DisplayError, OSError) as e:
            raise BackendUnavailable(f"Cannot open X display {name}: {e}") from e
        self.name = name
        self.root: Any = self.display.screen().root
        self.lock = threading.RLock()
        self._atoms: dict[str, int] = {}
        self.has_composite = self.display.has_extension("Composite")
        self.has_res = self.display.has_extension("X-Resource")
        #: The bits of a resource id that a client chooses; the rest name the client.
        self._client_mask = ~int(self.display.display.info.resource_id_mask)
        self._redirected = False

    def atom(self, name: str) -> int:
        a = self._atoms.get(name)
        if a is None:
            with self.lock:
                a = self._atoms[name] = self.display.intern_atom(name)
        return a

    def property(self, window: Any, name: str, kind: int = X.AnyPropertyType) -> Any:
        """A window property's value list (or bytes for strings), None when absent or gone.

        One ``GetProperty`` of up to ``PROPERTY_WORDS`` (``x11.requests``); python-xlib's
        ``get_full_property`` reads 40 bytes first and the rest in a second round trip, so a title
        or a client list was often two. A longer value (an icon) is read by python-xlib.

        Takes ``lock`` itself: a capture may run on a worker thread while another thread reads
        properties, and python-xlib loses replies when two threads talk to one display unlocked."""
        wid = int(getattr(window, "id", window))
        try:
            with self.lock:
                atom = self.atom(name)
                got = wire.property_value(wire.get_property(self.display, wid, atom, kind, PROPERTY_WORDS).raw())
                if got is not None and got[2]:
                    prop = self.window(wid).get_full_property(atom, kind)
                    return None if prop is None else prop.value
        except XError:
            return None
        return None if got is None else got[1]

    def text_property(self, window: Any, name: str) -> str | None:
        value = self.property(window, name)
        if value is None:
            return None
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
        return str(value)

    def window(self, wid: int) -> Any:
        return self.display.create_resource_object("window", wid)

    def client_pids(self, wids: list[int]) -> dict[int, int]:
        """The local pid of each window's client from X-Resource, in one round trip; windows of
        remote clients (or with no X-Resource) are left out."""
        if not wids or not self.has_res:
            return {}
        specs = [{"client": wid, "mask": res.LocalClientPIDMask} for wid in wids]
        try:
            with self.lock:
                reply = self.display.res_query_client_ids(specs)
        except XError:
            return {}
        by_client = {
            int(v.spec.client) & self._client_mask: int(v.value[0])
            for v in reply.ids
            if v.spec.mask & res.LocalClientPIDMask and len(v.value)
        }
        out = {}
        for wid in wids:
            pid = by_client.get(wid & self._client_mask)
            if pid:
                out[wid] = pid
        return out

    def redirect_for_capture(self) -> bool:
        """Redirect top-level windows off screen once (automatic mode: the server still paints
        them) so a covered window's pixels stay readable through NameWindowPixmap."""
        if self._redirected or not self.has_composite:
            return self._redirected
        with self.lock:
            try:
                # The server refuses NameWindowPixmap from clients that never asked the version.
                self.display.composite_query_version()
                self.root.composite_redirect_subwindows(composite.RedirectAutomatic)
                self.display.sync()
                self._redirected = True
            except XError:
                self._redirected = False
        return self._redirected

    def close(self) -> None:
        with self.lock:
            close_display(self.display)


def close_display(d: Any) -> None:
    """Close a python-xlib display, its socket too when the X server is gone (``close`` flushes
    first and raises then, leaving the socket open)."""
    try:
        d.close()
    except Exception:
        with contextlib.suppress(Exception):
            d.display.socket.close()


ANY_PROPERTY = X.AnyPropertyType
CARDINAL = Xatom.CARDINAL
WINDOW = Xatom.WINDOW
