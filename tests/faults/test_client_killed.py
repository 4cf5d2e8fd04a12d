"""The MCP client is SIGKILLed while its `js` cell runs (issue 14).

The client is a process of its own (``stdio_client.py``) with `deskhand serve` as its child, as
an agent's client starts it; the server sees its stdin end and its stdout break. The promises:

* on the session desktop: the server exits; from X's side no button or key is held; from the
  app's side every press it logged has its release and none comes after the server is gone; the
  user's clipboard (text, HTML, a PNG over 1 MiB), which the cell's paste had taken and restored,
  is served by a keeper byte for byte; no worker or server process is left;
* with ``--virtual``: the server exits and its desktop is torn down (every process, the registry
  entry and the runtime directory gone), no worker left;
* over streamable HTTP (``http_client.py``, the MCP SDK's client in a process of its own, killed
  while its cell clicks): the server hears the connection drop and cancels the cell while the
  session is still open (the cell's worker is gone while the session's spare still runs), so the
  click in flight is drained and no more come (fewer than the cell's clicks, each released, none
  held on X); the server keeps serving the user's clipboard byte for byte; after the idle timeout
  the session is freed (its workers gone), and under ``--max-sessions 1`` a new client's session
  then opens and its click lands once.
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

import anyio
import pytest
from _act_support import nothing_held, poll
from app_support import settled
from clip_support import CHECKED_TARGETS, digests, served_digests, user_items, users_clipboard
from http_support import TOKEN, HttpServed, client, js, texts
from serve_support import app_released_and_clipboard_kept, keepers

from proc_support import alive, children, started

pytestmark = pytest.mark.desktop

CLIENT = str(Path(__file__).with_name("stdio_client.py"))
HTTP_CLIENT = str(Path(__file__).with_name("http_client.py"))
#: the HTTP session's idle timeout: the killed client's session is freed this long after its last request
IDLE_S = 15
#: clicks in the HTTP client's cell: far more than run before its deadline (60 s)
EXIT_DEADLINE_S = 15.0
HTTP_CLICKS = 3000


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


def test_an_http_client_killed_mid_cell_is_cancelled_and_its_session_freed(canvas, ex, desktop, tmp_path):
    running, bound = canvas.running, canvas.bound
    items = user_items()
    expected = digests(items, CHECKED_TARGETS)
    env = {**os.environ, **desktop.env}
    clicks = f"for (let i = 0; i < {HTTP_CLICKS}; i++) await app.click([{canvas.x:.1f}, {canvas.y:.1f}]);"
    code = _on_name_field(running.pid, "await app.paste('from the doomed client');" + clicks)
    server = HttpServed(env, tmp_path, "--session-idle-timeout", str(IDLE_S), "--max-sessions", "1")
    doomed: subprocess.Popen[bytes] | None = None
    try:
        with users_clipboard(desktop.env["DISPLAY"], items) as user:
            since = time.monotonic()
            doomed = subprocess.Popen([sys.executable, HTTP_CLIENT, server.url, TOKEN, code], env=env,
                                      stdout=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
            poll(lambda: len(running.events.of_type("release", since=since)) >= 5, 30.0, "five clicks of the cell")
            assert not user.owns  # the paste took the clipboard (and gave the user's items back)
            user.close(hand_off=False)  # the user's app goes away: the server holds the user's clipboard
        cell_worker, spare = _session_workers(server.proc.pid)
        doomed.kill()
        doomed.wait()
        killed_at = time.monotonic()
        poll(lambda: not alive(cell_worker), 30.0, "the cell's worker ended after its client was killed")
        assert alive(spare), "the cell ended only with its session (the idle timeout), not when the client went"
        stopped_in = time.monotonic() - killed_at
        assert settled(ex, bound.app)
        presses = len(running.events.of_type("press", since=since))
        late = [e for e in running.events.of_type("press", since=since) if e["t"] > killed_at]
        print(f"the cell's worker was gone {stopped_in:.3f} s after the kill; {presses} presses, {len(late)} after it")
        assert presses < HTTP_CLICKS
        assert len(running.events.of_type("release", since=since)) == presses
        assert nothing_held(desktop) == ((), set())
        assert served_digests(env, CHECKED_TARGETS) == expected, "the user's clipboard was lost with the client"
        # the session is freed after its idle timeout: its workers end, and a new session fits under the cap
        poll(lambda: not alive(spare), IDLE_S + 30.0, "the killed client's session freed")
        assert server.proc.poll() is None
        assert settled(ex, bound.app)
        assert len(running.events.of_type("press", since=since)) == presses  # nothing came later

        async def one_click() -> str:
            once = f"await app.click([{canvas.x:.1f}, {canvas.y:.1f}]); 'one'"
            async with client(server.url) as c:
                result = await js(c, _on_name_field(running.pid, once))
                return ("error: " if result.is_error else "") + texts(result)

        again = time.monotonic()
        said = anyio.run(one_click)
        assert not said.startswith("error"), said
        running.events.wait_for("release", since=again)
        assert settled(ex, bound.app)
        assert len(running.events.of_type("press", since=again)) == 1
        assert nothing_held(desktop) == ((), set())
    finally:
        if doomed is not None and doomed.poll() is None:
            doomed.kill()
            doomed.wait()
        server.close()
        for pid in keepers(desktop.env["DISPLAY"]):
            os.kill(pid, signal.SIGKILL)


def _session_workers(server: int) -> tuple[int, int]:
    """The one session's js workers: (the one running its cell, its spare), by start time."""

    def both() -> list[int] | None:
        workers = sorted((p for p in children(server, b"worker.py") if alive(p)), key=started)
        return workers if len(workers) == 2 else None

    workers = poll(both, 30.0, "the session's worker and spare")
    return workers[0], workers[1]
