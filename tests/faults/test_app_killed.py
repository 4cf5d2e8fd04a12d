"""The app is killed (SIGKILL) in the middle of a batch of clicks (issue 14's fault suite).

From the app's side: every press it logged before it died has its release, and it logged no more
presses than the calls that reported a click (or an unknown effect): nothing was replayed. From
the caller's side: every call after the death is refused before dispatch with a typed code, and
no call outlives its deadline (1 s each, as a cell gives it) by more than the contract's 0.5 s.
From X's side: no button or key is left down.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from _act_support import nothing_held, poll

from deskhand.core import deadline
from deskhand.core.errors import DeskhandError

pytestmark = pytest.mark.desktop

#: Each click's deadline, and the contract's bound past it.
TIMEOUT_S, OVERRUN_S = 1.0, 0.5
GONE = {"process_gone", "stale_process", "stale_window", "target_window_changed", "target_not_running"}


def test_clicks_while_the_app_is_killed(canvas, ex, desktop):
    running, bound, point = canvas.running, canvas.bound, (canvas.x, canvas.y)
    since = time.monotonic()
    killed = threading.Event()
    outcomes: list[tuple[str, bool | None]] = []
    overruns: list[float] = []

    def kill_after_some_clicks() -> None:
        poll(lambda: len(running.events.of_type("release", since=since)) >= 5, 20.0, "five clicks")
        os.kill(running.pid, signal.SIGKILL)
        killed.set()

    threading.Thread(target=kill_after_some_clicks, daemon=True).start()
    for _ in range(60):
        t0 = time.monotonic()
        with deadline.within(TIMEOUT_S):
            try:
                ex.click(bound.app, point=point)
                outcomes.append(("ok", True))
            except DeskhandError as err:
                outcomes.append((err.code, err.dispatched))
        overruns.append(time.monotonic() - t0 - TIMEOUT_S)
        if killed.is_set() and len(outcomes) >= 3 and all(code != "ok" for code, _ in outcomes[-3:]):
            break
    assert killed.wait(20)
    running.app.popen.wait(10)
    clicked = sum(1 for code, dispatched in outcomes if dispatched is not False)
    presses = running.events.of_type("press", since=since)
    releases = running.events.of_type("release", since=since)
    print(f"{len(outcomes)} clicks, {clicked} dispatched, app logged {len(presses)} presses before it died;"
          f" max overrun {max(overruns):.3f} s")  # fmt: skip
    assert max(overruns) <= OVERRUN_S, overruns
    assert len(presses) <= clicked  # never replayed
    assert len(releases) >= len(presses) - 1  # at most the one in flight when it died
    after = outcomes[-3:]
    assert all(code in GONE and dispatched is False for code, dispatched in after), outcomes
    assert nothing_held(desktop) == ((), set())
