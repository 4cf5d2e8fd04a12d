"""`deskhand serve` gets SIGTERM while a cell runs, after a paste took the user's clipboard (issue 14).

`tests/server/test_serve_signals.py` checks the clean exit and teardown of `serve --virtual` on
SIGTERM and SIGINT; this case checks, on the session desktop, what a SIGTERM in the middle of
work must keep: the server exits 0; from X's side no button or key is held; from the app's side
every press has its release and nothing arrives after the server is gone; the user's clipboard
(text, HTML, a PNG over 1 MiB), which the cell's paste took and restored, is served by a keeper
byte for byte (``xclip`` reads it, not deskhand); no worker is left.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from _act_support import poll
from app_support import settled
from clip_support import CHECKED_TARGETS, digests, user_items, users_clipboard
from serve_support import Served, app_released_and_clipboard_kept, keepers, text_of

from proc_support import alive, children

pytestmark = pytest.mark.desktop

EXIT_DEADLINE_S = 15.0


def test_sigterm_mid_cell_keeps_the_users_clipboard_and_holds_nothing(canvas, ex, desktop, tmp_path):
    running, bound = canvas.running, canvas.bound
    items = user_items()
    expected = digests(items, CHECKED_TARGETS)
    display = desktop.env["DISPLAY"]
    env = {**os.environ, **desktop.env}
    served = Served(env, stderr_path=tmp_path / "serve.log")
    keeper: list[int] = []
    try:
        with users_clipboard(display, items) as user:
            bind = (f"globalThis.app = await cua.getApp({running.pid});"
                    "const s = await app.getAXState({disableDiffing: true, emit: false});"
                    "await app.click(s.match(/(g\\d+:\\d+) text \\(settable, string\\) Name/)[1]);"
                    "await app.getScreenshot(); 'bound'")  # fmt: skip
            first = served.call_js(bind)
            assert not first.get("isError"), text_of(first)
            since = time.monotonic()
            clicks = f"for (let i = 0; i < 200; i++) await app.click([{canvas.x:.1f}, {canvas.y:.1f}]);"
            served.start_js("await app.paste('from the agent');" + clicks, 60_000)
            poll(lambda: len(running.events.of_type("release", since=since)) >= 5, 30.0, "five clicks of the cell")
            assert not user.owns  # the paste took the clipboard (and gave the user's items back)
            user.close(hand_off=False)  # the user's app goes away: the server holds the user's clipboard
            workers = set(children(served.proc.pid))
            served.proc.send_signal(signal.SIGTERM)
            code = served.proc.wait(EXIT_DEADLINE_S)
            keeper = keepers(display)
        assert code == 0
        assert not any(alive(p) for p in workers), "a worker outlived the server"
        presses = app_released_and_clipboard_kept(ex, bound.app, running.events, desktop, expected, since)
        assert len(keeper) == 1
        assert settled(ex, bound.app)  # nothing arrives later: the cell was not replayed by anyone
        assert len(running.events.of_type("press", since=since)) == presses
    finally:
        served.close()
        for pid in keepers(display):
            os.kill(pid, signal.SIGKILL)
