"""End to end as an agent connects: the MCP SDK's client against `deskhand serve` (stdio) and the
HTTP app (loopback), the real kernel and the Linux backend, effects read from the fixture's log; on
X11 and on sway (``displays``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
import threading
import time
from collections.abc import Iterator

import anyio
import httpx2
import mcp_types as types
import pytest
import uvicorn
from _act_support import nothing_held
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from deskhand.kernel.session import RESET_ACTIVE, RESET_QUEUED
from deskhand.runtime import open_service
from deskhand.server.httpserve import http_app
from deskhand.server.mcp import build_server
from deskhand.server.service import Service

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin")]

TOKEN = "e2e-token"

APPLY_CELL = """
let app = await cua.getApp("{pid}");
const state = await app.getAXState({{disableDiffing: true, emit: false}});
const apply = state.match(/(g\\d+:\\d+) push button Apply/)[1];
await app.click(apply);
await app.getAXState();
"""


def _texts(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def test_stdio_server_lists_js_and_runs_a_cell_that_acts_and_observes(launch, desktop):
    app = launch.gtk_fixture()
    app.events.wait_for("ready")
    params = StdioServerParameters(command=sys.executable, args=["-m", "deskhand", "serve"], env=desktop.app_env())

    async def go() -> tuple[types.ListToolsResult, types.CallToolResult]:
        async with Client(params) as client:
            return await client.list_tools(), await client.call_tool("js", {"code": APPLY_CELL.format(pid=app.pid)})

    listing, result = anyio.run(go)
    assert [t.name for t in listing.tools] == ["js", "js_reset"]
    assert listing.meta is not None and listing.meta["platform"] == "linux"
    assert not result.is_error, _texts(result)
    assert "push button Apply" in _texts(result)
    app.events.wait_for("clicked", name="Apply")


def test_js_reset_interrupts_the_running_cell_and_rejects_the_queued_one(launch, desktop):
    app = launch.gtk_fixture()
    app.events.wait_for("ready")
    busy = APPLY_CELL.format(pid=app.pid) + "\nwhile (true) {}"
    service = open_service(env=desktop.env)

    async def go() -> dict[str, types.CallToolResult]:
        try:
            return await _reset_scenario(service, app, busy)
        finally:
            await service.close()  # in the loop that started the kernel

    results = anyio.run(go)
    assert RESET_ACTIVE in _texts(results["running"]) and results["running"].is_error
    assert _texts(results["queued"]) == RESET_QUEUED and results["queued"].is_error
    assert _texts(results["reset"]) == "Computer Use JavaScript reset. Select an app again to continue."
    assert _texts(results["after"]) == "undefined"  # bindings were discarded
    assert len(app.events.of_type("clicked")) == 1  # nothing was replayed
    if not desktop.wayland:  # from X's side: no button or key left down (on Wayland the session's
        assert nothing_held(desktop) == ((), set())  # devices went with its executor, which released them


async def _reset_scenario(service: Service, app, busy: str) -> dict[str, types.CallToolResult]:
    results: dict[str, types.CallToolResult] = {}
    async with Client(build_server(service)) as client:

        async def call(key: str, code: str) -> None:
            results[key] = await client.call_tool("js", {"code": code, "timeout_ms": 30000})

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "running", busy)
            with anyio.fail_after(10):
                while not app.events.of_type("clicked"):
                    await anyio.sleep(0.01)  # poll the app's log with a deadline
            tg.start_soon(call, "queued", f'await cua.getApp("{app.pid}");')
            with anyio.fail_after(10):  # the queued cell waits on the host's session queue
                while service.host.queue_waiting() < 1:
                    await anyio.sleep(0.005)  # poll the queue's own count with a deadline
            results["reset"] = await client.call_tool("js_reset", {})
        results["after"] = await client.call_tool("js", {"code": "nodeRepl.write(typeof app)"})
    return results


class _Uvicorn:
    """uvicorn serving the service's HTTP app on a pre-bound loopback socket in a thread."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.loop: asyncio.AbstractEventLoop | None = None
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/mcp"
        app = http_app(service, token=TOKEN)

        async def asgi(scope, receive, send) -> None:
            self.loop = asyncio.get_running_loop()
            await app(scope, receive, send)

        self.server = uvicorn.Server(uvicorn.Config(asgi, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> _Uvicorn:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)  # polling a readiness flag with a deadline
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.loop is not None:  # end the kernel in the loop that started it
            asyncio.run_coroutine_threadsafe(self.service.close(), self.loop).result(10)
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


@pytest.fixture
def http_server(desktop) -> Iterator[_Uvicorn]:
    with _Uvicorn(open_service(env=desktop.env)) as server:
        yield server


def test_http_server_on_loopback_runs_a_cell_against_the_real_app(launch, http_server):
    app = launch.gtk_fixture()
    app.events.wait_for("ready")

    async def go() -> types.CallToolResult:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http,
            Client(streamable_http_client(http_server.url, http_client=http)) as client,
        ):
            return await client.call_tool("js", {"code": APPLY_CELL.format(pid=app.pid)})

    result = anyio.run(go)
    assert not result.is_error, _texts(result)
    app.events.wait_for("clicked", name="Apply")


def test_serve_virtual_launches_an_app_and_serves_it(tmp_path, display):
    """`deskhand serve --virtual --launch mousepad` (with ``--wayland``: a private headless sway): a
    private desktop with the app, served over stdio."""
    if shutil.which("mousepad") is None:
        pytest.skip("mousepad is not installed")
    env = {**os.environ, "GSETTINGS_BACKEND": "memory", "XDG_CONFIG_HOME": str(tmp_path)}
    wayland = ["--wayland"] if display == "sway" else []
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "deskhand", "serve", "--virtual", *wayland, "--launch", "mousepad"], env=env
    )
    cell = 'let app = await cua.getApp("Mousepad"); await app.typeText("served ✓"); await app.getAXState();'

    async def go() -> types.CallToolResult:
        async with Client(params) as client:
            return await client.call_tool("js", {"code": cell})

    result = anyio.run(go)
    assert not result.is_error, _texts(result)
    assert "Value: served ✓" in _texts(result)
