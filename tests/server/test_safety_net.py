"""Service.call never lets an exception escape a tool: it logs the traceback and returns an error result."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import mcp_types as types
import pytest
from mcp import Client

from deskhand.backends.fake import FakeExecutor
from deskhand.host import Host, ToolResult, tools
from deskhand.server import service as service_module
from deskhand.server.service import Service

pytestmark = pytest.mark.anyio

Connect = Callable[[Service], AbstractAsyncContextManager[Client]]
STEPS: list[dict[str, object]] = [{"tool": "type_text", "text": "a"}, {"tool": "press_key", "key": "Return"}]


def _errors(caplog: pytest.LogCaptureFixture, exc_type: type[BaseException]) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.exc_info is not None and r.exc_info[0] is exc_type]


async def test_an_executor_runtime_error_reaches_the_client_as_an_error(
    connect: Connect, service: Service, executor: FakeExecutor, caplog: pytest.LogCaptureFixture
) -> None:
    executor.fail("type_text", RuntimeError("the X connection broke"))
    with caplog.at_level(logging.ERROR):
        async with connect(service) as client:
            result = await client.call_tool("type_text", {"app": "Mousepad", "text": "x"})
            after = await client.call_tool("type_text", {"app": "Mousepad", "text": "y"})
    assert result.is_error
    assert [b.text for b in result.content if isinstance(b, types.TextContent)] == ["the X connection broke"]
    assert not after.is_error  # the server kept serving
    assert executor.methods() == ["resolve", "type_text", "resolve", "type_text"]  # never replayed
    assert len(_errors(caplog, RuntimeError)) == 1


async def test_a_sequence_parser_bug_is_refused_before_dispatch(
    service: Service, executor: FakeExecutor, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise IndexError("steps")

    monkeypatch.setattr(service_module, "parse_sequence", broken)
    with caplog.at_level(logging.ERROR):
        result = await service.call("sequence", {"app": "Mousepad", "steps": STEPS})
    assert result.is_error and result.not_dispatched
    assert executor.calls == []
    assert len(_errors(caplog, IndexError)) == 1


async def test_a_host_validator_bug_inside_sequence_is_refused_before_dispatch(
    service: Service,
    executor: FakeExecutor,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(name: str, args: object, **_: object) -> None:
        raise KeyError(name)

    monkeypatch.setattr(tools, "parse_request", broken)
    with caplog.at_level(logging.ERROR):
        result = await service.call("sequence", {"app": "Mousepad", "steps": STEPS})
    assert result.is_error and result.not_dispatched
    assert executor.calls == []
    assert len(_errors(caplog, KeyError)) == 1


async def test_a_bug_while_a_sequence_runs_is_result_unknown(
    service: Service, executor: FakeExecutor, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*_: object, **__: object) -> None:
        raise ZeroDivisionError("elapsed")

    monkeypatch.setattr(service_module, "run_sequence", broken)
    with caplog.at_level(logging.ERROR):
        result = await service.call("sequence", {"app": "Mousepad", "steps": STEPS})
    assert result.is_error and not result.not_dispatched
    assert executor.methods() == ["resolve"]
    records = _errors(caplog, ZeroDivisionError)
    assert len(records) == 1 and records[0].name == "deskhand.host.host"


async def test_a_kernel_bug_is_result_unknown(host: Host, caplog: pytest.LogCaptureFixture) -> None:
    class BrokenKernel:
        def __init__(self, _host: object) -> None: ...

        async def run(self, code: str, *, timeout_ms: int) -> ToolResult:
            raise RuntimeError("the worker pipe closed")

        async def reset(self) -> None: ...

        async def close(self) -> None: ...

    service = Service(host, BrokenKernel)
    with caplog.at_level(logging.ERROR):
        result = await service.call("js", {"code": "1"})
    assert result.is_error and not result.not_dispatched
    assert result.text == "the worker pipe closed"
    assert len(_errors(caplog, RuntimeError)) == 1
