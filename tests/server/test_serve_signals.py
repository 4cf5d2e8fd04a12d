"""`deskhand serve --virtual` ends promptly and cleanly on SIGTERM and SIGINT, over stdio and HTTP.

Each case starts the real command in its own registry directory, makes one `js` call (so a
kernel worker runs), records the desktop's processes (from the registry) and the server's own
children, sends the signal, and checks: exit code 0 within the deadline, every recorded process
gone, the registry entry and the desktop's runtime directory removed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from proc_support import alive, children

pytestmark = [pytest.mark.desktop, pytest.mark.slow]

DEADLINE_S = 30.0
STOP_DEADLINE_S = 15.0
TOKEN = "signal-test-token"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "js", "arguments": {"code": "1 + 1"}}}


def _wait(predicate: Any, what: str, timeout_s: float = DEADLINE_S) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {what}"
        time.sleep(0.05)


def _registry(directory: Path) -> list[dict[str, Any]]:
    states = []
    for path in directory.glob("*.json"):
        try:
            states.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return states


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _over_stdio(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    for message in (INITIALIZE, INITIALIZED, CALL):
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        if "id" in message:
            reply = json.loads(proc.stdout.readline())
            assert reply["id"] == message["id"] and "result" in reply, reply


def _over_http(port: int) -> None:
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
    with httpx2.Client(timeout=DEADLINE_S) as http:

        def up() -> bool:
            try:
                return http.post(url, json=INITIALIZE, headers=headers).status_code == 200
            except httpx2.TransportError:
                return False

        _wait(up, "the HTTP server answered")
        opened = http.post(url, json=INITIALIZE, headers=headers)
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
        assert http.post(url, json=INITIALIZED, headers=session).status_code == 202
        call = http.post(url, json=CALL, headers=session)
        assert call.status_code == 200 and '"result"' in call.text, call.text


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_stops_cleanly(tmp_path: Path, transport: str, signum: int) -> None:
    registry = tmp_path / "desktops"
    env = {**os.environ, "DESKHAND_DESKTOPS_DIR": str(registry), "DESKHAND_TOKEN": TOKEN}
    argv = [sys.executable, "-m", "deskhand", "serve", "--virtual"]
    port = _free_port()
    if transport == "http":
        argv += ["--transport", "http", "--port", str(port)]
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        _wait(lambda: _registry(registry), "the desktop registered")
        if transport == "stdio":
            _over_stdio(proc)
        else:
            _over_http(port)
        (state,) = _registry(registry)  # complete now: the server answered a call inside it
        watched = {int(p["pid"]) for p in state["processes"]} | set(children(proc.pid))
        assert len(watched) >= 4, watched  # Xvfb, the buses, the window manager, the kernel worker, ...
        runtime_dir = Path(state["runtime_dir"])
        assert runtime_dir.is_dir()
        began = time.monotonic()
        proc.send_signal(signum)
        code = proc.wait(STOP_DEADLINE_S)
        stopped_in = time.monotonic() - began
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
    assert code == 0, f"exit {code} after {stopped_in:.1f} s"
    _wait(lambda: not any(alive(p) for p in watched), f"every process gone: {sorted(p for p in watched if alive(p))}")
    assert _registry(registry) == []
    assert not runtime_dir.exists()
