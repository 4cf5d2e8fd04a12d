"""The sequence batch: static checks, stop at the deadline, failure mid-way, final observation."""

from __future__ import annotations

import asyncio

import pytest

from deskhand.core.errors import ArgumentError
from deskhand.host.result import ImageBlock, TextBlock, ToolResult
from deskhand.server.sequence import (
    CHORD_BUDGET,
    SequenceArgumentError,
    parse_sequence,
    run_sequence,
    sequence_schema,
)

SCHEMAS: dict[str, dict[str, object]] = {
    tool: {"type": "object", "properties": {"app": {}, **{k: {} for k in keys}}, "required": ["app", *req]}
    for tool, keys, req in [
        ("click", ["element_index", "x", "y", "click_count", "mouse_button"], []),
        ("perform_secondary_action", ["element_index", "action"], ["element_index", "action"]),
        ("set_value", ["element_index", "value"], ["element_index", "value"]),
        ("select_text", ["element_index", "text", "prefix", "suffix", "selection", "selection_type"], ["text"]),
        ("scroll", ["element_index", "x", "y", "direction", "pages"], ["direction"]),
        ("drag", ["from_x", "from_y", "to_x", "to_y", "from", "to", "mouse_button"], []),
        ("press_key", ["key"], ["key"]),
        ("type_text", ["text"], ["text"]),
        ("paste", ["text", "format"], ["text", "format"]),
    ]
}


def _accept(tool: str, args: dict[str, object]) -> None:
    if tool == "click" and ("x" in args) != ("y" in args):
        raise ArgumentError("click x and y must be provided together")


class Recorder:
    def __init__(self, fail_at: int | None = None, image: bool = True) -> None:
        self.calls: list[tuple[str, dict[str, object]]] = []
        self.fail_at = fail_at
        self.image = image

    async def __call__(self, name: str, args: dict[str, object]) -> ToolResult:
        self.calls.append((name, args))
        if name == "get_app_state":
            blocks: tuple[TextBlock | ImageBlock, ...] = (TextBlock("<app_state>\nApp=x\n</app_state>"),)
            if self.image:
                blocks += (ImageBlock(b"\xff\xd8\xff", "image/jpeg"),)
            return ToolResult(blocks)
        if self.fail_at is not None and len(self.calls) - 1 == self.fail_at:
            return ToolResult((TextBlock("boom"),), is_error=True)
        return ToolResult((TextBlock("Action completed."),))


def test_schema_has_no_root_anyof() -> None:
    schema = sequence_schema(SCHEMAS)
    assert "anyOf" not in schema
    items = schema["properties"]["steps"]["items"]  # type: ignore[index]
    assert len(items["anyOf"]) == 9
    assert schema["properties"]["steps"]["maxItems"] == 256  # type: ignore[index]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"app": "A", "steps": []}, "sequence requires an app and 1 to 256 steps."),
        ({"app": "A", "steps": [{"tool": "type_text", "text": "x"}] * 257}, "sequence requires an app"),
        ({"app": "A", "steps": [{"tool": "type_text", "text": "x", "app": "B"}]}, "per-step app override"),
        ({"app": "A", "steps": [{"tool": "list_apps"}]}, "sequence step 0: tool must be"),
        ({"app": "A", "steps": [{"tool": "click", "x": 1}]}, "click x and y must be provided together"),
        ({"app": "A", "steps": [{"tool": "press_key", "key": " ".join(["a"] * 129)}]}, CHORD_BUDGET),
        ({"app": "A", "steps": [{"tool": "press_key", "key": " ".join(["a"] * 128)}] * 17}, CHORD_BUDGET),
        ({"app": "A", "steps": [{"tool": "drag"}], "extra": 1}, "sequence requires an app"),
    ],
)
def test_static_checks_before_anything_runs(args: dict[str, object], message: str) -> None:
    with pytest.raises(SequenceArgumentError, match=message):
        parse_sequence(args, SCHEMAS, _accept)


def test_chord_budget_counts_chords_as_the_key_grammar_does() -> None:
    """ "ctrl + a" is one chord (the grammar folds spaces around +), not three whitespace tokens."""
    spaced = {"tool": "press_key", "key": " ".join(["ctrl + a"] * 128)}
    _, steps = parse_sequence({"app": "A", "steps": [spaced]}, SCHEMAS, _accept)
    assert len(steps) == 1
    with pytest.raises(SequenceArgumentError, match=CHORD_BUDGET):
        parse_sequence({"app": "A", "steps": [{"tool": "press_key", "key": " ".join(["a"] * 129)}]}, SCHEMAS, _accept)


def test_completed_run_observes_once() -> None:
    app, steps = parse_sequence(
        {"app": "A", "steps": [{"tool": "type_text", "text": "hi"}, {"tool": "press_key", "key": "Return"}]},
        SCHEMAS,
        _accept,
    )
    rec = Recorder()
    result = asyncio.run(run_sequence(app, steps, rec))
    assert [c[0] for c in rec.calls] == ["type_text", "press_key", "get_app_state"]
    assert rec.calls[0][1] == {"app": "A", "text": "hi"}
    assert not result.is_error
    assert result.content[0] == TextBlock("Sequence completed 2 steps. The following is the actual final app state.")
    assert result.structured["status"] == "completed"
    assert result.structured["completedSteps"] == 2
    assert result.structured["observationDelivered"] is True


def test_failed_step_stops_without_observation() -> None:
    app, steps = parse_sequence({"app": "A", "steps": [{"tool": "type_text", "text": "x"}] * 3}, SCHEMAS, _accept)
    rec = Recorder(fail_at=1)
    result = asyncio.run(run_sequence(app, steps, rec))
    assert len(rec.calls) == 2
    assert result.is_error
    assert result.structured["status"] == "failed"
    assert result.structured["failedStepIndex"] == 1
    assert result.structured["resultUnknown"] is True
    assert result.structured["observationSkipped"] is True
    assert result.text.startswith("Sequence step 1 failed: boom.")


def test_deadline_stops_after_the_in_flight_step() -> None:
    app, steps = parse_sequence({"app": "A", "steps": [{"tool": "type_text", "text": "x"}] * 4}, SCHEMAS, _accept)
    now = [0.0]
    rec = Recorder()

    async def slow(name: str, args: dict[str, object]) -> ToolResult:
        now[0] += 25.0  # each step takes 25 s of the 60 s budget
        return await rec(name, args)

    result = asyncio.run(run_sequence(app, steps, slow, clock=lambda: now[0]))
    assert len(rec.calls) == 3  # 0-25-50-75: the third step started before 60 s and finished
    assert result.is_error
    assert result.structured["status"] == "deadline_exceeded"
    assert result.structured["completedSteps"] == 3
    assert result.structured["observationDelivered"] is False
    assert result.text.startswith("Sequence deadline_exceeded; stopped after 3 completed steps.")


def test_no_screenshot_is_observation_failed() -> None:
    app, steps = parse_sequence({"app": "A", "steps": [{"tool": "type_text", "text": "x"}]}, SCHEMAS, _accept)
    result = asyncio.run(run_sequence(app, steps, Recorder(image=False)))
    assert result.is_error
    assert result.structured["status"] == "observation_failed"
    assert result.structured["error_kind"] == "capture_failed"
