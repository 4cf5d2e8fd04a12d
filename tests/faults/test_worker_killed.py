"""The js worker is SIGKILLed in the middle of a cell that runs a batch of clicks (issue 14).

`deskhand serve` over stdio drives the GTK fixture: a cell clicks its canvas 200 times, and once
the app has logged a few clicks the worker running that cell is killed. The promises:

* the cell's answer is an error that says the kernel ended and how many native calls it sent;
* from the app's side, no click was replayed: it logged no more presses than calls dispatched,
  each with its release, and nothing arrives after the answer;
* the next cell runs at once in a fresh worker: one that uses the killed worker's binding is told
  the bindings went with it ("app is not defined", the cell that ended and ``cua.getApp``) and
  clicks nothing; one that binds again clicks once, and the click arrives once;
* from X's side, no button or key is left down;
* no process is left: the killed worker is reaped, the server keeps at most its worker and one
  spare, and when the client ends the server no worker remains.

A worker killed between cells: the next cell is answered with the kernel's end and "Bindings were
reset. Select the app again." without running (the app logs no click), the one after runs in a
fresh worker where the old binding is gone, and a cell that binds again clicks once.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest
from _act_support import nothing_held, poll
from app_support import settled
from serve_support import Served, text_of

from proc_support import alive, children, processes, started

pytestmark = pytest.mark.desktop

CLICKS = 200


def _workers(server: int) -> list[int]:
    """The server's js workers, oldest first (the one running cells is older than its spare)."""
    return [pid for pid in sorted(children(server, b"worker.py"), key=started) if alive(pid)]


def test_a_killed_worker_ends_its_cell_plainly_and_the_next_runs(canvas, ex, desktop, tmp_path):
    running, bound, x, y = canvas.running, canvas.bound, canvas.x, canvas.y
    served = Served({**os.environ, **desktop.env}, stderr_path=tmp_path / "serve.log")
    try:
        first = served.call_js(f"globalThis.app = await cua.getApp({running.pid}); await app.getScreenshot(); 'bound'")
        assert not first.get("isError"), text_of(first)
        since = time.monotonic()
        rid = served.start_js(f"for (let i = 0; i < {CLICKS}; i++) await app.click([{x:.1f}, {y:.1f}]);", 60_000)
        running.events.wait_for("release", since=since, predicate=lambda e: True, timeout_s=30)
        poll(lambda: len(running.events.of_type("release", since=since)) >= 5, 30.0, "five clicks")
        worker = _workers(served.proc.pid)[0]
        os.kill(worker, signal.SIGKILL)
        killed_at = time.monotonic()
        answer = served.reply(rid, 30.0)
        answered_in = time.monotonic() - killed_at
        said = text_of(answer["result"])
        print(f"answered {answered_in:.3f} s after the kill: {said!r}")
        assert answer["result"].get("isError"), said
        assert "kernel exited (killed by SIGKILL)" in said, said
        sent = re.search(r"Native calls: (\d+) started, (\d+) completed, 0 rejected before dispatch", said)
        assert sent, said
        dispatched = int(sent.group(1))
        # the app's side: its log settles (a ping round trip), then nothing more arrives
        assert settled(ex, bound.app)
        presses = len(running.events.of_type("press", since=since))
        releases = len(running.events.of_type("release", since=since))
        print(f"{dispatched} calls dispatched, the app logged {presses} presses and {releases} releases")
        assert 5 <= presses <= dispatched <= CLICKS
        assert releases == presses  # every press has its release
        assert nothing_held(desktop) == ((), set())
        assert not alive(worker)
        assert "bindings were reset" in said, said
        # the next cell runs at once in a fresh worker: the killed worker's binding is gone, and it says so
        since = time.monotonic()
        t0 = time.monotonic()
        old = served.call_js(f"await app.click([{x:.1f}, {y:.1f}]); 'clicked'")
        print(f"the next cell answered in {time.monotonic() - t0:.3f} s: {text_of(old)!r}")
        assert old.get("isError"), text_of(old)
        assert "app is not defined" in text_of(old), text_of(old)
        assert "bindings made before cell" in text_of(old) and "cua.getApp" in text_of(old), text_of(old)
        assert "kernel exited (killed by SIGKILL)" in text_of(old), text_of(old)
        assert settled(ex, bound.app)
        assert running.events.of_type("press", since=since) == []
        bind_again = f"const a = await cua.getApp({running.pid}); await a.getScreenshot();"
        again = served.call_js(f"{bind_again} await a.click([{x:.1f}, {y:.1f}]); 'again'")
        assert not again.get("isError"), text_of(again)
        running.events.wait_for("release", since=since)
        assert settled(ex, bound.app)
        assert len(running.events.of_type("press", since=since)) == 1
        assert len(_workers(served.proc.pid)) <= 2
        server_pid = served.proc.pid
        assert served.proc.stdin is not None
        served.proc.stdin.close()
        assert served.proc.wait(30) == 0
        assert [p for p in children(server_pid) if alive(p)] == []
        assert not any(b"worker.py" in cmd and b"deskhand" in cmd for p, (ppid, cmd) in processes().items()
                       if ppid == 1 and alive(p) and started(p) >= started(worker))  # fmt: skip
    finally:
        served.close()


def test_a_worker_killed_between_cells_is_said_and_its_bindings_are_gone(canvas, ex, desktop, tmp_path):
    running, bound, x, y = canvas.running, canvas.bound, canvas.x, canvas.y
    served = Served({**os.environ, **desktop.env}, stderr_path=tmp_path / "serve.log")
    click = f"await app.click([{x:.1f}, {y:.1f}]); 'clicked'"
    try:
        first = served.call_js(f"globalThis.app = await cua.getApp({running.pid}); await app.getScreenshot(); 'bound'")
        assert not first.get("isError"), text_of(first)
        worker = _workers(served.proc.pid)[0]
        os.kill(worker, signal.SIGKILL)
        poll(lambda: not alive(worker), 10.0, "the worker reaped")
        since = time.monotonic()
        # the session saw its idle worker end: the next cell is answered with that, and not run (had
        # the session not seen the end yet, the cell would go to the dead worker and end the same way)
        first_after = served.call_js(click)
        said = text_of(first_after)
        print(f"the first cell after the kill: {said!r}")
        assert first_after.get("isError"), said
        assert "kernel exited (killed by SIGKILL)" in said, said
        assert "Bindings were reset. Select the app again." in said or "bindings were reset" in said, said
        gone = served.call_js(click)
        assert gone.get("isError") and "app is not defined" in text_of(gone), text_of(gone)
        assert "are gone: this cell ran in a fresh worker" in text_of(gone), text_of(gone)
        assert settled(ex, bound.app)
        assert running.events.of_type("press", since=since) == []
        again = served.call_js(f"globalThis.app = await cua.getApp({running.pid}); await app.getScreenshot(); {click}")
        assert not again.get("isError"), text_of(again)
        running.events.wait_for("release", since=since)
        assert settled(ex, bound.app)
        assert len(running.events.of_type("press", since=since)) == 1
        assert nothing_held(desktop) == ((), set())
    finally:
        served.close()
