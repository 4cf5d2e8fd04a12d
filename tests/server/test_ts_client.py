"""The official MCP TypeScript SDK client (npm `@modelcontextprotocol/sdk`, pinned in
tests/ts_client/package.json and installed by `make deps`) drives `deskhand serve --virtual
--launch mousepad` over stdio and over streamable HTTP with a bearer token.

The client types into Mousepad through a `js` cell and the app's own accessibility tree, read
back in the same cell, shows the text; it hears progress after each native call, lists the tools
with their titles, the guidance prompts and a resource, and gets a protocol error for an unknown
tool. Skipped only where npm is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.desktop, pytest.mark.slow]

CLIENT_DIR = Path(__file__).resolve().parents[1] / "ts_client"
TOKEN = "ts-client-token-5c1e"
TYPED = "typed by the TS client ✓"
CELL = f'let app = await cua.getApp("Mousepad"); await app.typeText({json.dumps(TYPED)}); await app.getAXState();'
RUN_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def node_client() -> Path:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm is not installed: the TypeScript SDK client cannot be installed (apt-get install npm)")
    if not (CLIENT_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CLIENT_DIR, check=True, timeout=600
        )
    return CLIENT_DIR / "client.mjs"


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "GSETTINGS_BACKEND": "memory",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "DESKHAND_TOKEN": TOKEN,
        "DESKHAND_TS_CELL": CELL,
    }


def _serve_argv() -> list[str]:
    return [sys.executable, "-m", "deskhand", "serve", "--virtual", "--launch", "mousepad"]


def _check(seen: dict[str, Any]) -> None:
    assert seen["serverVersion"]["name"] == "deskhand"
    assert seen["capabilities"]["tools"] is not None
    assert "logging" in seen["capabilities"] and "prompts" in seen["capabilities"]
    assert "js" in seen["instructions"]
    assert seen["platform"] == "linux"
    assert seen["tools"] == [
        {"name": "js", "title": "Run JavaScript against desktop apps"},
        {"name": "js_reset", "title": "Reset the JavaScript session"},
    ]
    cell = seen["cell"]
    assert cell["isError"] is False, cell["texts"]
    assert any(f"Value: {TYPED}" in text for text in cell["texts"]), cell["texts"]  # the app's own tree
    # one progress notification per native call (getApp, typeText, getAXState), all before the result
    assert seen["wire"] == [1, 2, 3, "result"]
    # what the SDK handed to onprogress: the same, though it may miss the last one (client.mjs)
    assert seen["progress"] in ([1, 2, 3], [1, 2])
    assert seen["prompts"] == ["deskhand"]  # the Skill: the entry plus the listed platform's document
    assert seen["resourceStart"].startswith("# deskhand on Linux")
    assert seen["unknownTool"]["code"] == -32602
    assert "Unknown tool: no_such_tool" in seen["unknownTool"]["message"]


def test_typescript_client_over_stdio(node_client: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        ["node", str(node_client), "stdio", *_serve_argv()],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    _check(json.loads(run.stdout.splitlines()[-1]))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_typescript_client_over_http(node_client: Path, tmp_path: Path) -> None:
    port = _free_port()
    env = _env(tmp_path)
    server = subprocess.Popen(
        [*_serve_argv(), "--transport", "http", "--port", str(port)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        deadline = time.monotonic() + RUN_TIMEOUT_S
        line = ""
        while "serving MCP on" not in line:  # printed once the desktop and Mousepad are up
            assert server.poll() is None and time.monotonic() < deadline, f"serve did not start: {line}"
            line = server.stderr.readline()
        run = subprocess.run(
            ["node", str(node_client), "http", f"http://127.0.0.1:{port}/mcp", TOKEN],
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
    finally:
        server.terminate()
        code = server.wait(30)
        if server.stderr is not None:
            server.stderr.close()
    assert run.returncode == 0, run.stderr[-3000:]
    _check(json.loads(run.stdout.splitlines()[-1]))
    assert code == 0
