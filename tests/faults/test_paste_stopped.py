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

from deskhand.backends.linux._clipboard import ClipboardOwner, text_items
from deskhand.core import deadline
from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop


def _name_field(ex, running):
    bound = bind(ex, running.pid)
    ex.click(bound.app, element=bound.handle(r"text \(settable, string\) Name"))
    bound.observe()
    return bound


def test_a_paste_into_an_app_that_stops_says_the_late_ctrl_v_pastes_the_users_clipboard(
    launch, ex, desktop, monkeypatch
):
    """The app stops right as deskhand sends ctrl+v (stopped from inside the send, so the order is
    certain): the key waits in its queue, the paste ends at its deadline, dispatched."""
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    user = ClipboardOwner(desktop.env["DISPLAY"])
    try:
        user.own(text_items("USERCLIP"))
        bound = _name_field(ex, running)
        typing = ex.actor.typing
        post = typing.post_chord

        def stop_then_post(app, window, key):  # the app hangs the instant the paste is sent
            os.kill(running.pid, signal.SIGSTOP)
            post(app, window, key)

        monkeypatch.setattr(typing, "post_chord", stop_then_post)
        since = time.monotonic()
        try:
            with deadline.within(3.0), pytest.raises(NativeError) as info:
                ex.paste(bound.app, "AGENTTEXT", "text")
        finally:
            os.kill(running.pid, signal.SIGCONT)
        err = info.value
        assert (err.code, err.dispatched) == ("clipboard_read_timeout", True), err
        assert "pastes whatever the clipboard holds then" in err.message
        # the app wakes and pastes the user's clipboard (restored), never the agent's text
        running.events.wait_for("text", name="Name", predicate=lambda e: "USERCLIP" in e["text"], since=since)
        assert not any("AGENTTEXT" in e["text"] for e in running.events.of_type("text", since=since))
        assert nothing_held(desktop) == ((), set())
    finally:
        user.close(hand_off=False)


def test_a_paste_into_a_stopped_app_sends_nothing_and_keeps_the_users_clipboard(launch, ex, desktop):
    """The app is stopped before the paste: its focus cannot be read, so the paste ends at its
    deadline before ctrl+v, nothing sent; the continued app receives nothing, and the user's
    clipboard is theirs (or served back as it was)."""
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    user = ClipboardOwner(desktop.env["DISPLAY"])
    try:
        user.own(text_items("USERCLIP"))
        bound = _name_field(ex, running)
        since = time.monotonic()
        os.kill(running.pid, signal.SIGSTOP)
        try:
            with deadline.within(2.0), pytest.raises(NativeError) as info:
                ex.paste(bound.app, "AGENTTEXT", "text")
        finally:
            os.kill(running.pid, signal.SIGCONT)
        err = info.value
        if err.dispatched is not False:  # the focus was known: the late-ctrl+v case, said as such
            assert "pastes whatever the clipboard holds then" in err.message, err
        ping = ex.actor.session.pinger()
        assert ping.answered(ping.send(ex.actor.session.key_window(bound.app)), 5.0)
        assert not any("AGENTTEXT" in e["text"] for e in running.events.of_type("text", since=since))
        snap = ClipboardOwner(desktop.env["DISPLAY"])
        try:
            assert snap.snapshot().items["UTF8_STRING"].data == b"USERCLIP"
        finally:
            snap.close(hand_off=False)
        assert nothing_held(desktop) == ((), set())
    finally:
        user.close(hand_off=False)


def test_an_external_copy_during_a_paste_wins(launch, ex, desktop, monkeypatch):
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    user = ClipboardOwner(desktop.env["DISPLAY"])
    other = ClipboardOwner(desktop.env["DISPLAY"])
    try:
        user.own(text_items("BEFORE"))
        bound = _name_field(ex, running)
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
        snap = ClipboardOwner(desktop.env["DISPLAY"])
        try:
            assert snap.snapshot().items["UTF8_STRING"].data == b"COPIED"
        finally:
            snap.close(hand_off=False)
        assert nothing_held(desktop) == ((), set())
    finally:
        other.close(hand_off=False)
        user.close(hand_off=False)
