"""The user's clipboard outlives deskhand (issue 14 item 3).

The user's clipboard holds text, HTML, a PNG over 1 MiB (INCR both ways) and a private target at
once. deskhand pastes into the GTK fixture (its snapshot reads every target, its restore serves
them again) and then closes, as at the server's exit. With no clipboard manager running, a keeper
process serves the snapshot from then on: ``xclip`` (not deskhand) reads every target back byte
for byte, and the keeper exits once another client copies.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time

import pytest
from _act_support import bind, poll

from deskhand.backends.linux._clipboard import ClipboardOwner, Item, text_items
from deskhand.backends.linux.executor import LinuxExecutor

pytestmark = pytest.mark.desktop


def _xclip(env: dict[str, str], target: str) -> bytes:
    out = subprocess.run(
        ["xclip", "-selection", "clipboard", "-o", "-t", target], env=env, capture_output=True, timeout=20, check=True
    )
    return out.stdout


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_restored_clipboard_outlives_the_executor(launch, desktop):
    env = {**os.environ, "DISPLAY": desktop.env["DISPLAY"]}
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(1536 * 1024)  # over 1 MiB: INCR in and out
    items = {
        **text_items("user's text ✓", "<b>user's</b> html"),
        "image/png": Item("image/png", 8, png),
        "application/x-user-private": Item("application/x-user-private", 8, b"\x00\x01private"),
    }
    expected = {t: hashlib.sha256(items[t].data).hexdigest() for t in ("UTF8_STRING", "text/html", "image/png",
                                                                        "application/x-user-private")}  # fmt: skip
    user = ClipboardOwner(desktop.env["DISPLAY"])  # the user's app that copied
    ex = LinuxExecutor(display=desktop.env["DISPLAY"], a11y_address=desktop.env["AT_SPI_BUS_ADDRESS"])
    keeper: int | None = None
    closed = False
    try:
        user.own(items)
        bound = bind(ex, running.pid)
        entry = bound.handle(r"text \(settable, string\) Name")
        ex.click(bound.app, element=entry)
        bound.observe()
        since = time.monotonic()
        ex.paste(bound.app, "pasted", "text")
        running.events.wait_for("text", name="Name", predicate=lambda e: "pasted" in e["text"], since=since)
        assert not user.owns  # deskhand took the selection for the paste, and restored the user's items
        owner = ex.actor.session.clipboard_owner
        assert owner is not None and owner.owns
        ex.close()  # what the server's exit does (and SIGTERM of `deskhand serve`)
        closed = True
        keeper = owner.keeper_pid
        assert keeper is not None and _alive(keeper), "no keeper took the clipboard over"
        user.close(hand_off=False)
        got = {t: hashlib.sha256(_xclip(env, t)).hexdigest() for t in expected}
        assert got == expected
        # another copy wins: the keeper gives up and exits
        subprocess.run(["xclip", "-selection", "clipboard", "-i"], input=b"new copy", env=env, timeout=10, check=True)
        poll(lambda: not _alive(keeper), 10.0, "the keeper exits after an external copy")
        keeper = None
        assert _xclip(env, "UTF8_STRING") == b"new copy"
    finally:
        user.close(hand_off=False)
        if not closed:
            ex.close()
        if keeper is not None and _alive(keeper):
            os.kill(keeper, 9)
