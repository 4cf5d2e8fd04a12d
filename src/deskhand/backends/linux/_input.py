"""XTest pointer and key posting on X11, tracking everything held down so nothing stays pressed.

One ``XInput`` wraps one X connection. Events are queued with ``XTestFakeInput`` and flushed
together by ``flush()`` (one ``XSync``), so a burst reaches the server with no pause between
events. Every press is recorded until its release is posted; ``release_all()`` releases what is
still held (buttons at the last posted point, keys in reverse order), which is how a failed or
cancelled gesture ends.

X11 facts this relies on: a button press happens where the pointer is, so a gesture at a point
starts with a motion to it; a motion to the pointer's current position is still delivered to the
client as a MotionNotify (checked on Xvfb), so the drag's "dragged at origin" event is real.

Knowing the app has processed what was posted. ``AppPing`` sends the app a ``_NET_WM_PING``
(EWMH) after a burst was flushed. The server appends the ClientMessage to the app's event stream
behind the burst's events, and the app answers while handling it, after the events before it:
GTK reads X events one at a time and only when its own queue is empty, and Qt answers from the
same pass over its event queue that resolved the keys (the widgets get the input in that pass's
window-system flush, before any AT-SPI request we send after the answer is served). Apps send the
answer to the root window with ``SubstructureRedirect`` plus a notify mask, and the mask differs:
GTK uses ``SubstructureNotify``, Qt 6 ``StructureNotify`` (checked with python-xlib on Xvfb:
a listener with only one of the two never sees the other toolkit's answer). So the listener
selects both on the root, and only while an answer is awaited.

One exception in GTK 3: the last pointer motion in its queue is held back (motion compression)
until another queued event arrives or its next frame, and a ping is no queued event (GDK answers
it while reading), so a ping right after a motion may be answered before the motion is handled.
``send(window, fence=True)`` first sends the window a ``SelectionRequest`` for a selection of
deskhand's own (``_DESKHAND_FENCE``, which no app owns): GDK queues it, which releases the held
motion, and ignores it once handled (a selection it does not own: no reply, no side effect); the
ping behind it is then read only after the motion was handled.
"""

from __future__ import annotations

import itertools
import select
import time
from dataclasses import dataclass
from typing import Any, Final

from Xlib import X, display
from Xlib.error import XError
from Xlib.ext import xtest
from Xlib.protocol import event

from deskhand.backends.linux._x11 import close_display
from deskhand.core import deadline as call_deadline

__all__ = ()

# Button and wheel numbers are the core's: deskhand.core.pointer.X_BUTTONS, deskhand.core.scroll.X_WHEEL_BUTTONS.
_BUTTON_MASKS: Final = (X.Button1Mask, X.Button2Mask, X.Button3Mask, X.Button4Mask, X.Button5Mask)
#: The masks apps send their ping answer with, besides SubstructureRedirect: GTK and Qt 6.
_ANSWER_MASK: Final = X.SubstructureNotifyMask | X.StructureNotifyMask


@dataclass(frozen=True, slots=True)
class PointerState:
    """What ``XQueryPointer`` reports: root position, the window under it and held buttons."""

    x: int
    y: int
    child: int
    mask: int

    @property
    def buttons_down(self) -> tuple[int, ...]:
        return tuple(i + 1 for i, m in enumerate(_BUTTON_MASKS) if self.mask & m)


class XInput:
    """Posts XTest events on one display connection and remembers what is held."""

    def __init__(self, display: Any) -> None:
        self._d = display
        self._root = display.screen().root
        self._buttons: list[int] = []
        self._keys: list[int] = []
        self.last_point: tuple[int, int] | None = None

    # -- pointer ------------------------------------------------------------------------------
    def move(self, x: float, y: float) -> None:
        ix, iy = round(x), round(y)
        xtest.fake_input(self._d, X.MotionNotify, x=ix, y=iy)
        self.last_point = (ix, iy)

    def button_down(self, button: int, *, delay_ms: int = 0) -> None:
        """Press ``button``; ``delay_ms`` > 0 makes the server process it that much later.

        The delay is XTest's own (the server holds this client's request stream, the client does
        not sleep), so a burst stays one flush; it gives the press a later server timestamp.
        """
        xtest.fake_input(self._d, X.ButtonPress, button, time=delay_ms)
        self._buttons.append(button)

    def button_up(self, button: int) -> None:
        xtest.fake_input(self._d, X.ButtonRelease, button)
        if button in self._buttons:
            self._buttons.remove(button)

    def wheel(self, button: int, clicks: int) -> None:
        for _ in range(clicks):
            xtest.fake_input(self._d, X.ButtonPress, button)
            xtest.fake_input(self._d, X.ButtonRelease, button)

    # -- keys ---------------------------------------------------------------------------------
    def key_down(self, keycode: int) -> None:
        xtest.fake_input(self._d, X.KeyPress, keycode)
        self._keys.append(keycode)

    def key_up(self, keycode: int) -> None:
        xtest.fake_input(self._d, X.KeyRelease, keycode)
        if keycode in self._keys:
            self._keys.remove(keycode)

    # -- delivery and cleanup -----------------------------------------------------------------
    @property
    def held(self) -> bool:
        return bool(self._buttons or self._keys)

    def flush(self) -> None:
        """Send everything queued and wait until the server has processed it."""
        self._d.sync()

    def release_all(self) -> None:
        """Release every held button (at the last posted point: no move) and key, then sync."""
        for button in reversed(self._buttons[:]):
            self.button_up(button)
        for keycode in reversed(self._keys[:]):
            self.key_up(keycode)
        self._d.sync()

    def pointer(self) -> PointerState:
        reply = self._root.query_pointer()
        child = reply.child.id if hasattr(reply.child, "id") else int(reply.child or 0)
        return PointerState(reply.root_x, reply.root_y, child, reply.mask)

    def keys_down(self) -> set[int]:
        """Keycodes the server reports as down (``XQueryKeymap``)."""
        bits = self._d.query_keymap()
        return {i * 8 + b for i, byte in enumerate(bits) for b in range(8) if byte & (1 << b)}


class AppPing:
    """``_NET_WM_PING`` round trips on a connection of their own (see the module docstring).

    ``send(window)`` returns a token, or None when the window does not take pings (its
    ``WM_PROTOCOLS`` lacks ``_NET_WM_PING``); ``answered(token, timeout_s)`` says whether the app
    answered it, waiting up to ``timeout_s``. Several pings may be outstanding; each is kept (in
    ``outstanding``) until ``forget(token)``.
    """

    def __init__(self, display_name: str) -> None:
        self._d = display.Display(display_name)
        self._root = self._d.screen().root
        self._protocols = int(self._d.intern_atom("WM_PROTOCOLS"))
        self._ping = int(self._d.intern_atom("_NET_WM_PING"))
        self._takes_ping: dict[int, bool] = {}
        # Tokens go in the timestamp field; starting from the clock keeps a late answer to an
        # earlier actor's ping from matching.
        self._tokens = itertools.count(int(time.monotonic() * 1000) & 0x3FFFFFFF)
        self._waiting: dict[int, int] = {}  # token -> window
        self._answered: set[int] = set()
        self._listening = False
        #: the fence's requestor window and selection atom, made on first use
        self._fence: tuple[int, int] | None = None

    def close(self) -> None:
        close_display(self._d)

    def send(self, window: int, *, fence: bool = False) -> int | None:
        """Ping ``window``; with ``fence``, behind a queued event (GTK 3: module docstring)."""
        if not self._takes(window):
            return None
        token = next(self._tokens) & 0x7FFFFFFF
        self._waiting[token] = window
        self._listen(True)
        target = self._d.create_resource_object("window", window)
        if fence:
            if self._fence is None:
                requestor = self._root.create_window(0, 0, 1, 1, 0, 0, X.InputOnly, X.CopyFromParent)
                self._fence = (requestor.id, int(self._d.intern_atom("_DESKHAND_FENCE")))
            requestor_id, atom = self._fence
            request = event.SelectionRequest(
                time=X.CurrentTime, owner=window, requestor=requestor_id, selection=atom, target=atom, property=atom
            )
            target.send_event(request, event_mask=0, onerror=lambda *_a: None)
        msg = event.ClientMessage(
            window=window, client_type=self._protocols, data=(32, [self._ping, token, window, 0, 0])
        )

        def gone(*_args: object) -> None:  # the window is gone: no answer will come
            self._waiting.pop(token, None)

        target.send_event(msg, event_mask=0, onerror=gone)
        self._d.flush()
        return token

    def answered(self, token: int | None, timeout_s: float = 0.0) -> bool:
        """True once the app answered ``token``; waits up to ``timeout_s`` for it."""
        if token is None:
            return False
        deadline = time.monotonic() + call_deadline.bound(timeout_s)
        while True:
            self._read()
            if token in self._answered:
                return True
            if token not in self._waiting:
                return False  # never sent, forgotten, or sent to a window that is gone
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            select.select([self._d.fileno()], [], [], remaining)

    @property
    def outstanding(self) -> set[int]:
        return set(self._waiting) | self._answered

    def forget(self, token: int | None) -> None:
        """Stop waiting for ``token`` (the listener stops when nothing is awaited)."""
        if token is None:
            return
        self._waiting.pop(token, None)
        self._answered.discard(token)
        self._listen(bool(self._waiting))

    def _read(self) -> None:
        d = self._d
        while d.pending_events():
            ev = d.next_event()
            if ev.type != X.ClientMessage or ev.client_type != self._protocols:
                continue
            _fmt, data = ev.data
            token = int(data[1])
            if int(data[0]) == self._ping and self._waiting.get(token) == int(data[2]):
                del self._waiting[token]
                self._answered.add(token)
        self._listen(bool(self._waiting))

    def _listen(self, on: bool) -> None:
        """Select the answers on the root while any is awaited (the app sends them after this)."""
        if on != self._listening:
            self._root.change_attributes(event_mask=_ANSWER_MASK if on else 0)
            self._d.flush()
            self._listening = on

    def _takes(self, window: int) -> bool:
        takes = self._takes_ping.get(window)
        if takes is None:
            try:
                prop = self._d.create_resource_object("window", window).get_full_property(
                    self._protocols, X.AnyPropertyType
                )
            except XError:
                return False
            takes = prop is not None and self._ping in (int(a) for a in prop.value)
            if len(self._takes_ping) >= 256:
                self._takes_ping.clear()
            self._takes_ping[window] = takes
        return takes
