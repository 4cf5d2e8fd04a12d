"""The drag's XDND watch sees a target's ``XdndStatus`` itself, from outside both apps: one client
sends it to another client's window the way a drop target answers a drag source (``SendEvent``
with an empty event mask, which no third client can select), and ``x11.xdnd.XdndWatch`` reads it
through the RECORD extension with its accept bit, while a session is under way (``record`` to
``stop_recording``). Other client messages are not counted.

A real drag from one app to another cannot be set up inside one window's bounds, and a drag inside
one GTK app (Thunar's, ``test_dnd_thunar.py``) never reaches the server, so the protocol is played
here by two plain X clients on the real server.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from Xlib import display
from Xlib.protocol import event

from deskhand.backends.linux.x11.xdnd import XdndWatch

pytestmark = pytest.mark.desktop


@pytest.fixture
def clients(desktop: Any) -> Iterator[tuple[Any, Any, Any]]:
    """A drag source (a window of one client) and a drop target (another client)."""
    name = desktop.env["DISPLAY"]
    source, target = display.Display(name), display.Display(name)
    window = source.screen().root.create_window(0, 0, 10, 10, 0, source.screen().root_depth)
    source.sync()
    try:
        yield source, target, window
    finally:
        window.destroy()
        source.close()
        target.close()


def _send(target: Any, window_id: int, message: str, flags: int) -> None:
    """What a drop target sends the source: a client message with the target's window first."""
    msg = event.ClientMessage(
        window=window_id, client_type=target.intern_atom(message), data=(32, [window_id, flags, 0, 0, 0])
    )
    target.create_resource_object("window", window_id).send_event(msg, event_mask=0)
    target.sync()


def test_the_targets_xdnd_status_is_seen_with_its_accept_bit(desktop: Any, clients: tuple[Any, Any, Any]) -> None:
    _source, target, window = clients
    watch = XdndWatch(desktop.env["DISPLAY"])
    try:
        idle = watch.answers()
        _send(target, window.id, "XdndStatus", 1)  # outside a session: RECORD is not running
        assert watch.record()  # a session started: RECORD runs until stop_recording
        start = watch.answers()
        _send(target, window.id, "XdndPosition", 0)  # another XDND message: not an answer
        _send(target, window.id, "XdndStatus", 1)  # accepts the drop
        assert watch.wait_answer(start, 5.0)
        assert watch.status_seen_since(start)
        assert watch.accepted() is True
        assert watch.answers()[0] == start[0] + 1 == idle[0] + 1  # the status before the session is not counted
        refused = watch.answers()
        _send(target, window.id, "XdndStatus", 0)  # refuses it
        assert watch.wait_answer(refused, 5.0)
        assert watch.accepted() is False
        watch.stop_recording()
        stopped = watch.answers()
        _send(target, window.id, "XdndStatus", 1)  # between sessions: not counted
        assert watch.record()  # the next session records again
        _send(target, window.id, "XdndStatus", 0)
        assert watch.wait_answer(stopped, 5.0)
        assert watch.answers()[0] == stopped[0] + 1 and watch.accepted() is False
    finally:
        watch.close()
