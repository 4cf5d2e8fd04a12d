"""The user's clipboard outlives deskhand (issue 14 item 3).

The user's clipboard holds text, HTML, a PNG over 1 MiB (INCR both ways) and a private target at
once. deskhand pastes into the GTK fixture (its snapshot reads every target, its restore serves
them again) and then closes, as at the server's exit. With no clipboard manager running, a keeper
process serves the snapshot from then on: ``xclip`` (not deskhand) reads every target back byte
for byte, and the keeper exits once another client copies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from _act_support import bind, executor_for, poll
from clip_support import digests, served_digests, user_items, users_clipboard, xclip
from Xlib import display

from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner
from deskhand.desktop import VirtualDesktop
from proc_support import alive

pytestmark = pytest.mark.desktop

GTK_FIXTURE = str(Path(__file__).resolve().parents[1] / "apps" / "gtk_fixture.py")
SYSTEM_PY = "/usr/bin/python3"  # the GTK fixture needs Debian's python3-gi


def test_the_restored_clipboard_outlives_the_executor(gtk, desktop):
    env = {**os.environ, "DISPLAY": desktop.env["DISPLAY"]}
    items = user_items()
    expected = digests(items, ("UTF8_STRING", "text/html", "image/png", "application/x-user-private"))
    ex = executor_for(desktop)
    keeper: int | None = None
    closed = False
    try:
        with users_clipboard(desktop.env["DISPLAY"], items) as user:  # the user's app that copied
            bound = bind(ex, gtk.pid)
            ex.click(bound.app, element=bound.handle(r"text \(settable, string\) Name"))
            bound.observe()
            since = time.monotonic()
            ex.paste(bound.app, "pasted", "text")
            gtk.events.wait_for("text", name="Name", predicate=lambda e: "pasted" in e["text"], since=since)
            assert not user.owns  # deskhand took the selection for the paste, and restored the user's items
            owner = ex.actor.session.clipboard_owner
            assert owner is not None and owner.owns
            ex.close()  # what the server's exit does (and SIGTERM of `deskhand serve`)
            closed = True
            keeper = owner.keeper_pid
            assert keeper is not None and alive(keeper), "no keeper took the clipboard over"
        assert served_digests(env, expected) == expected
        # another copy wins: the keeper gives up and exits
        subprocess.run(["xclip", "-selection", "clipboard", "-i"], input=b"new copy", env=env, timeout=10, check=True)
        poll(lambda: not alive(keeper), 10.0, "the keeper exits after an external copy")
        keeper = None
        assert xclip(env, "UTF8_STRING") == b"new copy"
    finally:
        if not closed:
            ex.close()
        if keeper is not None and alive(keeper):
            os.kill(keeper, 9)


def _owner(d: Any, name: str) -> int:
    owner = d.get_selection_owner(d.intern_atom(name))
    return int(getattr(owner, "id", owner) or 0)


def test_the_clipboard_survives_serve_through_a_real_clipboard_manager(tmp_path):
    """xfsettingsd (xfce4-settings) owns CLIPBOARD_MANAGER and implements SAVE_TARGETS (it asks for
    TARGETS, then every target in one MULTIPLE request, large ones over INCR, and takes CLIPBOARD
    itself). `deskhand serve` pastes into the GTK fixture, the user's app goes away, the client
    ends the server: the manager, not a keeper, then serves every target byte for byte."""
    if shutil.which("xfsettingsd") is None:
        pytest.skip("xfsettingsd is not installed (xfce4-settings; `make deps` installs it)")
    from serve_support import Served, keepers, text_of  # noqa: PLC0415

    vd = VirtualDesktop()
    vd.start()
    user: ClipboardOwner | None = None
    served: Served | None = None
    try:
        env = {**os.environ, **vd.env}
        d = display.Display(vd.env["DISPLAY"])
        vd.launch(["xfsettingsd", "--disable-wm-check"], log_path=tmp_path / "xfsettingsd.log")
        poll(lambda: _owner(d, "CLIPBOARD_MANAGER"), 20.0, "xfsettingsd owns CLIPBOARD_MANAGER")
        log = tmp_path / "events.jsonl"
        env_app = {"DESKHAND_EVENT_LOG": str(log)}
        app = vd.launch([SYSTEM_PY, GTK_FIXTURE], env=env_app, log_path=tmp_path / "app.log")
        poll(lambda: log.exists() and '"ready"' in log.read_text(), 30.0, "the fixture is ready")
        items = user_items()
        expected = digests(items, items)
        user = ClipboardOwner(vd.env["DISPLAY"])  # the user's app that copied
        user.own(items)
        served = Served(env, stderr_path=tmp_path / "serve.log")
        code = (f"const app = await cua.getApp({app.pid});"
                "const s = await app.getAXState({disableDiffing: true, emit: false});"
                "const h = s.match(/(g\\d+:\\d+) text \\(settable, string\\) Name/)[1];"
                "await app.click(h); await app.getAXState({emit: false});"
                "await app.paste('pasted by the agent');")  # fmt: skip
        result = served.call_js(code)
        assert not result.get("isError"), text_of(result)
        poll(lambda: "pasted by the agent" in log.read_text(), 10.0, "the paste in the app's log")
        assert not user.owns  # deskhand took the clipboard for the paste and serves the restored items
        user.close(hand_off=False)  # the user's app goes away: only deskhand holds the user's clipboard
        user = None
        assert served.proc.stdin is not None
        served.proc.stdin.close()  # the client ends the session
        assert served.proc.wait(30) == 0
        manager = _owner(d, "CLIPBOARD_MANAGER")
        assert _owner(d, "CLIPBOARD") == manager, "the clipboard manager does not hold the clipboard"
        assert keepers(vd.env["DISPLAY"]) == []
        assert served_digests(env, expected) == expected
        d.close()
    finally:
        if user is not None:
            user.close(hand_off=False)
        if served is not None:
            served.close()
        vd.stop()
