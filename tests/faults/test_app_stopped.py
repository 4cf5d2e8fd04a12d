"""The app is stopped (SIGSTOP) in the middle of a batch of clicks, then continued (issue 14).

A batch of clicks at a point of the GTK fixture's canvas, each under a 1 s deadline (as a cell's
``timeout_ms`` gives it); once the app has logged its first click it is stopped, and an
observation is made while it is stopped. The promises:

* no call outlives its deadline by more than the contract's 0.5 s, the observation included;
* from the app's side, once it is continued and has handled its queue (a ping round trip): every
  press has its release, it got no more presses than clicks dispatched (nothing replayed) and at
  least every click reported done (nothing lost);
* from X's side: no button or key is left down.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import pytest
from _act_support import nothing_held
from app_support import settled

from deskhand.core import deadline
from deskhand.core.errors import DeskhandError

pytestmark = pytest.mark.desktop

CLICKS = 20
TIMEOUT_S = 1.0
#: The contract: a call returns within its deadline plus this.
OVERRUN_S = 0.5


def _timed(fn: Any) -> tuple[float, Any]:
    """(seconds past the deadline, the result or the error)."""
    t0 = time.monotonic()
    with deadline.within(TIMEOUT_S):
        try:
            out = fn()
        except DeskhandError as err:
            out = err
    return time.monotonic() - t0 - TIMEOUT_S, out


def test_clicks_while_the_app_is_stopped_then_continued(canvas, ex, desktop):
    running, bound, point = canvas.running, canvas.bound, (canvas.x, canvas.y)
    since = time.monotonic()
    stopped = threading.Event()

    def stop_after_the_first_click() -> None:
        running.events.wait_for("release", since=since, predicate=lambda e: True, timeout_s=20)
        os.kill(running.pid, signal.SIGSTOP)
        stopped.set()

    threading.Thread(target=stop_after_the_first_click, daemon=True).start()
    outcomes: list[tuple[str, bool | None]] = []
    overruns: list[float] = []
    try:
        for i in range(CLICKS):
            if i == CLICKS // 2:  # an observation in the middle of the batch, the app stopped by then
                assert stopped.wait(20)
                overrun, _ = _timed(lambda: ex.get_app_state(bound.app))
                overruns.append(overrun)
            overrun, out = _timed(lambda: ex.click(bound.app, point=point))
            overruns.append(overrun)
            outcomes.append((out.code, out.dispatched) if isinstance(out, DeskhandError) else ("ok", True))
    finally:
        os.kill(running.pid, signal.SIGCONT)
    assert stopped.is_set()
    assert settled(ex, bound.app, 30.0)
    presses = running.events.of_type("press", since=since)
    releases = running.events.of_type("release", since=since)
    done = sum(1 for code, _ in outcomes if code == "ok")
    dispatched = sum(1 for _, d in outcomes if d is not False)
    print(f"{CLICKS} clicks: {done} done, {dispatched} dispatched, outcomes {sorted(set(outcomes))};"
          f" the app logged {len(presses)} presses; max overrun {max(overruns):.3f} s")  # fmt: skip
    assert max(overruns) <= OVERRUN_S, overruns
    assert len(releases) == len(presses)
    assert done <= len(presses) <= dispatched
    assert nothing_held(desktop) == ((), set())
