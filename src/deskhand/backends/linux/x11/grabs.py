"""Window-manager button grabs on an app's window: finding them, and waiting for a grabbed press.

Many window managers (openbox with its stock configuration, others on unfocused windows) put a
*synchronous* passive grab on button presses over client windows: the press freezes the pointer
until the manager replays it to the app (``AllowEvents ReplayPointer``). Input posted during the
freeze is queued by the server, and XTest motions queued there reach the app with the pointer's
final position. A click does not care (press and release keep their order and place); a drag
does, because its path is made of motions that must follow the press.

Finding a grab. X has no request that lists passive grabs, but ``GrabButton`` fails with
``BadAccess`` when another client already grabbed the same button and modifiers on that window.
``GrabProbe`` queues a grab and an immediate ungrab on the window and each ancestor (the frame),
without a round trip of its own: the error, if any, arrives before the reply of the next request
the caller waits for. Our own grab never activates: nothing is posted between the two requests.

Waiting for the replay. After the press reached the server, the manager holds it in its event
queue. ``ReplayWaiter`` then asks the manager for something it must answer from the same queue: a
``ConfigureWindow`` of the window's current border width, which the manager intercepts
(SubstructureRedirect) and, changing nothing, answers with a synthetic ``ConfigureNotify``
(ICCCM 4.1.5). A manager replays the press while handling it, so once the answer arrives the
press has reached the app and the pointer is thawed. (``_NET_REQUEST_FRAME_EXTENTS`` is no
substitute: openbox answers it only for unmapped windows.) This runs on a separate connection,
opened only on a desktop where a grab was found, so the actor's connection never queues the
app's events.
"""

from __future__ import annotations

import select
import time
from collections.abc import Sequence
from typing import Any, Final

from Xlib import X, display
from Xlib.error import BadAccess, BadWindow, CatchError, XError

from deskhand.backends.linux.x11 import requests as wire
from deskhand.backends.linux.x11.connection import close_display

__all__ = ()

#: How long a grabbed press may wait for the manager's answer before the motions follow anyway.
REPLAY_TIMEOUT_S: Final = 0.5


def ancestors(d: Any, window: int) -> tuple[int, ...]:
    """``window`` and its ancestors below the root (the window manager's frame), innermost first."""
    out: list[int] = []
    current = d.create_resource_object("window", window)
    while True:
        reply = current.query_tree()
        out.append(current.id)
        parent = reply.parent
        if not parent or parent.id == reply.root.id:
            return tuple(out)
        current = parent


class GrabProbe:
    """``GrabButton`` + ``UngrabButton`` queued on each window; read ``grabbed`` after a round trip."""

    def __init__(self, d: Any, windows: Sequence[int], button: int, modifiers: int = 0) -> None:
        self._catchers: list[CatchError] = []
        for wid in windows:
            catcher = CatchError(BadAccess, BadWindow)  # a window gone since its chain was read
            wire.grab_button(
                d, wid, button, modifiers, event_mask=X.ButtonPressMask, pointer_mode=X.GrabModeAsync,
                keyboard_mode=X.GrabModeAsync, onerror=catcher,
            )  # fmt: skip
            wire.ungrab_button(d, wid, button, modifiers, onerror=CatchError())
            self._catchers.append(catcher)

    @property
    def grabbed(self) -> bool:
        """True when another client grabs the button (with these modifiers) on one of the windows."""
        return any(isinstance(c.get_error(), BadAccess) for c in self._catchers)


class ReplayWaiter:
    """Waits until the window manager has handled everything it received before the call."""

    def __init__(self, display_name: str) -> None:
        self._d = display.Display(display_name)

    def close(self) -> None:
        close_display(self._d)

    def wait(self, window: int, timeout_s: float = REPLAY_TIMEOUT_S) -> bool:
        """Round trip through the manager; False when it did not answer within ``timeout_s``."""
        d = self._d
        target = d.create_resource_object("window", window)
        try:
            border = target.get_geometry().border_width
            target.change_attributes(event_mask=X.StructureNotifyMask)
            target.configure(border_width=border)
            d.flush()
            return self._await_configure(window, time.monotonic() + timeout_s)
        except XError:
            return False  # the window is gone: nothing left to wait for
        finally:
            try:
                target.change_attributes(event_mask=0)
                d.sync()
            except XError:
                pass
            while d.pending_events():
                d.next_event()

    def _await_configure(self, window: int, deadline: float) -> bool:
        d = self._d
        while True:
            while d.pending_events():
                ev = d.next_event()
                if ev.type == X.ConfigureNotify and ev.window.id == window:
                    return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            select.select([d.fileno()], [], [], remaining)
