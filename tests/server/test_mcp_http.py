"""MCP over streamable HTTP on loopback: the SDK's client against ``http_app`` served by uvicorn.

The server runs in a background thread on 127.0.0.1 with a port the OS picks (the socket is bound
before the thread starts, so there is no race for it). Covers the listing and calls over HTTP, the
bearer token (401 without it or with a wrong one, before any tool runs), and ``http_app`` refusing
a non-loopback address without a token.
"""

from __future__ import annotations

import base64
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import mcp_types as types
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from deskhand.backends.fake import FAKE_JPEG, FakeExecutor
from deskhand.server.mcp import http_app
from deskhand.server.service import Service

TOKEN = "test-token-7f3a"
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
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/mcp"
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

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


@pytest.fixture
def open_server(service: Service) -> Iterator[ThreadedServer]:
    with ThreadedServer(http_app(service, host="127.0.0.1")) as server:
        yield server


@pytest.fixture
def token_server(service: Service) -> Iterator[ThreadedServer]:
    with ThreadedServer(http_app(service, host="127.0.0.1", token=TOKEN)) as server:
        yield server


def _client(url: str, headers: dict[str, str] | None = None) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers=headers or {})
    return http, Client(streamable_http_client(url, http_client=http))


@pytest.mark.anyio
async def test_listing_and_calls_over_http(open_server: ThreadedServer, executor: FakeExecutor, kernels: Any) -> None:
    http, client = _client(open_server.url)
    async with http, client:
        listing = await client.list_tools()
        refused = await client.call_tool("click", {"app": "Mousepad", "x": 3})
        assert executor.calls == []
        state = await client.call_tool("get_app_state", {"app": "Mousepad"})
        cell = await client.call_tool("js", {"code": "1", "timeout_ms": 500})
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
@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}])
async def test_token_server_answers_401_without_the_bearer_token(
    token_server: ThreadedServer, executor: FakeExecutor, headers: dict[str, str]
) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            token_server.url,
            json=INITIALIZE,
            headers={**headers, "Accept": "application/json, text/event-stream"},
        )
        assert response.status_code == 401
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_apps", "arguments": {}}}
        response = await http.post(token_server.url, json=call, headers=headers)
        assert response.status_code == 401
    assert executor.calls == []


@pytest.mark.anyio
async def test_mcp_client_without_the_token_cannot_connect(
    token_server: ThreadedServer, executor: FakeExecutor
) -> None:
    http, client = _client(token_server.url)
    with pytest.RaisesGroup(MCPError, flatten_subgroups=True):
        async with http, client:
            await client.call_tool("list_apps", {})
    assert executor.calls == []


@pytest.mark.anyio
async def test_mcp_client_with_the_token_works(token_server: ThreadedServer, executor: FakeExecutor) -> None:
    http, client = _client(token_server.url, {"Authorization": f"Bearer {TOKEN}"})
    async with http, client:
        listing = await client.list_tools()
        apps = await client.call_tool("list_apps", {})
    assert [t.name for t in listing.tools] == ["js", "js_reset"]
    assert not apps.is_error
    assert "Mousepad — org.xfce.mousepad" in apps.content[0].text  # type: ignore[union-attr]
    assert executor.methods() == ["list_apps"]


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.org", ""])
def test_non_loopback_host_needs_a_token(service: Service, host: str) -> None:
    with pytest.raises(ValueError, match="needs a bearer token"):
        http_app(service, host=host)
    with pytest.raises(ValueError, match="needs a bearer token"):
        http_app(service, host=host, token="")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10"])
def test_non_loopback_host_with_a_token_builds(service: Service, host: str) -> None:
    assert callable(http_app(service, host=host, token=TOKEN))


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
def test_loopback_host_needs_no_token(service: Service, host: str) -> None:
    assert callable(http_app(service, host=host))
