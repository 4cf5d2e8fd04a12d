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

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from _act_support import nothing_held, poll
from app_support import settled
from clip_support import CHECKED_TARGETS, digests, served_digests, user_items, users_clipboard
from serve_support import app_released_and_clipboard_kept, keepers

from proc_support import alive, children

pytestmark = pytest.mark.desktop

CLIENT = str(Path(__file__).with_name("stdio_client.py"))
EXIT_DEADLINE_S = 15.0
#: The user's clipboard targets checked byte for byte after the server is gone.


@contextmanager
def _doomed_client(
    env: dict[str, str], serve_args: list[str], code: str, display: str | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A client process (``stdio_client.py``) whose `deskhand serve` child runs ``code``: (the
    client, the server's pid) once the cell is sent. At the end the client, the server and the
    clipboard keepers serving ``display`` are gone."""
    client = subprocess.Popen(
        [sys.executable, CLIENT, json.dumps(serve_args), code],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    server = 0
    try:
        assert client.stdout is not None
        server = int(client.stdout.readline())
        assert client.stdout.readline().strip() == b"sent"
        yield client, server
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        for stream in (client.stdin, client.stdout):
            if stream is not None:
                stream.close()
        if server and alive(server):
            os.kill(server, signal.SIGKILL)
        for pid in keepers(display) if display else ():
            os.kill(pid, signal.SIGKILL)


def _on_name_field(pid: int, then: str) -> str:
    """A cell that binds the GTK fixture as ``app``, clicks its Name field, takes a screenshot (the
    pixels ``app.click`` takes) and runs ``then``."""
    return (f"const app = await cua.getApp({pid});"
            "const s = await app.getAXState({disableDiffing: true, emit: false});"
            "await app.click(s.match(/(g\\d+:\\d+) text \\(settable, string\\) Name/)[1]);"
            "await app.getScreenshot();" + then)  # fmt: skip


def _kill_client(client: subprocess.Popen[bytes], server: int) -> float:
    """SIGKILL the client alone; the seconds until the server was gone."""
    client.kill()
    client.wait()
    t0 = time.monotonic()
    poll(lambda: not alive(server), EXIT_DEADLINE_S, "the server exits after its client was killed")
    return time.monotonic() - t0


def test_serve_ends_cleanly_when_its_client_is_killed_mid_cell(canvas, ex, desktop):
    running, bound = canvas.running, canvas.bound
    items = user_items()
    expected = digests(items, CHECKED_TARGETS)
    display = desktop.env["DISPLAY"]
    env = {**os.environ, **desktop.env}
    clicks = f"for (let i = 0; i < 200; i++) await app.click([{canvas.x:.1f}, {canvas.y:.1f}]);"
    code = _on_name_field(running.pid, "await app.paste('from the doomed client');" + clicks)
    since = time.monotonic()
    with users_clipboard(display, items) as user, _doomed_client(env, [], code, display) as (client, server):
        poll(lambda: len(running.events.of_type("release", since=since)) >= 5, 30.0, "five clicks of the cell")
        assert not user.owns  # the paste took the clipboard (and gave the user's items back)
        user.close(hand_off=False)  # the user's app goes away: the server holds the user's clipboard
        workers = set(children(server))
        took = _kill_client(client, server)
        print(f"the server was gone {took:.3f} s after its client was killed")
        assert not any(alive(p) for p in workers), "a worker outlived the server"
        presses = app_released_and_clipboard_kept(ex, bound.app, running.events, desktop, expected, since)
        assert len(keepers(display)) == 1
        # nothing arrives later: the cell was not replayed by anyone
        assert settled(ex, bound.app)
        assert len(running.events.of_type("press", since=since)) == presses


def test_serve_virtual_tears_its_desktop_down_when_its_client_is_killed(tmp_path):
    registry = tmp_path / "desktops"
    env = {**os.environ, "DESKHAND_DESKTOPS_DIR": str(registry)}
    code = "for (let i = 0; i < 200; i++) await cua.listApps();"
    with _doomed_client(env, ["--virtual"], code) as (client, server):
        poll(lambda: list(registry.glob("*.json")), 30.0, "the desktop registered")
        state = json.loads(next(registry.glob("*.json")).read_text())
        desktop_pids = {int(p["pid"]) for p in state["processes"]}
        runtime_dir = Path(state["runtime_dir"])
        poll(lambda: children(server, b"worker.py"), 30.0, "a worker")
        workers = set(children(server))
        took = _kill_client(client, server)
        print(f"the --virtual server was gone {took:.3f} s after its client was killed")
        poll(lambda: not any(alive(p) for p in desktop_pids | workers), 10.0, "every desktop process and worker gone")
        assert list(registry.glob("*.json")) == []
        assert not runtime_dir.exists()


def test_a_client_killed_during_pastes_leaves_the_users_clipboard(gtk, desktop):
    """The sharper case for the clipboard: the cell pastes again and again, so the client dies while
    deskhand may be holding the agent's text. What outlives the server is the user's clipboard,
    byte for byte, never the agent's text; every paste the app logged is whole."""
    items = user_items()
    expected = digests(items, CHECKED_TARGETS)
    display = desktop.env["DISPLAY"]
    env = {**os.environ, **desktop.env}
    code = _on_name_field(gtk.pid, "for (let i = 0; i < 100; i++) await app.paste('<agent>');")
    since = time.monotonic()
    with users_clipboard(display, items) as user, _doomed_client(env, [], code, display) as (client, server):
        pasted = lambda: [e for e in gtk.events.of_type("text", since=since) if e.get("name") == "Name"]  # noqa: E731
        poll(lambda: sum(e["text"].count("<agent>") for e in pasted()[-1:]) >= 3, 30.0, "three pastes")
        user.close(hand_off=False)  # the user's app goes away: the server holds the user's clipboard
        took = _kill_client(client, server)
        print(f"the server was gone {took:.3f} s after its client was killed")
        assert served_digests(env, CHECKED_TARGETS) == expected, "the user's clipboard was lost with the server"
        last = pasted()[-1]["text"]
        assert last.replace("<agent>", "") == "", last  # whole pastes only
        assert nothing_held(desktop) == ((), set())
