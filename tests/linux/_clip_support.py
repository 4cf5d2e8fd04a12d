"""The user's clipboard on either display server: another client owns it (every type it was given,
served from its own thread), and fresh clients read it back, type by type.

X11: a ``ClipboardOwner`` on a connection of its own, and the CLIPBOARD selection's targets.
Wayland: a data-control source of another Wayland client, and its MIME types.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from Xlib import X
from Xlib import display as xdisplay
from Xlib.protocol import request

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._dataclip import DataClipboard
from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner, Item, text_items
from deskhand.desktop import VirtualDesktop
from display_support import is_wayland

#: The text types of a Wayland clipboard (X11's are ``text_items``').
_WL_TEXT = "text/plain;charset=utf-8"
_HTML = "text/html"


class OtherClient:
    """Another app's clipboard: ``own`` it with text (and HTML and private types), or ``hang``:
    own it and never answer a request (as a client that died mid-transfer)."""

    def __init__(self, desktop: VirtualDesktop) -> None:
        self.desktop = desktop
        self._x: ClipboardOwner | None = None
        self._wl: tuple[Client, DataClipboard] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if desktop.wayland:
            client = Client(desktop.env)
            self._wl = (client, DataClipboard(client))
        else:
            self._x = ClipboardOwner(desktop.env["DISPLAY"])

    def own(
        self, text: str, html: str | None = None, extra: dict[str, bytes] | None = None, *, serve: bool = True
    ) -> None:
        if self._x is not None:
            items = text_items(text, html)
            items.update({t: Item(t, 8, data) for t, data in (extra or {}).items()})
            self._x.own(items)
            if not serve:
                self._x._serve = lambda ev: None  # type: ignore[method-assign]  # stop answering requests
            return
        assert self._wl is not None and self._thread is None, "one own() per Wayland client"
        data = {_WL_TEXT: text.encode()} | ({_HTML: html.encode()} if html is not None else {}) | (extra or {})
        clip = self._wl[1]
        clip.set(data)
        if serve:
            self._thread = threading.Thread(target=self._serve, args=(clip,), daemon=True)
            self._thread.start()
        else:
            self._wl[0].conn.roundtrip(2.0)  # the source is the selection now, and is never read

    def hang(self, text: str) -> None:
        self.own(text, serve=False)

    def _serve(self, clip: DataClipboard) -> None:
        while not self._stop.is_set() and not clip.cancelled:
            clip.serve_once(0.02)

    @property
    def owns(self) -> bool:
        if self._x is not None:
            return self._x.owns
        assert self._wl is not None
        return not self._wl[1].cancelled

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
        if self._x is not None:
            self._x.close()
        if self._wl is not None:
            self._wl[0].close()


def clipboard_now(desktop: VirtualDesktop) -> dict[str, Any]:
    """Every type the clipboard holds now, read by a fresh client ({} when nobody owns it)."""
    if desktop.wayland:
        with Client(desktop.env) as client:
            return DataClipboard(client).read_all()
    reader = ClipboardOwner(desktop.env["DISPLAY"])
    try:
        return dict(reader.snapshot().items)
    finally:
        reader.close()


def clipboard_text(desktop: VirtualDesktop) -> bytes | None:
    """The clipboard's UTF-8 text now."""
    now = clipboard_now(desktop)
    if desktop.wayland:
        return now.get(_WL_TEXT)
    item = now.get("UTF8_STRING")
    return None if item is None else bytes(item.data)


def clear_clipboard(desktop: VirtualDesktop) -> None:
    """Nobody owns the clipboard: its owner gives it up (X11: the selection's owner set to None;
    Wayland: a data-control client takes it and clears it)."""
    if desktop.wayland:
        with Client(desktop.env) as client:
            clip = DataClipboard(client)
            clip.set({_WL_TEXT: b"-"})
            clip.clear()
        return
    d = xdisplay.Display(desktop.env["DISPLAY"])
    try:
        atom = d.intern_atom("CLIPBOARD")
        request.SetSelectionOwner(display=d.display, window=X.NONE, selection=atom, time=X.CurrentTime)
        d.sync()
    finally:
        d.close()


def during_paste(ex: Any, monkeypatch: Any, act: Callable[[], None]) -> None:
    """Run ``act`` while the executor's next paste polls what the app read from its clipboard
    (the core polls after posting ctrl+v; ``act`` runs at the second poll), then wait up to 2 s
    until the executor's clipboard lost the selection: X11's ``ClipboardOwner.requests``, or the
    Wayland clipboard server's ``data_requests_since``."""
    calls: list[object] = []

    def lost(owns: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 2.0
        while owns() and time.monotonic() < deadline:
            time.sleep(0.005)  # polling the owner's state with a deadline

    if is_wayland(ex):
        server = ex.actor.keys.paste_clipboard()
        original = server.data_requests_since

        def polled(token: object) -> list[str]:
            calls.append(token)
            if len(calls) == 2:
                act()
                lost(lambda: server.owns)
            return list(original(token))

        monkeypatch.setattr(server, "data_requests_since", polled)
        return
    owner = ex.actor.session.clipboard()
    original_requests = owner.requests

    def requests() -> Any:
        calls.append(1)
        if len(calls) == 2:
            act()
            lost(lambda: owner.owns)
        return original_requests()

    monkeypatch.setattr(owner, "requests", requests)
