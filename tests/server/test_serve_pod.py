"""`deskhand serve` for pods: `/healthz`, a semantic `/readyz`, `--max-sessions` and `--exit-after-session`,
against the real command on loopback inside a real virtual desktop.

`/readyz` is 200 only while X answers, the AT-SPI registry is up, a window manager is seen and MCP has
room for a session; both probes answer without the token and name no display, address or token. A
session beyond `--max-sessions` gets a 503 whose JSON-RPC error names the limit. With
`--exit-after-session` the server exits 0 once its first session has ended, its desktop gone. A desktop
or `--launch` app that does not start exits 3 (what a pod's failure policy matches).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import uvicorn

from deskhand.backends.fake import FakeExecutor
from deskhand.desktop import VirtualDesktop
from deskhand.desktop.probe import probe
from deskhand.host import Host
from deskhand.runtime import JsKernel
from deskhand.server.httpserve import http_app
from deskhand.server.service import Service

pytestmark = [pytest.mark.desktop, pytest.mark.slow]

TOKEN = "pod-test-token-31"
DEADLINE_S = 30.0
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "js", "arguments": {"code": "nodeRepl.write(String(6 * 7))"}},
}


def _wait(predicate: Any, what: str, timeout_s: float = DEADLINE_S) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {what}"
        time.sleep(0.05)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(http: httpx2.Client, url: str) -> httpx2.Response | None:
    try:
        return http.get(url)
    except httpx2.TransportError:
        return None


def _no_secrets(text: str, *secrets: str) -> None:
    for secret in (TOKEN, "/tmp", "unix:", *secrets):
        assert secret not in text, f"{secret!r} in {text!r}"


@pytest.fixture
def pod(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str, Path]]:
    registry = tmp_path / "desktops"
    port = _free_port()
    env = {**os.environ, "DESKHAND_DESKTOPS_DIR": str(registry), "DESKHAND_TOKEN": TOKEN}
    argv = [sys.executable, "-m", "deskhand", "serve", "--virtual", "--transport", "http", "--port", str(port),
            "--max-sessions", "1", "--exit-after-session"]  # fmt: skip
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        yield proc, f"http://127.0.0.1:{port}", registry
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_a_pod_serves_one_session_and_exits(pod: tuple[subprocess.Popen[bytes], str, Path]) -> None:
    proc, base, registry = pod
    with httpx2.Client(timeout=DEADLINE_S) as http:
        health = _wait(lambda: _get(http, base + "/healthz"), "/healthz answered")
        assert (health.status_code, health.json()) == (200, {"status": "ok"})

        def ready() -> httpx2.Response | None:
            r = _get(http, base + "/readyz")
            return r if r is not None and r.status_code == 200 else None

        body = _wait(ready, "/readyz said ready").json()
        assert body == {
            "ready": True,
            "checks": {"x": True, "accessibility": True, "window_manager": True, "mcp": True},
        }
        (state,) = [json.loads(p.read_text()) for p in registry.glob("*.json")]
        _no_secrets(health.text + json.dumps(body), f":{state['display']}")

        opened = http.post(base + "/mcp", json=INITIALIZE, headers=HEADERS)
        assert opened.status_code == 200
        session = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
        assert http.post(base + "/mcp", json=INITIALIZED, headers=session).status_code == 202
        call = http.post(base + "/mcp", json=CALL, headers=session)
        assert call.status_code == 200 and "42" in call.text, call.text

        refused = http.post(base + "/mcp", json=INITIALIZE, headers=HEADERS)
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert "at most 1 MCP session at once (--max-sessions)" in refused.json()["error"]["message"]
        full = http.get(base + "/readyz")
        assert full.status_code == 503 and full.json()["checks"]["mcp"] is False
        assert proc.poll() is None  # a refused session ended nothing

        assert http.delete(base + "/mcp", headers=session).status_code == 200
    assert proc.wait(DEADLINE_S) == 0
    runtime_dir = Path(state["runtime_dir"])
    assert list(registry.glob("*.json")) == [] and not runtime_dir.exists()
    assert not any(Path(f"/proc/{p['pid']}").exists() and _running(p["pid"]) for p in state["processes"])


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_an_app_that_does_not_start_exits_3(tmp_path: Path) -> None:
    env = {**os.environ, "DESKHAND_DESKTOPS_DIR": str(tmp_path / "desktops"), "DESKHAND_TOKEN": TOKEN}
    argv = [sys.executable, "-m", "deskhand", "serve", "--virtual", "--transport", "http",
            "--port", str(_free_port()), "--launch", "deskhand-no-such-app-31"]  # fmt: skip
    done = subprocess.run(argv, env=env, capture_output=True, timeout=DEADLINE_S, check=False)
    assert done.returncode == 3, done.stderr
    assert b"the desktop did not start: --launch: command not found: deskhand-no-such-app-31" in done.stderr
    assert list((tmp_path / "desktops").glob("*.json")) == []


class _Served:
    """uvicorn serving one app on a pre-bound loopback socket in a thread."""

    def __init__(self, app: Any) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def __enter__(self) -> _Served:
        self._thread.start()
        _wait(lambda: self._server.started, "uvicorn started")
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(DEADLINE_S)
        self._sock.close()


def test_readyz_says_which_check_failed_on_a_real_desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKHAND_DESKTOPS_DIR", str(tmp_path / "desktops"))
    host = Host(FakeExecutor())
    service = Service(host, lambda: JsKernel(host))
    with VirtualDesktop(size=(640, 480, 24), wm=False) as desktop:
        app = http_app(service, token=TOKEN, readiness=lambda: probe(desktop.env))
        with _Served(app) as served, httpx2.Client(timeout=DEADLINE_S) as http:
            r = http.get(served.base + "/readyz")
            assert r.status_code == 503
            assert r.json() == {
                "ready": False,
                "checks": {"x": True, "accessibility": True, "window_manager": False, "mcp": True},
            }
            assert http.get(served.base + "/mcp").status_code == 401  # the probes opened no door
            desktop.stop()
            r = http.get(served.base + "/readyz")
            assert r.status_code == 503 and r.json()["checks"]["x"] is False
