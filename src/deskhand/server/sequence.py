"""`sequence`: the JSON batch of 1-256 mutating steps for one app (native-contract.md section 1.5).

Every step is parsed before anything runs; then the gates run once (the caller pins the app's
process, :meth:`deskhand.host.Host.pinned`) and the steps run serially against that process with a
cooperative 60 s deadline checked before and after each step (an in-flight step always finishes),
no retries, and one observation at the end.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from deskhand.core.errors import ArgumentError, DeskhandError
from deskhand.core.keys import SEQUENCE_BUDGET_MESSAGE, check_sequence_budget, parse_keys
from deskhand.host.result import ImageBlock, TextBlock, ToolResult
from deskhand.host.tools import MUTATING_TOOLS, TOOLS

MAX_STEPS: Final = 256
DEADLINE_S: Final = 60.0

BAD_SHAPE: Final = "sequence requires an app and 1 to 256 steps."
CHORD_BUDGET: Final = SEQUENCE_BUDGET_MESSAGE

CallTool = Callable[[str, dict[str, object]], Awaitable[ToolResult]]
Validate = Callable[[str, dict[str, object]], None]


class SequenceArgumentError(ValueError):
    """The batch is malformed; nothing was dispatched."""


@dataclass(frozen=True, slots=True)
class Step:
    tool: str
    args: dict[str, object]


def step_schema(tool: str, schema: Mapping[str, object]) -> dict[str, object]:
    """One `anyOf` variant of the steps array: the tool's schema without `app`, plus `tool`."""
    props = dict(schema.get("properties", {}))  # type: ignore[call-overload]
    props.pop("app", None)
    required = [r for r in schema.get("required", []) if r != "app"]  # type: ignore[attr-defined]
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {"tool": {"const": tool}, **props},
        "required": ["tool", *required],
    }


def sequence_schema(tool_schemas: Mapping[str, Mapping[str, object]]) -> dict[str, object]:
    """The sequence tool's input schema: anyOf only inside `items`, never at the root."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["app", "steps"],
        "properties": {
            "app": {"type": "string", "description": "The app to act on, for every step."},
            "steps": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_STEPS,
                "items": {"anyOf": [step_schema(t, tool_schemas[t]) for t in MUTATING_TOOLS]},
            },
        },
    }


def parse_sequence(
    args: object, tool_schemas: Mapping[str, Mapping[str, object]], validate: Validate
) -> tuple[str, list[Step]]:
    """Check the whole batch before anything runs; ``validate`` is the host's static parse."""
    if not isinstance(args, dict) or not set(args) <= {"app", "steps"}:
        raise SequenceArgumentError(BAD_SHAPE)
    app, steps = args.get("app"), args.get("steps")
    if not isinstance(app, str) or not app.strip() or not isinstance(steps, list):
        raise SequenceArgumentError(BAD_SHAPE)
    if not 1 <= len(steps) <= MAX_STEPS:
        raise SequenceArgumentError(BAD_SHAPE)
    parsed: list[Step] = []
    chord_counts: list[int] = []
    for i, raw in enumerate(steps):
        override = f"sequence step {i}: unknown argument or per-step app override"
        if not isinstance(raw, dict) or raw.get("tool") not in MUTATING_TOOLS:
            msg = f"sequence step {i}: tool must be one of {', '.join(MUTATING_TOOLS)}"
            raise SequenceArgumentError(msg)
        tool = str(raw["tool"])
        allowed = set(tool_schemas[tool].get("properties", {})) - {"app"}  # type: ignore[call-overload]
        allowed |= TOOLS[tool].extra_keys
        step_args = {k: v for k, v in raw.items() if k != "tool"}
        if not set(step_args) <= allowed:
            raise SequenceArgumentError(override)
        if tool == "press_key" and isinstance(step_args.get("key"), str):
            _count_chords(str(step_args["key"]), chord_counts)
        full = {"app": app, **step_args}
        try:
            validate(tool, full)
        except DeskhandError as err:  # the typed pre-dispatch errors; a bug propagates to the safety net
            msg = f"sequence step {i}: {err}"
            raise SequenceArgumentError(msg) from err
        parsed.append(Step(tool, full))
    return app, parsed


def _count_chords(key: str, chord_counts: list[int]) -> None:
    """Add one press_key step's chords to the batch's budget (1.5), counted by the key grammar."""
    try:
        chord_counts.append(len(parse_keys(key)))
    except DeskhandError:
        return  # an unparsable key is this step's own error, reported by the static parse
    try:
        check_sequence_budget(chord_counts)
    except ArgumentError as err:
        raise SequenceArgumentError(CHORD_BUDGET) from err


@dataclass(slots=True)
class _Run:
    total: int
    started: float
    durations_ms: list[int] = field(default_factory=list)

    def fields(self, clock: Callable[[], float], **extra: object) -> dict[str, object]:
        return {
            "completedSteps": len(self.durations_ms),
            "totalSteps": self.total,
            "elapsedMs": round((clock() - self.started) * 1000),
            "stepDurationsMs": list(self.durations_ms),
            **extra,
        }


async def run_sequence(
    app: str,
    steps: list[Step],
    call_tool: CallTool,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    clock: Callable[[], float] = time.monotonic,
    deadline_s: float = DEADLINE_S,
) -> ToolResult:
    """Run parsed steps serially; never retry; observe once when every step completed.

    ``call_tool`` is the pinned process's (the gates already passed), so any error of a step,
    including ``stale_process`` after a restart, fails the batch there.
    """
    run = _Run(len(steps), clock())

    def stop_status() -> str | None:
        if cancelled():
            return "cancelled"
        if clock() - run.started >= deadline_s:
            return "deadline_exceeded"
        return None

    for i, step in enumerate(steps):
        status = stop_status()
        if status is None:
            began = clock()
            try:
                result = await call_tool(step.tool, step.args)
            except Exception as err:
                return _failed(run, clock, i, str(err))
            if result.is_error:
                return _failed(run, clock, i, result.text or "the step returned an error")
            run.durations_ms.append(round((clock() - began) * 1000))
            status = stop_status() if i + 1 < len(steps) else None
        if status is not None:
            text = (
                f"Sequence {status}; stopped after {len(run.durations_ms)} completed steps. "
                "No further actions dispatched. Observe the app before continuing."
            )
            fields = run.fields(
                clock, status=status, resultUnknown=False, observationSkipped=True, observationDelivered=False
            )
            return ToolResult((TextBlock(text),), is_error=True, structured=fields)
    return await _observe(app, run, call_tool, clock)


def _failed(run: _Run, clock: Callable[[], float], index: int, message: str) -> ToolResult:
    text = (
        f"Sequence step {index} failed: {message.rstrip('.')}. "
        "Inspect the app before retrying; completed steps were not rolled back."
    )
    fields = run.fields(
        clock,
        status="failed",
        failedStepIndex=index,
        resultUnknown=True,
        observationSkipped=True,
        observationDelivered=False,
    )
    return ToolResult((TextBlock(text),), is_error=True, structured=fields)


async def _observe(app: str, run: _Run, call_tool: CallTool, clock: Callable[[], float]) -> ToolResult:
    n = len(run.durations_ms)
    try:
        state = await call_tool("get_app_state", {"app": app})
    except Exception as err:
        return _observation_failed(run, clock, f"All {n} sequence steps completed, but final observation failed: {err}")
    if state.is_error:
        return _observation_failed(
            run, clock, f"All {n} sequence steps completed, but final observation failed: {state.text}"
        )
    if not any(isinstance(b, ImageBlock) for b in state.content):
        fields = run.fields(
            clock,
            status="observation_failed",
            error_kind="capture_failed",
            resultUnknown=False,
            observationSkipped=False,
            observationDelivered=False,
        )
        text = f"All {n} sequence steps completed, but the final observation has no screenshot."
        return ToolResult((TextBlock(text), *state.content), is_error=True, structured=fields)
    fields = run.fields(
        clock, status="completed", resultUnknown=False, observationSkipped=False, observationDelivered=True
    )
    head = TextBlock(f"Sequence completed {n} steps. The following is the actual final app state.")
    return ToolResult((head, *state.content), structured=fields)


def _observation_failed(run: _Run, clock: Callable[[], float], text: str) -> ToolResult:
    fields = run.fields(
        clock, status="observation_failed", resultUnknown=False, observationSkipped=False, observationDelivered=False
    )
    return ToolResult((TextBlock(text),), is_error=True, structured=fields)
