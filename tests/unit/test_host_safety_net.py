"""The host's safety net: a bug anywhere in a call becomes a logged error result, never an exception."""

from __future__ import annotations

import logging

import anyio
import pytest

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core.counters import CallCounters
from deskhand.host import AppPolicy, Host, ToolResult, tools
from deskhand.host import validate as v


def make() -> tuple[Host, FakeExecutor]:
    fake = FakeExecutor([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)])
    return Host(fake, policy=AppPolicy()), fake


def call(host: Host, name: str, args: dict[str, object], counters: CallCounters | None = None) -> ToolResult:
    async def go() -> ToolResult:
        return await host.call_tool(name, args, counters=counters)

    return anyio.run(go)


def logged(caplog: pytest.LogCaptureFixture, exc_type: type[BaseException]) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name == "deskhand.host.host" and r.exc_info is not None and r.exc_info[0] is exc_type
    ]


@pytest.mark.parametrize(
    ("method", "tool", "args"),
    [
        ("type_text", "type_text", {"app": "Mousepad", "text": "x"}),
        ("get_app_state", "get_app_state", {"app": "Mousepad"}),
        ("list_apps", "list_apps", {}),
        ("resolve", "click", {"app": "Mousepad", "x": 1, "y": 1}),
    ],
)
def test_an_executor_bug_is_a_result_unknown_error(
    caplog: pytest.LogCaptureFixture, method: str, tool: str, args: dict[str, object]
) -> None:
    host, fake = make()
    fake.fail(method, RuntimeError("the socket closed"))
    cell = CallCounters()
    with caplog.at_level(logging.ERROR):
        result = call(host, tool, args, cell)
    assert result.is_error
    assert not result.not_dispatched  # the executor was called: its effect is unknown
    assert result.text == "the socket closed"
    assert result.native_error is not None
    assert result.native_error.to_json() == {"name": "Error", "message": "the socket closed"}
    assert cell.result_unknown
    records = logged(caplog, RuntimeError)
    assert len(records) == 1
    assert records[0].levelno == logging.ERROR
    assert f"calling {tool}" in records[0].getMessage()


def test_a_validator_bug_is_refused_before_dispatch(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(name: str, args: object, **_: object) -> v.Request:
        raise KeyError("properties")

    monkeypatch.setattr(tools, "parse_request", broken)
    host, fake = make()
    cell = CallCounters()
    with caplog.at_level(logging.ERROR):
        result = call(host, "click", {"app": "Mousepad", "x": 1, "y": 1}, cell)
    assert result.is_error and result.not_dispatched
    assert fake.calls == []
    assert (cell.started, cell.rejected_before_dispatch, cell.result_unknown) == (1, 1, False)
    records = logged(caplog, KeyError)
    assert len(records) == 1 and "validating click" in records[0].getMessage()


def test_a_policy_bug_after_resolution_is_result_unknown(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    host, _ = make()

    def broken(_app: object) -> None:
        raise AttributeError("identity")

    monkeypatch.setattr(host, "policy", type("P", (), {"check": staticmethod(broken)})())
    with caplog.at_level(logging.ERROR):
        result = call(host, "click", {"app": "Mousepad", "x": 1, "y": 1})
    assert result.is_error and not result.not_dispatched
    assert len(logged(caplog, AttributeError)) == 1


def test_a_bug_while_pinning_is_a_refusal_of_the_whole_batch(caplog: pytest.LogCaptureFixture) -> None:
    host, fake = make()
    fake.fail("resolve", RuntimeError("the bus went away"))

    async def main() -> tuple[ToolResult | None, ToolResult]:
        async with host.pinned("Mousepad") as pin:
            return pin.refusal, await pin.call_tool("type_text", {"app": "Mousepad", "text": "x"})

    with caplog.at_level(logging.ERROR):
        refusal, late = anyio.run(main)
    assert refusal is not None and refusal.is_error and refusal.text == "the bus went away"
    assert late.is_error and late.not_dispatched
    assert fake.methods() == ["resolve"]
    assert len(logged(caplog, RuntimeError)) == 1
