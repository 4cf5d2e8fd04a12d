"""An element press the app does not answer in time ends the click: it lands once, never twice.

Issue 12 item 5: when an app stalls between ``GetActions`` and ``DoAction``, the ``DoAction`` call
times out; its effect is unknown (the app performs it once it runs again), so no later tier (the
synthetic click above all) may run. The app is stopped with SIGSTOP right after it answered
``GetActions`` and continued after the call's deadline; its own log shows what it received.

On X11 and on sway (``displays``): both click an element through the same tiers.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from _act_support import bind, nothing_held

from deskhand.backends.linux.atspi.connection import CALL_TIMEOUT_S
from deskhand.core import deadline
from deskhand.core.errors import NativeError
from display_support import actor_a11y

pytestmark = pytest.mark.desktop


@pytest.mark.displays("x11", "sway", "kwin")
def test_a_press_that_times_out_is_unknown_and_the_app_gets_it_once(launch, ex, desktop, monkeypatch):
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    bound = bind(ex, running.pid)
    apply, reset = bound.handle(r"push button Apply"), bound.handle(r"push button Reset")
    a11y = actor_a11y(ex)
    read_actions = a11y.actions
    resume: list[threading.Timer] = []

    def stall_after_reading(ref):
        got = read_actions(ref)
        if not resume:  # once: the app stops right after answering GetActions
            os.kill(running.pid, signal.SIGSTOP)
            timer = threading.Timer(CALL_TIMEOUT_S + 0.5, os.kill, (running.pid, signal.SIGCONT))
            resume.append(timer)
            timer.start()
        return got

    monkeypatch.setattr(a11y, "actions", stall_after_reading)
    since = time.monotonic()
    try:
        # under a cell's deadline as long as the press call's own timeout: the click ends by then
        with deadline.within(CALL_TIMEOUT_S), pytest.raises(NativeError) as info:
            ex.click(bound.app, element=apply)
        overrun = time.monotonic() - since - CALL_TIMEOUT_S
    finally:
        for timer in resume:
            timer.join()
        os.kill(running.pid, signal.SIGCONT)
    assert resume, "the press tier never read the actions"
    print(f"the stalled press ended {overrun:.3f} s past its deadline")
    assert overrun <= 0.5  # the contract: no call outlives its deadline by more than 0.5 s
    assert (info.value.code, info.value.dispatched) == ("ax_failed", None)
    assert "unknown" in info.value.message
    running.events.wait_for("clicked", name="Apply", since=since)  # the stalled press did land, later
    monkeypatch.undo()
    # The app handles its input in order: a second activation we had sent would come before this one.
    ex.click(bound.app, element=reset)
    running.events.wait_for("clicked", name="Reset", since=since)
    assert [e["name"] for e in running.events.of_type("clicked", since=since)] == ["Apply", "Reset"]
    assert nothing_held(desktop, ex) == ((), set())  # no button or key left down
