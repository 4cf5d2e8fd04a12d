"""`sequence` end to end over MCP and the fake executor (native-contract.md 1.5).

Completed, stopped at the 60 s deadline (reached with a fake clock that each native step advances,
never by waiting) and failed mid-way, with the contract's texts and structured fields, and the
exact native calls the executor saw.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from deskhand.backends.fake import FAKE_JPEG, FakeApp, FakeExecutor
from deskhand.core.errors import NativeError
from deskhand.host import AppPolicy, Host
from deskhand.server.service import Service

pytestmark = pytest.mark.anyio

Connect = Callable[[Service], AbstractAsyncContextManager[Client]]

HEAD = "Sequence completed {n} steps. The following is the actual final app state."
STEPS: list[dict[str, object]] = [
    {"tool": "type_text", "text": "hello"},
    {"tool": "press_key", "key": "ctrl+a"},
    {"tool": "click", "x": 10, "y": 20},
    {"tool": "scroll", "direction": "d", "element_index": "g1:4", "amount": 2},
    {"tool": "paste", "text": "# title", "format": "md"},
]
MUTATING = {"click", "perform_secondary_action", "set_value", "select_text", "scroll", "drag"}
MUTATING |= {"press_key", "type_text", "paste"}


class ClockedExecutor(FakeExecutor):
    """A fake executor whose mutating calls each take ``step_s`` seconds of a fake monotonic clock."""

    def __init__(self, apps: list[FakeApp], step_s: float) -> None:
        super().__init__(apps)
        self.now = 1000.0
        self.step_s = step_s

    def clock(self) -> float:
        return self.now

    def _record(self, method: str, **args: object) -> None:
        try:
            super()._record(method, **args)
        finally:
            if method in MUTATING:
                self.now += self.step_s


class RestartingExecutor(FakeExecutor):
    """A fake executor whose app restarts (new pid and start time, same selector) once
    ``after_step`` steps completed, just before the next step reaches it."""

    def __init__(self, apps: list[FakeApp], *, after_step: int) -> None:
        super().__init__(apps)
        self.after_step = after_step
        self.steps = 0

    def _record(self, method: str, **args: object) -> None:
        if method in MUTATING:
            if self.steps == self.after_step:
                self.restart(str(args["app"]))
            self.steps += 1
        super()._record(method, **args)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def _mutations(executor: FakeExecutor) -> list[str]:
    return [m for m in executor.methods() if m in MUTATING]


async def test_completed_sequence_observes_once_at_the_end(
    connect: Connect, service: Service, executor: FakeExecutor
) -> None:
    async with connect(service) as client:
        result = await client.call_tool("sequence", {"app": "Mousepad", "steps": STEPS})
    assert not result.is_error, _text(result)
    assert _mutations(executor) == ["type_text", "press_key", "click", "scroll", "paste"]
    assert executor.methods().count("get_app_state") == 1
    assert executor.methods()[-1] == "get_app_state"
    assert executor.calls[-1].args["disable_diff"] is False
    scroll = next(c for c in executor.calls if c.method == "scroll")
    assert (scroll.args["direction"], scroll.args["pages"], scroll.args["element"]) == ("down", 2.0, "g1:4")
    head, envelope, image = result.content
    assert isinstance(head, types.TextContent)
    assert head.text == HEAD.format(n=5)
    assert isinstance(envelope, types.TextContent)
    assert "<app_state>" in envelope.text
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/jpeg"
    assert base64.b64decode(image.data) == FAKE_JPEG
    fields = result.structured_content
    assert fields is not None
    assert fields["status"] == "completed"
    assert (fields["completedSteps"], fields["totalSteps"]) == (5, 5)
    assert len(fields["stepDurationsMs"]) == 5
    assert fields["resultUnknown"] is False
    assert fields["observationSkipped"] is False
    assert fields["observationDelivered"] is True


@pytest.mark.parametrize(
    ("step_s", "completed"),
    [
        (25.0, 3),  # 25, 50, 75: the third step started before 60 s and finished
        (20.0, 3),  # 20, 40, 60: elapsed >= 60000 ms stops
        (19.9, 4),  # 59.7 after three steps is still inside the budget
        (61.0, 1),  # the in-flight step always finishes, even past the deadline
    ],
)
async def test_sequence_stops_at_its_60_s_deadline(connect: Connect, step_s: float, completed: int) -> None:
    executor = ClockedExecutor([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)], step_s)
    service = Service(Host(executor, policy=AppPolicy()), None, clock=executor.clock)
    async with connect(service) as client:
        result = await client.call_tool("sequence", {"app": "Mousepad", "steps": STEPS})
    assert result.is_error
    assert _text(result) == (
        f"Sequence deadline_exceeded; stopped after {completed} completed steps. "
        "No further actions dispatched. Observe the app before continuing."
    )
    assert len(_mutations(executor)) == completed
    assert "get_app_state" not in executor.methods()
    fields = result.structured_content
    assert fields is not None
    assert fields["status"] == "deadline_exceeded"
    assert (fields["completedSteps"], fields["totalSteps"]) == (completed, 5)
    assert fields["stepDurationsMs"] == [round(step_s * 1000)] * completed
    assert fields["elapsedMs"] == round(step_s * completed * 1000)
    assert fields["resultUnknown"] is False
    assert fields["observationSkipped"] is True
    assert fields["observationDelivered"] is False


async def test_a_sequence_inside_its_budget_is_not_stopped(connect: Connect) -> None:
    executor = ClockedExecutor([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)], 11.9)
    service = Service(Host(executor, policy=AppPolicy()), None, clock=executor.clock)
    async with connect(service) as client:
        result = await client.call_tool("sequence", {"app": "Mousepad", "steps": STEPS})
    assert not result.is_error, _text(result)
    assert result.structured_content is not None
    assert result.structured_content["status"] == "completed"
    assert result.structured_content["elapsedMs"] == round(11.9 * 5 * 1000)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (NativeError("ax_failed", "The key could not be delivered."), "The key could not be delivered"),
        (RuntimeError("the X connection broke"), "the X connection broke"),
    ],
)
async def test_sequence_failing_mid_way(
    connect: Connect, service: Service, executor: FakeExecutor, error: Exception, message: str
) -> None:
    executor.fail("press_key", error)
    async with connect(service) as client:
        result = await client.call_tool("sequence", {"app": "Mousepad", "steps": STEPS})
    assert result.is_error
    assert _text(result) == (
        f"Sequence step 1 failed: {message}. Inspect the app before retrying; completed steps were not rolled back."
    )
    # Step 1 was dispatched and failed; nothing after it ran, and nothing was observed or retried.
    assert _mutations(executor) == ["type_text", "press_key"]
    assert "get_app_state" not in executor.methods()
    fields = result.structured_content
    assert fields is not None
    assert fields["status"] == "failed"
    assert fields["failedStepIndex"] == 1
    assert fields["resultUnknown"] is True
    assert fields["observationSkipped"] is True
    assert fields["observationDelivered"] is False
    assert (fields["completedSteps"], fields["totalSteps"]) == (1, 5)
    assert len(fields["stepDurationsMs"]) == 1


@pytest.mark.parametrize(
    ("steps", "text"),
    [
        ([], "sequence requires an app and 1 to 256 steps."),
        ([{"tool": "type_text", "text": "x"}] * 257, "sequence requires an app and 1 to 256 steps."),
        (
            [{"tool": "type_text", "text": "x"}, {"tool": "click", "x": 1}],
            "sequence step 1: click x and y must be provided together",
        ),
        (
            [{"tool": "type_text", "text": "x", "app": "XTerm"}],
            "sequence step 0: unknown argument or per-step app override",
        ),
        ([{"tool": "get_app_state"}], "sequence step 0: tool must be one of"),
        ([{"tool": "press_key", "key": " ".join(["a"] * 129)}], "sequence exceeds its keyboard chord budget"),
        ([{"tool": "press_key", "key": " ".join(["Tab"] * 128)}] * 17, "sequence exceeds its keyboard chord budget"),
        (
            [{"tool": "type_text", "text": "x"}, {"tool": "press_key", "key": "ctrl+alt+Delete"}],
            "sequence step 1: press_key 'ctrl+alt+Delete' is a system key combination.",
        ),
    ],
)
async def test_malformed_sequence_dispatches_nothing(
    connect: Connect, service: Service, executor: FakeExecutor, steps: list[Any], text: str
) -> None:
    async with connect(service) as client:
        result = await client.call_tool("sequence", {"app": "Mousepad", "steps": steps})
    assert result.is_error
    assert _text(result).startswith(text)
    assert executor.calls == []


async def test_a_full_chord_budget_is_accepted(service: Service, executor: FakeExecutor) -> None:
    steps = [{"tool": "press_key", "key": " ".join(["Tab"] * 128)}] * 16
    result = await service.call("sequence", {"app": "Mousepad", "steps": steps})
    assert not result.is_error, result.text
    assert _mutations(executor) == ["press_key"] * 16


async def test_sequence_on_a_denied_app_is_refused_before_dispatch(
    service: Service, executor: FakeExecutor, host: Host
) -> None:
    result = await service.call("sequence", {"app": "XTerm", "steps": STEPS})
    assert result.is_error
    assert result.not_dispatched
    assert result.text == "Computer Use is not allowed to use the app 'XTerm' for safety reasons."
    assert executor.methods() == ["resolve"]
    assert host.counters.rejected_before_dispatch == 1
    assert not host.counters.result_unknown


async def test_missing_screenshot_is_observation_failed(connect: Connect) -> None:
    executor = FakeExecutor([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242, image=None)])
    async with connect(Service(Host(executor, policy=AppPolicy()), None)) as client:
        result = await client.call_tool("sequence", {"app": "Mousepad", "steps": STEPS[:2]})
    assert result.is_error
    assert _text(result).startswith("All 2 sequence steps completed, but the final observation has no screenshot.")
    assert [b.type for b in result.content] == ["text", "text"]
    fields = result.structured_content
    assert fields is not None
    assert (fields["status"], fields["error_kind"]) == ("observation_failed", "capture_failed")
    assert fields["resultUnknown"] is False
    assert fields["observationDelivered"] is False


async def test_failed_observation_says_the_steps_completed(service: Service, executor: FakeExecutor) -> None:
    executor.fail("get_app_state", NativeError("capture_failed", "The window could not be captured."))
    result = await service.call("sequence", {"app": "Mousepad", "steps": STEPS[:2]})
    assert result.is_error
    assert result.text == (
        "All 2 sequence steps completed, but final observation failed: The window could not be captured."
    )
    assert result.structured["status"] == "observation_failed"
    assert result.structured["resultUnknown"] is False
    assert (result.structured["completedSteps"], result.structured["totalSteps"]) == (2, 2)


@pytest.mark.parametrize("after_step", [1, 3])
async def test_a_restart_mid_batch_fails_the_next_step_with_stale_process(connect: Connect, after_step: int) -> None:
    executor = RestartingExecutor([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)], after_step=after_step)
    async with connect(Service(Host(executor, policy=AppPolicy()), None)) as client:
        result = await client.call_tool("sequence", {"app": "Mousepad", "steps": STEPS})
    assert result.is_error
    assert _text(result) == (
        f"Sequence step {after_step} failed: The target application changed process identity before the action. "
        "Inspect the app before retrying; completed steps were not rolled back."
    )
    # One resolve for the batch; the step after the restart reached the executor and was refused
    # there; no later step ran and nothing was observed (the new process was never acted on).
    assert executor.methods().count("resolve") == 1
    assert len(_mutations(executor)) == after_step + 1
    assert "get_app_state" not in executor.methods()
    fields = result.structured_content
    assert fields is not None
    assert (fields["status"], fields["failedStepIndex"]) == ("failed", after_step)
    assert (fields["completedSteps"], fields["totalSteps"]) == (after_step, 5)
    assert fields["resultUnknown"] is True


async def test_every_step_goes_to_the_process_resolved_once(service: Service, executor: FakeExecutor) -> None:
    result = await service.call("sequence", {"app": "Mousepad", "steps": STEPS})
    assert not result.is_error, result.text
    assert executor.methods() == ["resolve", "type_text", "press_key", "click", "scroll", "paste", "get_app_state"]
