"""Keys, text and paste go only to the window the agent observed (native-contract 6.1, 6.5).

A dialog the app opens between the observation and the typing (SIGUSR1 makes the GTK fixture open
one, focused, over its window) must not receive the text: ``stale_window`` before anything is
posted. Before any observation the same calls are ``stale_snapshot``. Checked from the app's side
(its log of both fields' text) and from X's (no key left down).
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from _act_support import bind, executor_for, nothing_held, poll

from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop


def _texts(running, since: float) -> list[tuple[str, str]]:
    return [(e["name"], e["text"]) for e in running.events.of_type("text", since=since)]


def test_a_dialog_opened_since_the_observation_gets_no_keys(gtk, ex, desktop):
    bound = bind(ex, gtk.pid)
    observed = ex.observed_key_window(bound.app)
    os.kill(gtk.pid, signal.SIGUSR1)
    gtk.events.wait_for("dialog", name="Fixture Dialog")
    dialog = poll(lambda: (w := ex.key_window(bound.app)) is not None and w.id != observed and w, what="dialog key")
    since = time.monotonic()
    calls = {
        "type_text": lambda: ex.type_text(bound.app, "typed into the wrong window"),
        "press_key": lambda: ex.press_key(bound.app, "x"),
        "paste": lambda: ex.paste(bound.app, "pasted into the wrong window", "text"),
    }
    for name, call in calls.items():
        with pytest.raises(NativeError) as info:
            call()
        assert (info.value.code, info.value.dispatched) == ("stale_window", False), name
        assert "get_app_state" in info.value.message
    # the app processes input in order: a ping answered now means any stray key would be logged
    ping = ex.actor.session.pinger()
    assert ping.answered(ping.send(dialog.id), 2.0)
    assert _texts(gtk, since) == []
    assert nothing_held(desktop) == ((), set())
    # once the agent has seen the dialog, typing goes there
    bound.observe()
    ex.type_text(bound.app, "seen")
    gtk.events.wait_for("text", name="Dialog field", text="seen", since=since)


def test_typing_before_any_observation_is_stale_snapshot(gtk, desktop):
    seen = executor_for(desktop)
    fresh = executor_for(desktop)
    try:
        bind(seen, gtk.pid)  # waits for the window; the fresh executor never observes
        app = fresh.resolve(str(gtk.pid))
        since = time.monotonic()
        for call in (lambda: fresh.type_text(app, "blind"), lambda: fresh.press_key(app, "a"),
                     lambda: fresh.paste(app, "blind", "text")):  # fmt: skip
            with pytest.raises(NativeError) as info:
                call()
            assert (info.value.code, info.value.dispatched) == ("stale_snapshot", False)
            assert "get_app_state" in info.value.message
        assert _texts(gtk, since) == []
    finally:
        fresh.close()
        seen.close()
