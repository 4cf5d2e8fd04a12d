"""MCP over streamable HTTP on loopback, and its security: the SDK's client against ``http_app``.

The server runs in a background thread on 127.0.0.1 with a port the OS picks (the socket is bound
before the thread starts, so there is no race for it). Covers: the listing and calls with the
token; a standard 401 (with ``WWW-Authenticate``) before any tool runs for a missing, wrong or
non-Bearer credential; ``Bearer`` in any case; every MCP session its own js kernel (and, with the
real QuickJS kernel, its own bindings) unless ``share_session``; idle sessions reclaimed (their
kernel closed, their id answering 404); the session cap (503); 1,500 unauthenticated
initializations opening no session; the stateless 2026 envelope refused; and the token's
sources (generated into a 0600 file on loopback, refused for 0.0.0.0 without one, the argv
warning).
"""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import socket
import stat
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from deskhand.backends.fake import FAKE_JPEG, FakeExecutor
from deskhand.host import Host
from deskhand.host.result import TextBlock, ToolResult
from deskhand.runtime import JsKernel
from deskhand.server.httpdrop import call_ids
from deskhand.server.httpserve import http_app
from deskhand.server.httptoken import ARGV_WARNING, TokenError, resolve_token
from deskhand.server.options import ServerOptions
from deskhand.server.service import Service

TOKEN = "test-token-7f3a"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ACCEPT = {"Accept": "application/json, text/event-stream"}
START_TIMEOUT_S = 10.0
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}


class ThreadedServer:
    """uvicorn serving one ASGI app on a pre-bound loopback socket in a daemon thread."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/mcp"
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    @property
    def open_sessions(self) -> int:
        return len(self.app.session_manager._server_instances)

    def __enter__(self) -> ThreadedServer:
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.__exit__()
                pytest.fail("uvicorn did not start on 127.0.0.1")
            time.sleep(0.01)  # polling a readiness flag with a deadline, not synchronizing by time
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(START_TIMEOUT_S)
        self._sock.close()
        assert not self._thread.is_alive(), "uvicorn did not stop"


def serve(service: Service, **kw: Any) -> ThreadedServer:
    return ThreadedServer(http_app(service, token=TOKEN, host="127.0.0.1", **kw))


@pytest.fixture
def server(service: Service) -> Iterator[ThreadedServer]:
    with serve(service) as s:
        yield s


def _client(url: str, headers: dict[str, str] | None = None) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers=headers if headers is not None else AUTH)
    return http, Client(streamable_http_client(url, http_client=http))


async def _raw_session(http: httpx2.AsyncClient, url: str) -> tuple[int, str | None]:
    """An initialize + initialized by hand; the HTTP status and the session id it opened."""
    response = await http.post(url, json=INITIALIZE, headers={**AUTH, **ACCEPT})
    sid = response.headers.get("mcp-session-id")
    if response.status_code == 200 and sid:
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        ack = await http.post(url, json=note, headers={**AUTH, **ACCEPT, "mcp-session-id": sid})
        assert ack.status_code == 202
    return response.status_code, sid


async def _raw_call(http: httpx2.AsyncClient, url: str, sid: str, code: str) -> httpx2.Response:
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "js", "arguments": {"code": code}}}
    return await http.post(url, json=call, headers={**AUTH, **ACCEPT, "mcp-session-id": sid})


async def _wait_until(predicate: Any, what: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {what}"
        await asyncio.sleep(0.02)


@pytest.mark.anyio
async def test_listing_and_calls_over_http(server: ThreadedServer, executor: FakeExecutor, kernels: Any) -> None:
    http, client = _client(server.url)
    async with http, client:
        listing = await client.list_tools()
        refused = await client.call_tool("click", {"app": "Mousepad", "x": 3})
        assert executor.calls == []
        state = await client.call_tool("get_app_state", {"app": "Mousepad"})
        cell = await client.call_tool("js", {"code": "1", "timeout_ms": 500})
        assert client.protocol_version == "2025-11-25"  # the handshake era: a session
    assert [t.name for t in listing.tools] == ["js", "js_reset"]
    assert listing.meta is not None
    assert listing.meta["platform"] == "linux"
    assert refused.is_error
    assert [b.text for b in refused.content if isinstance(b, types.TextContent)] == [
        "click x and y must be provided together"
    ]
    assert not state.is_error
    image = state.content[-1]
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/jpeg"
    assert base64.b64decode(image.data) == FAKE_JPEG
    assert executor.methods() == ["resolve", "get_app_state"]
    assert [b.type for b in cell.content] == ["text", "image"]
    assert cell.content[1].mime_type == "image/png"  # type: ignore[union-attr]
    assert kernels.made[0].runs == [("1", 500)]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("headers", "error"),
    [
        ({}, None),
        ({"Authorization": "Bearer wrong"}, "invalid_token"),
        ({"Authorization": TOKEN}, "invalid_token"),
        ({"Authorization": f"Basic {TOKEN}"}, "invalid_token"),
    ],
)
async def test_a_standard_401_without_the_bearer_token(
    server: ThreadedServer, executor: FakeExecutor, headers: dict[str, str], error: str | None
) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.post(server.url, json=INITIALIZE, headers={**headers, **ACCEPT})
        assert response.status_code == 401
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith("Bearer ")
        assert ('error="invalid_token"' in challenge) is (error is not None)
        assert response.json()["error"] == (error or "unauthorized")
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_apps", "arguments": {}}}
        assert (await http.post(server.url, json=call, headers=headers)).status_code == 401
    assert executor.calls == []
    assert server.open_sessions == 0


@pytest.mark.anyio
@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer", "bEaReR"])
async def test_bearer_is_case_insensitive(server: ThreadedServer, executor: FakeExecutor, scheme: str) -> None:
    http, client = _client(server.url, {"Authorization": f"{scheme} {TOKEN}"})
    async with http, client:
        apps = await client.call_tool("list_apps", {})
    assert not apps.is_error
    assert executor.methods() == ["list_apps"]


@pytest.mark.anyio
async def test_mcp_client_without_the_token_cannot_connect(server: ThreadedServer, executor: FakeExecutor) -> None:
    http, client = _client(server.url, {})
    with pytest.RaisesGroup(MCPError, flatten_subgroups=True):
        async with http, client:
            await client.call_tool("list_apps", {})
    assert executor.calls == []


@pytest.mark.anyio
async def test_each_session_has_its_own_kernel(server: ThreadedServer, kernels: Any) -> None:
    http_a, a = _client(server.url)
    http_b, b = _client(server.url)
    async with http_a, a, http_b, b:
        await a.call_tool("js", {"code": "var secret = 'pw'"})
        await b.call_tool("js", {"code": "typeof secret"})
        await a.call_tool("js", {"code": "secret"})
    assert [k.runs for k in kernels.made] == [
        [("var secret = 'pw'", 30_000), ("secret", 30_000)],
        [("typeof secret", 30_000)],
    ]
    # each client's DELETE ends its session, and the server then closes that session's kernel
    await _wait_until(lambda: all(k.closed for k in kernels.made), "both sessions' kernels closed")


@pytest.mark.anyio
async def test_share_session_gives_every_client_the_one_kernel(service: Service, kernels: Any) -> None:
    with serve(service, options=ServerOptions(share_session=True)) as s:
        http_a, a = _client(s.url)
        http_b, b = _client(s.url)
        async with http_a, a, http_b, b:
            await a.call_tool("js", {"code": "1"})
            await b.call_tool("js", {"code": "2"})
    assert [k.runs for k in kernels.made] == [[("1", 30_000), ("2", 30_000)]]


def _texts(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_real_kernels_keep_one_clients_bindings_from_another(host: Host) -> None:
    service = Service(host, JsKernel)
    with serve(service) as s:
        http_a, a = _client(s.url)
        http_b, b = _client(s.url)
        async with http_a, a, http_b, b:
            await a.call_tool("js", {"code": "var secret = 'hunter2'; nodeRepl.write('set')"})
            other = await b.call_tool("js", {"code": "nodeRepl.write(typeof secret)"})
            reset = await b.call_tool("js_reset", {})
            mine = await a.call_tool("js", {"code": "nodeRepl.write(secret)"})
    assert _texts(other) == "undefined"
    assert not reset.is_error
    assert _texts(mine) == "hunter2"  # the other client's js_reset did not touch this session


@pytest.mark.anyio
async def test_idle_sessions_are_reclaimed(service: Service, kernels: Any) -> None:
    with serve(service, idle_timeout_s=0.5) as s:
        async with httpx2.AsyncClient() as http:
            status, sid = await _raw_session(http, s.url)
            assert status == 200 and sid
            assert (await _raw_call(http, s.url, sid, "1")).status_code == 200
            await _wait_until(lambda: s.open_sessions == 0, "the idle session closed")
            await _wait_until(lambda: kernels.made[0].closed, "the idle session's kernel closed")
            assert (await _raw_call(http, s.url, sid, "2")).status_code == 404
    assert kernels.made[0].runs == [("1", 30_000)]


@pytest.mark.anyio
async def test_sessions_are_capped(service: Service) -> None:
    with serve(service, max_sessions=3) as s:
        async with httpx2.AsyncClient() as http:
            opened = [await _raw_session(http, s.url) for _ in range(3)]
            assert [status for status, _ in opened] == [200, 200, 200]
            status, sid = await _raw_session(http, s.url)
            assert (status, sid) == (503, None)
            assert s.open_sessions == 3


#: Initializations refused in a row; what they keep must stay under 2 KiB each (a session kept per
#: refused request, its streams and task group, would be far more).
REFUSED = 500


@pytest.mark.anyio
@pytest.mark.timeout(180)
async def test_unauthenticated_initializations_open_no_session(server: ThreadedServer) -> None:
    async with httpx2.AsyncClient() as http:
        for _ in range(20):  # warm up: the first requests allocate what every later one reuses
            await http.post(server.url, json=INITIALIZE, headers=ACCEPT)
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(REFUSED):
                response = await http.post(server.url, json=INITIALIZE, headers=ACCEPT)
                assert response.status_code == 401
            gc.collect()
            grown = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
    assert server.open_sessions == 0
    assert grown < REFUSED * 2**11, f"{grown / 2**10:.0f} KiB kept after {REFUSED} refused initializations"


@pytest.mark.anyio
async def test_the_stateless_2026_envelope_is_refused(server: ThreadedServer, executor: FakeExecutor) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_apps", "arguments": {}}}
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            server.url, json=call, headers={**AUTH, **ACCEPT, "mcp-protocol-version": "2026-07-28"}
        )
    assert response.status_code == 400
    assert "each session keeps its own JavaScript bindings" in json.dumps(response.json())
    assert executor.calls == []


def test_http_app_needs_a_token(service: Service) -> None:
    with pytest.raises(TokenError, match="needs a bearer token"):
        http_app(service, token="")


def test_without_a_runtime_dir_the_token_gets_a_private_directory_removed_after() -> None:
    token = resolve_token(host="::1", port=8124, argv_token=None, token_file=None, env={})
    assert token.path is not None
    assert stat.S_IMODE(token.path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(token.path.stat().st_mode) == 0o600
    token.discard()
    assert not token.path.parent.exists()


def test_a_generated_token_goes_to_a_0600_file(tmp_path: Path) -> None:
    token = resolve_token(
        host="127.0.0.1", port=8123, argv_token=None, token_file=None, env={"XDG_RUNTIME_DIR": str(tmp_path)}
    )
    assert token.source == "generated" and token.path is not None
    assert token.path.read_text().strip() == token.value
    assert len(token.value) >= 32
    assert stat.S_IMODE(token.path.stat().st_mode) == 0o600
    again = resolve_token(
        host="127.0.0.1", port=8123, argv_token=None, token_file=None, env={"XDG_RUNTIME_DIR": str(tmp_path)}
    )
    assert again.value != token.value
    again.discard()
    assert not token.path.exists()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.org"])
def test_non_loopback_without_a_chosen_token_is_refused(host: str, tmp_path: Path) -> None:
    with pytest.raises(TokenError, match="needs a bearer token you chose"):
        resolve_token(host=host, port=1, argv_token=None, token_file=None, env={"XDG_RUNTIME_DIR": str(tmp_path)})
    assert list(tmp_path.iterdir()) == []  # nothing generated


def test_token_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "token"
    file.write_text("from-file\n")
    assert resolve_token(host="0.0.0.0", port=1, argv_token=None, token_file=str(file), env={}).value == "from-file"
    assert (
        resolve_token(host="0.0.0.0", port=1, argv_token=None, token_file=None, env={"DESKHAND_TOKEN": "env"}).value
        == "env"
    )
    assert capsys.readouterr().err == ""
    assert resolve_token(host="127.0.0.1", port=1, argv_token="argv", token_file=None, env={}).value == "argv"
    assert capsys.readouterr().err.strip() == ARGV_WARNING
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(TokenError, match="empty"):
        resolve_token(host="127.0.0.1", port=1, argv_token=None, token_file=str(tmp_path / "empty"), env={})
    with pytest.raises(TokenError, match="cannot read"):
        resolve_token(host="127.0.0.1", port=1, argv_token=None, token_file=str(tmp_path / "missing"), env={})


@pytest.mark.anyio
async def test_sessions_are_separate_but_share_the_one_queue(service: Service, host: Host, kernels: Any) -> None:
    """Two sessions' cells never overlap: B's cell waits in the host's FIFO queue until A's ends."""
    events: list[str] = []
    gate = threading.Event()

    async def script(_queue: Any, code: str) -> Any:
        events.append(f"start {code}")
        if code == "A":
            await anyio.to_thread.run_sync(gate.wait, 10)
        events.append(f"end {code}")
        return await _emit_text(code)

    kernels.script = script
    with serve(service) as s:
        http_a, a = _client(s.url)
        http_b, b = _client(s.url)
        async with http_a, a, http_b, b, anyio.create_task_group() as tg:
            tg.start_soon(a.call_tool, "js", {"code": "A"})
            await _wait_until(lambda: events == ["start A"], "A's cell started")
            tg.start_soon(b.call_tool, "js", {"code": "B"})
            await _wait_until(lambda: host._queue.statistics().tasks_waiting == 1, "B's cell queued")
            assert events == ["start A"]
            gate.set()
    assert events == ["start A", "end A", "start B", "end B"]
    assert len(kernels.made) == 2


async def _emit_text(code: str) -> ToolResult:
    return ToolResult((TextBlock(f"ran {code}"),))


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_a_call_whose_client_drops_the_connection_is_cancelled(host: Host) -> None:
    """The answer can never be read once the POST's connection is gone: the server cancels the
    cell (``httpdrop``), so the session's next call says the previous cell was cancelled at once
    instead of waiting behind it for its deadline."""
    service = Service(host, JsKernel)
    with serve(service) as s:
        async with httpx2.AsyncClient() as http:
            status, sid = await _raw_session(http, s.url)
            assert status == 200 and sid
            host_port, path = s.url.removeprefix("http://").split("/", 1)
            name, port = host_port.split(":")
            endless = "for (let i = 0; i < 1e9; i++) await cua.listApps();"
            params = {"name": "js", "arguments": {"code": endless, "timeout_ms": 60000}}
            body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).encode()
            head = [f"POST /{path} HTTP/1.1", f"Host: {host_port}", f"Content-Length: {len(body)}",
                    f"mcp-session-id: {sid}", "Content-Type: application/json",
                    f"Accept: {ACCEPT['Accept']}", f"Authorization: {AUTH['Authorization']}"]  # fmt: skip
            reader, writer = await asyncio.open_connection(name, int(port))
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
            await writer.drain()
            assert (await reader.readline()).startswith(b"HTTP/1.1 200")  # the cell runs, its stream open
            writer.transport.abort()  # the client goes away mid-cell
            # without the cancel this call would wait for the dropped cell's deadline and say nothing of it
            after = await _raw_call(http, s.url, sid, "nodeRepl.write('after')")
    assert after.status_code == 200
    assert "cancelled" in after.text and "after" in after.text, after.text


def test_the_ids_of_the_calls_a_dropped_post_carried() -> None:
    """Only ``tools/call`` requests are cancelled; notifications, other methods and bodies that do
    not parse give none."""
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {}}
    assert call_ids(json.dumps(call).encode()) == [3]
    batch = [call, {**call, "id": "x"}, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}]
    assert call_ids(json.dumps(batch).encode()) == [3, "x"]
    assert call_ids(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()) == []
    assert call_ids(b"\xff not json") == []
