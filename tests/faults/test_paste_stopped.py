"""A paste into a stopped app, and a copy made during a paste (issue 14 items 3 and 7).

Stopped as the ctrl+v is sent: the key waits in the app's queue, so the paste ends at its deadline
with ``clipboard_read_timeout`` (dispatched) and says what happens next: the app, continued, pastes
the clipboard as it is then, the user's restored clipboard. Stopped before the paste: its focus
cannot be read, so nothing is sent at all and the user's clipboard stays. Checked from the app's
side (its Name field's text). An external copy during a paste wins: nothing is written back.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from _act_support import bind, nothing_held
from app_support import settled
from clip_support import clipboard_text, users_clipboard

from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner, text_items
from deskhand.core import deadline
from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop


def _name_field(ex, running):
    bound = bind(ex, running.pid)
    ex.click(bound.app, element=bound.handle(r"text \(settable, string\) Name"))
    bound.observe()
    return bound


def _paste_failing(ex, bound, pid: int, timeout_s: float) -> NativeError:
    """The error a paste of the agent's text ends with under a deadline of ``timeout_s``; the app
    (``pid``, stopped before or during the paste) is continued after it."""
    try:
        with deadline.within(timeout_s), pytest.raises(NativeError) as info:
            ex.paste(bound.app, "AGENTTEXT", "text")
    finally:
        os.kill(pid, signal.SIGCONT)
    return info.value


def test_a_paste_into_an_app_that_stops_says_the_late_ctrl_v_pastes_the_users_clipboard(gtk, ex, desktop, monkeypatch):
    """The app stops right as deskhand sends ctrl+v (stopped from inside the send, so the order is
    certain): the key waits in its queue, the paste ends at its deadline, dispatched."""
    with users_clipboard(desktop.env["DISPLAY"], text_items("USERCLIP")):
        bound = _name_field(ex, gtk)
        typing = ex.actor.typing
        post = typing.post_chord

        def stop_then_post(app, window, key):  # the app hangs the instant the paste is sent
            os.kill(gtk.pid, signal.SIGSTOP)
            post(app, window, key)

        monkeypatch.setattr(typing, "post_chord", stop_then_post)
        since = time.monotonic()
        err = _paste_failing(ex, bound, gtk.pid, 3.0)
        assert (err.code, err.dispatched) == ("clipboard_read_timeout", True), err
        assert "pastes whatever the clipboard holds then" in err.message
        # the app wakes and pastes the user's clipboard (restored), never the agent's text
        gtk.events.wait_for("text", name="Name", predicate=lambda e: "USERCLIP" in e["text"], since=since)
        assert not any("AGENTTEXT" in e["text"] for e in gtk.events.of_type("text", since=since))
        assert nothing_held(desktop) == ((), set())


def test_a_paste_into_a_stopped_app_sends_nothing_and_keeps_the_users_clipboard(gtk, ex, desktop):
    """The app is stopped before the paste: its focus cannot be read, so the paste ends at its
    deadline before ctrl+v, nothing sent; the continued app receives nothing, and the user's
    clipboard is theirs (or served back as it was)."""
    with users_clipboard(desktop.env["DISPLAY"], text_items("USERCLIP")):
        bound = _name_field(ex, gtk)
        since = time.monotonic()
        os.kill(gtk.pid, signal.SIGSTOP)
        err = _paste_failing(ex, bound, gtk.pid, 2.0)
        if err.dispatched is not False:  # the focus was known: the late-ctrl+v case, said as such
            assert "pastes whatever the clipboard holds then" in err.message, err
        assert settled(ex, bound.app)
        assert not any("AGENTTEXT" in e["text"] for e in gtk.events.of_type("text", since=since))
        assert clipboard_text(desktop.env["DISPLAY"]) == b"USERCLIP"
        assert nothing_held(desktop) == ((), set())


def test_an_external_copy_during_a_paste_wins(gtk, ex, desktop, monkeypatch):
    other = ClipboardOwner(desktop.env["DISPLAY"])
    try:
        with users_clipboard(desktop.env["DISPLAY"], text_items("BEFORE")):
            bound = _name_field(ex, gtk)
            typing = ex.actor.typing
            post = typing.post_chord

            def copy_then_post(app, window, key):  # the user copies right as deskhand sends ctrl+v
                done = threading.Event()
                threading.Thread(target=lambda: (other.own(text_items("COPIED")), done.set())).start()
                assert done.wait(5.0)
                post(app, window, key)

            monkeypatch.setattr(typing, "post_chord", copy_then_post)
            try:
                ex.paste(bound.app, "AGENTTEXT", "text")
            except NativeError as err:
                assert err.code == "clipboard_changed", err
            assert other.owns  # the external copy was not overwritten by a restore
            assert clipboard_text(desktop.env["DISPLAY"]) == b"COPIED"
            assert nothing_held(desktop) == ((), set())
    finally:
        other.close(hand_off=False)
