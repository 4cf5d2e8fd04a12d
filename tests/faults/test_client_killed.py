"""The MCP client is SIGKILLed while its `js` cell runs (issue 14).

The client is a process of its own (``stdio_client.py``) with `deskhand serve` as its child, as
an agent's client starts it; the server sees its stdin end and its stdout break. The promises:

* on the session desktop: the server exits; from X's side no button or key is held; from the
  app's side every press it logged has its release and none comes after the server is gone; the
  user's clipboard (text, HTML, a PNG over 1 MiB), which the cell's paste had taken and restored,
  is served by a keeper byte for byte; no worker or server process is left;
* with ``--virtual``: the server exits and its desktop is torn down (every process, the registry
  entry and the runtime directory gone), no worker left.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _act_support import bind, named_rect, nothing_held, poll
from clip_support import user_items, xclip
from serve_support import keepers

from deskhand.backends.linux._clipboard import ClipboardOwner
from proc_support import alive, children

pytestmark = pytest.mark.desktop

CLIENT = str(Path(__file__).with_name("stdio_client.py"))
EXIT_DEADLINE_S = 15.0


def _start_client(env: dict[str, str], serve_args: list[str], code: str) -> tuple[subprocess.Popen[bytes], int]:
    client = subprocess.Popen(
        [sys.executable, CLIENT, json.dumps(serve_args), code],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert client.stdout is not None
    server = int(client.stdout.readline())
    assert client.stdout.readline().strip() == b"sent"
    return client, server


def _end(client: subprocess.Popen[bytes]) -> None:
    if client.poll() is None:
        client.kill()
        client.wait()
    for stream in (client.stdin, client.stdout):
        if stream is not None:
            stream.close()


def _kill_client(client: subprocess.Popen[bytes], server: int) -> tuple[set[int], float]:
    """SIGKILL the client alone; (the server's children just before, seconds until the server was gone)."""
    before = set(children(server))
    client.kill()
    client.wait()
    t0 = time.monotonic()
    poll(lambda: not alive(server), EXIT_DEADLINE_S, "the server exits after its client was killed")
    return before, time.monotonic() - t0


def test_serve_ends_cleanly_when_its_client_is_killed_mid_cell(launch, ex, desktop, tmp_path):
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    bound = bind(ex, running.pid)
    r = named_rect(ex, bound.app.pid, "Canvas")
    x, y = bound.pixels(r.x + 40, r.y + 40)
    items = user_items()
    expected = {t: hashlib.sha256(items[t].data).hexdigest() for t in ("UTF8_STRING", "text/html", "image/png")}
    user = ClipboardOwner(desktop.env["DISPLAY"])
    env = {**os.environ, **desktop.env}
    client: subprocess.Popen[bytes] | None = None
    server = 0
    try:
        user.own(items)
        code = (f"const app = await cua.getApp({running.pid});"
                "const s = await app.getAXState({disableDiffing: true, emit: false});"
                "await app.click(s.match(/(g\\d+:\\d+) text \\(settable, string\\) Name/)[1]);"
                "await app.getScreenshot(); await app.paste('from the doomed client');"
                f"for (let i = 0; i < 200; i++) await app.click([{x:.1f}, {y:.1f}]);")  # fmt: skip
        since = time.monotonic()
        client, server = _start_client(env, [], code)
        poll(lambda: len(running.events.of_type("release", since=since)) >= 5, 30.0, "five clicks of the cell")
        assert not user.owns  # the paste took the clipboard (and gave the user's items back)
        user.close(hand_off=False)  # the user's app goes away: the server holds the user's clipboard
        workers = set(children(server))
        _, took = _kill_client(client, server)
        print(f"the server was gone {took:.3f} s after its client was killed")
        assert not any(alive(p) for p in workers), "a worker outlived the server"
        ping = ex.actor.session.pinger()
        assert ping.answered(ping.send(ex.actor.session.key_window(bound.app)), 5.0)
        presses = running.events.of_type("press", since=since)
        assert len(running.events.of_type("release", since=since)) == len(presses)
        assert nothing_held(desktop) == ((), set())
        got = {t: hashlib.sha256(xclip(env, t)).hexdigest() for t in expected}
        assert got == expected, "the user's clipboard was lost with the server"
        assert len(keepers(desktop.env["DISPLAY"])) == 1
        # nothing arrives later: the cell was not replayed by anyone
        assert ping.answered(ping.send(ex.actor.session.key_window(bound.app)), 5.0)
        assert len(running.events.of_type("press", since=since)) == len(presses)
    finally:
        user.close(hand_off=False)
        if client is not None:
            _end(client)
        if server and alive(server):
            os.kill(server, signal.SIGKILL)
        for pid in keepers(desktop.env["DISPLAY"]):
            os.kill(pid, signal.SIGKILL)


def test_serve_virtual_tears_its_desktop_down_when_its_client_is_killed(tmp_path):
    registry = tmp_path / "desktops"
    env = {**os.environ, "DESKHAND_DESKTOPS_DIR": str(registry)}
    code = "for (let i = 0; i < 200; i++) await cua.listApps();"
    client, server = _start_client(env, ["--virtual"], code)
    try:
        poll(lambda: list(registry.glob("*.json")), 30.0, "the desktop registered")
        state = json.loads(next(registry.glob("*.json")).read_text())
        desktop_pids = {int(p["pid"]) for p in state["processes"]}
        runtime_dir = Path(state["runtime_dir"])
        poll(lambda: children(server, b"worker.py"), 30.0, "a worker")
        workers = set(children(server))
        _, took = _kill_client(client, server)
        print(f"the --virtual server was gone {took:.3f} s after its client was killed")
        poll(lambda: not any(alive(p) for p in desktop_pids | workers), 10.0, "every desktop process and worker gone")
        assert list(registry.glob("*.json")) == []
        assert not runtime_dir.exists()
    finally:
        _end(client)
        if alive(server):
            os.kill(server, signal.SIGKILL)


def test_a_client_killed_during_pastes_leaves_the_users_clipboard(launch, ex, desktop, tmp_path):
    """The sharper case for the clipboard: the cell pastes again and again, so the client dies while
    deskhand may be holding the agent's text. What outlives the server is the user's clipboard,
    byte for byte, never the agent's text; every paste the app logged is whole."""
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    items = user_items()
    expected = {t: hashlib.sha256(items[t].data).hexdigest() for t in ("UTF8_STRING", "text/html", "image/png")}
    user = ClipboardOwner(desktop.env["DISPLAY"])
    env = {**os.environ, **desktop.env}
    client: subprocess.Popen[bytes] | None = None
    server = 0
    try:
        user.own(items)
        code = (f"const app = await cua.getApp({running.pid});"
                "const s = await app.getAXState({disableDiffing: true, emit: false});"
                "await app.click(s.match(/(g\\d+:\\d+) text \\(settable, string\\) Name/)[1]);"
                "await app.getScreenshot();"
                "for (let i = 0; i < 100; i++) await app.paste('<agent>');")  # fmt: skip
        since = time.monotonic()
        client, server = _start_client(env, [], code)
        pasted = lambda: [e for e in running.events.of_type("text", since=since) if e.get("name") == "Name"]  # noqa: E731
        poll(lambda: sum(e["text"].count("<agent>") for e in pasted()[-1:]) >= 3, 30.0, "three pastes")
        user.close(hand_off=False)  # the user's app goes away: the server holds the user's clipboard
        _, took = _kill_client(client, server)
        print(f"the server was gone {took:.3f} s after its client was killed")
        got = {t: hashlib.sha256(xclip(env, t)).hexdigest() for t in expected}
        assert got == expected, "the user's clipboard was lost with the server"
        last = pasted()[-1]["text"]
        assert last.replace("<agent>", "") == "", last  # whole pastes only
        assert nothing_held(desktop) == ((), set())
    finally:
        user.close(hand_off=False)
        if client is not None:
            _end(client)
        if server and alive(server):
            os.kill(server, signal.SIGKILL)
        for pid in keepers(desktop.env["DISPLAY"]):
            os.kill(pid, signal.SIGKILL)
