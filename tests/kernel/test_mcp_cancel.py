"""MCP cancellation of a `js` call (issue 14 item 1), with the official `mcp` SDK client.

A client that gives up on a `js` call (its cancel scope: the SDK sends
``notifications/cancelled``) ends the cell: the worker is killed, an in-flight native call is
drained, the cancelled request gets no answer (the SDK's rule), and the next cell runs at once
on fresh bindings. Over stdio against `deskhand serve` (fake backend) and in memory against the
real kernel over the fake executor, whose gate holds a native call in flight.
"""

from __future__ import annotations

import os
import sys

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.host import AppPolicy, Host
from deskhand.kernel.session import CANCELLED_EARLIER
from deskhand.runtime import JsKernel
from deskhand.server.mcp import build_server
from deskhand.server.service import Service
from proc_support import alive, children, cpu_s

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

BUSY = "globalThis.mark = 1; let spin = 0; while (true) { spin++ }"


def _texts(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def _until(predicate, timeout_s: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    with anyio.fail_after(timeout_s):
        while not predicate():
            await anyio.sleep(0.02)  # polling an outside observation with a deadline


async def _spinning_worker(server_pid: int) -> int:
    """The worker of ``server_pid`` that is burning CPU (the busy cell is running in it)."""
    busy: list[int] = []

    def spinning() -> bool:
        busy[:] = [w for w in children(server_pid, b"worker.py") if cpu_s(w) > 0.3]
        return bool(busy)

    await _until(spinning)
    return busy[0]


def test_stdio_cancel_of_a_busy_cell_lets_the_next_cell_run_at_once(tmp_path):
    env = {**os.environ, "DESKHAND_BACKEND": "fake", "DESKHAND_DESKTOPS_DIR": str(tmp_path)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "deskhand", "serve"], env=env)
    stderr_path = tmp_path / "serve.stderr"

    async def go() -> tuple[types.CallToolResult, types.CallToolResult, bool]:
        with stderr_path.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                set_x = await client.call_tool("js", {"code": "var kept = 41"})
                assert not set_x.is_error, _texts(set_x)
                server_pid = children(os.getpid(), b"deskhand\x00serve")[0]
                cancelled = anyio.CancelScope()

                async def busy() -> None:
                    with cancelled:
                        await client.call_tool("js", {"code": BUSY, "timeout_ms": 30000})
                    assert cancelled.cancelled_caught  # the cancelled request was never answered

                async with anyio.create_task_group() as tg:
                    tg.start_soon(busy)
                    worker = await _spinning_worker(server_pid)
                    cancelled.cancel()
                after = await client.call_tool("js", {"code": "nodeRepl.write(String(6 * 7))", "timeout_ms": 30000})
                bindings = await client.call_tool("js", {"code": "nodeRepl.write(typeof kept)"})
                return after, bindings, not alive(worker)

    after, bindings, worker_gone = anyio.run(go)
    assert not after.is_error, _texts(after)  # not "already running": the session is not wedged
    assert _texts(after) == f"{CANCELLED_EARLIER}\n42"  # the cancellation text reaches the agent once
    assert _texts(bindings) == "undefined"  # the cancellation reset the bindings
    assert worker_gone  # the busy worker was killed, not left spinning
    stderr = stderr_path.read_text()
    assert "InvalidStateError" not in stderr and "already running" not in stderr


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _service(executor: FakeExecutor) -> Service:
    host = Host(executor, policy=AppPolicy())
    return Service(host, JsKernel)


@pytest.mark.anyio
async def test_cancel_during_a_native_call_drains_it_and_the_next_cell_runs_after_it():
    executor = FakeExecutor([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)])
    service = _service(executor)
    gate = executor.block("type_text")
    try:
        async with Client(build_server(service)) as client:
            cancelled = anyio.CancelScope()
            code = 'let app = await cua.getApp("Mousepad"); await app.typeText("one"); await app.typeText("two")'
            next_result: list[types.CallToolResult] = []

            async def slow() -> None:
                with cancelled:
                    await client.call_tool("js", {"code": code, "timeout_ms": 30000})

            async def following() -> None:
                next_result.append(await client.call_tool("js", {"code": "nodeRepl.write(typeof app)"}))

            async with anyio.create_task_group() as tg:
                tg.start_soon(slow)
                await _until(gate.entered.is_set)  # the first typeText is in flight, held by the gate
                cancelled.cancel()
                tg.start_soon(following)
                # the following cell reaches the session queue and waits there for the drain
                await _until(lambda: service.host.queue_waiting() == 1)
                assert not next_result
                gate.release()
            assert cancelled.cancelled_caught
        (result,) = next_result
        assert not result.is_error, _texts(result)
        assert (
            _texts(result) == f"{CANCELLED_EARLIER}\nundefined"
        )  # a fresh worker: the cancelled cell's bindings are gone
        typed = [c.args for c in executor.calls if c.method == "type_text"]
        assert len(typed) == 1  # the in-flight call finished once; the queued second one never started
    finally:
        gate.release()
        await service.close()


@pytest.mark.anyio
async def test_js_reset_interrupts_a_busy_cell_and_kills_its_worker():
    service = _service(FakeExecutor([]))
    try:
        async with Client(build_server(service)) as client:
            results: dict[str, types.CallToolResult] = {}

            async def busy() -> None:
                results["busy"] = await client.call_tool("js", {"code": BUSY, "timeout_ms": 30000})

            async with anyio.create_task_group() as tg:
                tg.start_soon(busy)
                worker = await _spinning_worker(os.getpid())
                results["reset"] = await client.call_tool("js_reset", {})
                assert not alive(worker)  # killed by the time js_reset answers
        assert "reset" in _texts(results["busy"]) and results["busy"].is_error
    finally:
        await service.close()
