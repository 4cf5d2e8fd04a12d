"""`deskhand serve --transport http` as a real child process, and real MCP clients for it.

The server runs on a loopback port the OS picked, behind a token read from a 0600 file; each
client is the MCP SDK's own (``mcp.Client`` over ``streamable_http_client``) with the bearer
token, so every client opens its own MCP session as an agent's would. Also: the Mousepad
processes the session tests drive, each read back from its own AT-SPI document text.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from _act_support import mousepad_env, poll
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from deskhand.backends.linux.atspi.connection import Deadline
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.executor import LinuxExecutor

TOKEN = "load-test-token-5c1e"
START_DEADLINE_S = 30.0
MOUSEPAD = shutil.which("mousepad")
EDITABLE_TEXT = "org.a11y.atspi.EditableText"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HttpServed:
    """One `deskhand serve --transport http` on loopback; ``url`` once it answers."""

    def __init__(self, env: Mapping[str, str], tmp: Path, *args: str) -> None:
        token_file = tmp / "token"
        token_file.write_text(TOKEN)
        token_file.chmod(0o600)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = tmp / "serve-http.log"
        argv = [sys.executable, "-m", "deskhand", "serve", "--transport", "http", "--port", str(self.port)]
        self._err = open(self.log, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [*argv, "--token-file", str(token_file), *args],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._err,
            start_new_session=True,
        )
        deadline = time.monotonic() + START_DEADLINE_S
        while not self._answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                pytest.fail(f"deskhand serve --transport http did not start:\n{self.log.read_text()[-2000:]}")
            time.sleep(0.05)

    def _answers(self) -> bool:
        try:
            return httpx2.get(self.url, timeout=1.0).status_code == 401  # no token: refused, but up
        except httpx2.TransportError:
            return False

    def close(self) -> None:
        """SIGTERM (serve's clean stop), then SIGKILL to its session if it is still there."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._err.close()


@contextlib.asynccontextmanager
async def client(url: str, *, timeout_s: float = 120.0) -> AsyncIterator[Client]:
    """A real MCP client with the token: its own MCP session on the server."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=timeout_s)
    async with http, Client(streamable_http_client(url, http_client=http)) as c:
        yield c


def texts(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def js(c: Client, code: str, timeout_ms: int = 30000) -> types.CallToolResult:
    return await c.call_tool("js", {"code": code, "timeout_ms": timeout_ms})


def launch_mousepad(launch: Any, tmp: Path, n: int) -> Any:
    """A Mousepad process of its own (``--disable-server``: no shared instance), private settings."""
    if MOUSEPAD is None:
        pytest.skip("mousepad is not installed (apt-get install mousepad)")
    home = tmp / f"mousepad-{n}"
    home.mkdir()
    return launch([MOUSEPAD, "--disable-server"], env=mousepad_env(home))


def document(ex: LinuxExecutor, pid: int) -> Ref:
    """The process's document (its editable text element), found on the bus apart from deskhand's actor."""

    def find() -> Ref | None:
        buses = ex.atspi.apps(Deadline(2.0))
        bus = next((b for b, p in ex.atspi.pids(buses, Deadline(2.0)).items() if p == pid), None)
        if bus is None:
            return None
        nodes = ex.atspi.snapshot(bus, Deadline(3.0)).nodes.values()
        return next((Ref(bus, n.path) for n in nodes if EDITABLE_TEXT in n.interfaces), None)

    return poll(find, what=f"the document of pid {pid} on AT-SPI")


def wait_text(ex: LinuxExecutor, doc: Ref, expected: str, timeout_s: float = 10.0) -> str | None:
    """The document's text once it is ``expected`` (or what it is at the deadline)."""
    a11y = A11y(ex.atspi)
    deadline = time.monotonic() + timeout_s
    while True:
        now = a11y.text(doc)
        if now == expected or time.monotonic() > deadline:
            return now
        time.sleep(0.05)
