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

Behind a burst on the input's own connection (``XInput.fence``). A ping on ``AppPing``'s connection
must wait until the server has processed the burst (one ``XSync``), or the server may deliver it
first. ``XInput.fence`` queues the answer's selection on the root, the fence and the ping on the
input's connection itself, behind the burst: the server handles one client's requests in order,
so the app receives them after the burst's events, and the answer (``fence_answered``, read from
the same connection) proves the server processed the burst; that burst is therefore flushed
without a round trip of its own. The root selection ends with the wait.

The requests of this module go out through ``x11.requests`` (python-xlib's connection, bytes built
with ``struct``).
"""

from __future__ import annotations

import itertools
import select
import time
from dataclasses import dataclass
from typing import Any, Final

from Xlib import X, display
from Xlib.error import XError

from deskhand.backends.linux.x11 import requests as wire
from deskhand.backends.linux.x11.connection import close_display
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
        self._root_id = int(self._root.id)
        self._buttons: list[int] = []
        self._keys: list[int] = []
        self.last_point: tuple[int, int] | None = None
        self._xtest: int | None = None
        #: the fenced ping queued behind the burst (``fence``): its token, window and pinger
        self._fence: tuple[int, int, AppPing] | None = None
        self._fence_gone = False

    def _fake(self, event_type: int, detail: int = 0, *, time: int = 0, x: int = 0, y: int = 0) -> None:
        if self._xtest is None:
            self._xtest = int(self._d.display.get_extension_major("XTEST"))
        wire.fake_input(self._d, self._xtest, event_type, detail, time=time, x=x, y=y)

    # -- pointer ------------------------------------------------------------------------------
    def move(self, x: float, y: float) -> None:
        ix, iy = round(x), round(y)
        self._fake(X.MotionNotify, x=ix, y=iy)
        self.last_point = (ix, iy)

    def button_down(self, button: int, *, delay_ms: int = 0) -> None:
        """Press ``button``; ``delay_ms`` > 0 makes the server process it that much later.

        The delay is XTest's own (the server holds this client's request stream, the client does
        not sleep), so a burst stays one flush; it gives the press a later server timestamp.
        """
        self._fake(X.ButtonPress, button, time=delay_ms)
        self._buttons.append(button)

    def button_up(self, button: int) -> None:
        self._fake(X.ButtonRelease, button)
        if button in self._buttons:
            self._buttons.remove(button)

    def wheel(self, button: int, clicks: int) -> None:
        for _ in range(clicks):
            self._fake(X.ButtonPress, button)
            self._fake(X.ButtonRelease, button)

    # -- keys ---------------------------------------------------------------------------------
    def key_down(self, keycode: int) -> None:
        self._fake(X.KeyPress, keycode)
        self._keys.append(keycode)

    def key_up(self, keycode: int) -> None:
        self._fake(X.KeyRelease, keycode)
        if keycode in self._keys:
            self._keys.remove(keycode)

    # -- delivery and cleanup -----------------------------------------------------------------
    @property
    def held(self) -> bool:
        return bool(self._buttons or self._keys)

    def flush(self) -> None:
        """Send everything queued and wait until the server has processed it; behind a fenced
        ping (``fence``) only send it: the ping's answer is that proof (module docstring)."""
        if self._fence is not None:
            self._d.flush()
        else:
            wire.sync(self._d)

    def release_all(self) -> None:
        """Release every held button (at the last posted point: no move) and key, then sync."""
        self._end_fence()
        for button in reversed(self._buttons[:]):
            self.button_up(button)
        for keycode in reversed(self._keys[:]):
            self.key_up(keycode)
        wire.sync(self._d)

    def pointer(self) -> PointerState:
        reply = self._root.query_pointer()
        child = reply.child.id if hasattr(reply.child, "id") else int(reply.child or 0)
        return PointerState(reply.root_x, reply.root_y, child, reply.mask)

    def keys_down(self) -> set[int]:
        """Keycodes the server reports as down (``XQueryKeymap``)."""
        bits = self._d.query_keymap()
        return {i * 8 + b for i, byte in enumerate(bits) for b in range(8) if byte & (1 << b)}

    # -- a fenced ping behind the burst (module docstring) -------------------------------------
    def fence(self, ping: AppPing, window: int) -> int | None:
        """Queue ``window``'s fence and ping behind what is queued (``ping``'s atoms and tokens);
        None when the window takes no ping. Read the answer with ``fence_answered``; call
        ``drop_events`` before queuing the burst the fence goes behind."""
        token = ping.token_for(window)
        if token is None:
            return None
        self._fence_gone = False

        def gone(*_args: object) -> bool:  # the window is gone: no answer will come
            self._fence_gone = True
            return True  # handled (python-xlib prints an error whose handler returns false)

        wire.change_event_mask(self._d, self._root_id, _ANSWER_MASK)
        wire.send_event(self._d, window, ping.fence_event(window), onerror=_ignore)
        wire.send_event(self._d, window, ping.ping_event(token, window), onerror=gone)
        self._fence = (token, window, ping)
        return token

    def fence_answered(self, timeout_s: float) -> bool:
        """Whether the app answered the queued fence within ``timeout_s``; the fence ends either way
        (the root selection's end is queued, sent with the next flush)."""
        if self._fence is None:
            return False
        token, window, ping = self._fence
        deadline = time.monotonic() + call_deadline.bound(timeout_s)
        try:
            while True:
                d = self._d
                while d.pending_events():
                    if ping.is_answer(d.next_event(), token, window):
                        return True
                remaining = deadline - time.monotonic()
                if self._fence_gone or remaining <= 0:
                    return False
                select.select([d.fileno()], [], [], remaining)
        finally:
            self._end_fence()

    def _end_fence(self) -> None:
        if self._fence is not None:
            self._fence = None
            wire.change_event_mask(self._d, self._root_id, 0)

    def drop_events(self) -> None:
        """Drop events left from an earlier fence (answers that came late, root notifications).

        Before a fenced burst is queued: reading the connection sends whatever is queued, and the
        burst then goes out in one write with its fence."""
        while self._d.pending_events():
            self._d.next_event()


def _ignore(*_args: object) -> bool:
    """An error handler that drops the error (the fence's request to a window that may be gone):
    python-xlib counts an error as handled only when its handler returns a true value, and prints
    the others ("X protocol error: BadWindow" after a dialog closed)."""
    return True


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

    def token_for(self, window: int) -> int | None:
        """A fresh token for a ping to ``window``; None when the window takes no ping."""
        if not self._takes(window):
            return None
        return next(self._tokens) & 0x7FFFFFFF

    def ping_event(self, token: int, window: int) -> bytes:
        """The ``_NET_WM_PING`` client message with ``token`` for ``window``."""
        return wire.client_message(window, self._protocols, (self._ping, token, window, 0, 0))

    def fence_event(self, window: int) -> bytes:
        """The fence for ``window``: a ``SelectionRequest`` for deskhand's own selection (module docstring)."""
        if self._fence is None:
            requestor = self._root.create_window(0, 0, 1, 1, 0, 0, X.InputOnly, X.CopyFromParent)
            self._fence = (requestor.id, int(self._d.intern_atom("_DESKHAND_FENCE")))
            self._d.flush()
        requestor_id, atom = self._fence
        return wire.selection_request(window, requestor_id, atom, atom, atom)

    def is_answer(self, ev: Any, token: int, window: int) -> bool:
        """Whether the event ``ev`` is the app's answer to the ping ``token`` sent to ``window``."""
        if ev.type != X.ClientMessage or ev.client_type != self._protocols:
            return False
        data = ev.data[1]
        return (int(data[0]), int(data[1]), int(data[2])) == (self._ping, token, window)

    def send(self, window: int, *, fence: bool = False) -> int | None:
        """Ping ``window``; with ``fence``, behind a queued event (GTK 3: module docstring)."""
        token = self.token_for(window)
        if token is None:
            return None
        self._waiting[token] = window
        self._listen(True, flush=False)  # goes out before the ping, with it
        if fence:
            wire.send_event(self._d, window, self.fence_event(window), onerror=_ignore)

        def gone(*_args: object) -> bool:  # the window is gone: no answer will come
            self._waiting.pop(token, None)
            return True  # handled (python-xlib prints an error whose handler returns false)

        wire.send_event(self._d, window, self.ping_event(token, window), onerror=gone)
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
            if self.is_answer(ev, token, self._waiting.get(token, -1)):
                del self._waiting[token]
                self._answered.add(token)
        self._listen(bool(self._waiting))

    def _listen(self, on: bool, *, flush: bool = True) -> None:
        """Select the answers on the root while any is awaited (the app sends them after this);
        ``flush`` False leaves the request queued for the caller's next flush."""
        if on != self._listening:
            wire.change_event_mask(self._d, int(self._root.id), _ANSWER_MASK if on else 0)
            if flush:
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
