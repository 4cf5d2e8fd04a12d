"""The host's static parse: schemas, exact texts, refusal before any native call."""

# ruff: noqa: E501  (the argument tables read best one case per line)

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.host import AppPolicy, Host, ToolResult
from deskhand.host.tools import SCHEMAS, TOOL_NAMES, tool_specs

APP = FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)


def make_host(**kwargs: object) -> tuple[Host, FakeExecutor]:
    fake = FakeExecutor([APP])
    return Host(fake, policy=AppPolicy(), **kwargs), fake  # type: ignore[arg-type]


def call(host: Host, name: str, args: object) -> ToolResult:
    async def go() -> ToolResult:
        return await host.call_tool(name, args)  # type: ignore[arg-type]

    return anyio.run(go)


def test_schemas_are_strict_and_have_no_root_any_of() -> None:
    assert set(SCHEMAS) == set(TOOL_NAMES)
    assert len(TOOL_NAMES) == 12  # the 11 of the contract and list_windows (seed 2)
    for name, schema in SCHEMAS.items():
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert "anyOf" not in schema
        if name not in ("list_apps", "list_windows"):
            assert "app" in schema["required"]  # type: ignore[operator]


def test_schema_numbers() -> None:
    click: Any = SCHEMAS["click"]["properties"]
    assert click["click_count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 3,
        "description": "1, 2 or 3; default 1.",
    }
    pages = SCHEMAS["scroll"]["properties"]["pages"]  # type: ignore[index]
    assert (pages["exclusiveMinimum"], pages["maximum"]) == (0, 10)
    assert SCHEMAS["paste"]["required"] == ["app", "text", "format"]
    assert SCHEMAS["click"]["properties"]["element_index"]["pattern"] == r"^g(0|[1-9]\d*):(0|[1-9]\d*)$"  # type: ignore[index]


def test_annotations() -> None:
    specs = tool_specs()
    assert specs["list_apps"][2] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert specs["get_app_state"][2]["readOnlyHint"] is True
    assert specs["click"][2] == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    }


BAD = [
    ("click", {"app": "Mousepad", "x": 10}, "click x and y must be provided together"),
    ("click", {"app": "Mousepad", "y": 10}, "click x and y must be provided together"),
    ("click", {"app": "Mousepad"}, "click requires element_index or both x and y."),
    ("click", {"x": 1, "y": 2}, "click requires app."),
    ("click", {"app": "  ", "x": 1, "y": 2}, "click requires app."),
    ("click", {"app": 7, "x": 1, "y": 2}, "click app must be a string."),
    ("click", {"app": "M", "x": 1, "y": 2, "frontmost": True}, "click does not accept the argument 'frontmost'."),
    ("click", {"app": "M", "x": -1, "y": 2}, "click x must be a finite number >= 0."),
    ("click", {"app": "M", "x": True, "y": 2}, "click x must be a finite number >= 0."),
    ("click", {"app": "M", "x": float("nan"), "y": 2}, "click x must be a finite number >= 0."),
    ("click", {"app": "M", "x": 1, "y": 2, "click_count": 4}, "click click_count must be an integer from 1 to 3."),
    ("click", {"app": "M", "x": 1, "y": 2, "click_count": 0}, "click click_count must be an integer from 1 to 3."),
    ("click", {"app": "M", "element_index": 3}, "click element_index must be an element handle like g1:23 from get_app_state."),
    ("click", {"app": "M", "element_index": "3"}, "click element_index must be an element handle like g1:23 from get_app_state."),
    ("click", {"app": "M", "element_index": "g01:2"}, "click element_index must be an element handle like g1:23 from get_app_state."),
    ("click", {"app": "M", "element_index": "g1:2", "x": 1, "y": 1}, "click takes element_index or x and y, not both."),
    ("click", {"app": "M", "x": 1, "y": 2, "mouse_button": "left_button"}, "click mouse_button must be left, middle, right, back, forward, l, m, r, or 1-5."),
    ("get_app_state", {"app": "M", "disableDiff": True, "disable_diff": True}, "get_app_state got both disableDiff and disable_diff; pass only one."),
    ("get_app_state", {"app": "M", "disableDiff": "yes"}, "get_app_state disableDiff must be a boolean."),
    ("get_app_state", {"app": "M", "imageOnly": True, "textOnly": False}, "get_app_state got both imageOnly and textOnly; pass only one."),
    ("get_app_state", {"app": "M", "textOnly": 1}, "get_app_state textOnly must be a boolean."),
    ("scroll", {"app": "M", "direction": "down", "x": 1, "y": 1, "pages": 0}, "scroll pages must be a number greater than 0 and at most 10."),
    ("scroll", {"app": "M", "direction": "down", "x": 1, "y": 1, "pages": 10.5}, "scroll pages must be a number greater than 0 and at most 10."),
    ("scroll", {"app": "M", "direction": "down", "x": 1, "y": 1, "pages": -1}, "scroll pages must be a number greater than 0 and at most 10."),
    ("scroll", {"app": "M", "direction": "down", "x": 1, "y": 1, "pages": float("inf")}, "scroll pages must be a number greater than 0 and at most 10."),
    ("scroll", {"app": "M", "direction": "sideways", "x": 1, "y": 1}, "scroll direction must be up, down, left, or right."),
    ("scroll", {"app": "M", "direction": "down", "x": 1, "y": 1, "pages": 1, "amount": 1}, "scroll got both pages and amount; pass only one."),
    ("scroll", {"app": "M", "direction": "down", "x": 1}, "scroll x and y must be provided together"),
    ("drag", {"app": "M", "from_x": 1, "from_y": 1, "to_x": 2}, "drag requires from_x, from_y, to_x and to_y (or from and to)."),
    ("drag", {"app": "M", "from_x": 1, "from_y": 1, "to_x": 2, "to_y": 2, "to": {"x": 2, "y": 2}}, "drag takes from_x/from_y/to_x/to_y or from and to, not both."),
    ("drag", {"app": "M", "from": {"x": 1}, "to": {"x": 2, "y": 2}}, "drag from must be an object with numbers x and y >= 0."),
    ("select_text", {"app": "M", "element_index": "g1:2", "text": "a", "selection": "all"}, "select_text selection must be text, cursor_before, or cursor_after."),
    ("select_text", {"app": "M", "element_index": "g1:2", "text": "a", "selection": "text", "selection_type": "text"}, "select_text got both selection and selection_type; pass only one."),
    ("select_text", {"app": "M", "text": "a"}, "select_text requires element_index."),
    ("set_value", {"app": "M", "element_index": "g1:2"}, "set_value requires value."),
    ("perform_secondary_action", {"app": "M", "element_index": "g1:2", "action": 3}, "perform_secondary_action action must be a string."),
    ("paste", {"app": "M", "text": "x", "format": "rtf"}, "paste format must be text, md, or html."),
    ("paste", {"app": "M", "text": "x"}, "paste requires format."),
    ("type_text", {"app": "M"}, "type_text requires text."),
    ("press_key", {"app": "M"}, "press_key requires key."),
    ("list_apps", {"app": "M"}, "list_apps does not accept the argument 'app'."),
    ("list_apps", None, "list_apps requires an object of arguments."),
    ("list_apps", [], "list_apps requires an object of arguments."),
    ("launch_app", {}, "Unknown tool: launch_app"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "args", "text"), BAD)
def test_bad_args_are_refused_before_any_native_call(tool: str, args: object, text: str) -> None:
    host, fake = make_host()
    result = call(host, tool, args)
    assert result.is_error and result.not_dispatched
    assert result.text == text
    assert result.native_error is not None
    assert result.native_error.to_json() == {"name": "TypeError", "message": text}
    assert fake.calls == []
    assert host.counters.rejected_before_dispatch == 1 and not host.counters.result_unknown


def test_unknown_key_is_refused_before_dispatch() -> None:
    host, fake = make_host()
    result = call(host, "press_key", {"app": "Mousepad", "key": "a+b"})
    assert result.is_error and result.not_dispatched
    assert result.native_error is not None and result.native_error.native_code == "unknown_key"
    assert fake.calls == []


@pytest.mark.parametrize(
    "key", ["alt+F4", "ctrl+alt+BackSpace", "ctrl+alt+Delete", "super+l", "alt+Tab", "ctrl+alt+F2"]
)
def test_system_keys_need_the_session_grant(key: str) -> None:
    host, fake = make_host()
    result = call(host, "press_key", {"app": "Mousepad", "key": key})
    assert result.is_error and result.not_dispatched
    assert result.native_error is not None and result.native_error.native_code == "grant_flag_required"
    assert fake.calls == []

    granted, fake2 = make_host(system_keys_granted=True)
    assert not call(granted, "press_key", {"app": "Mousepad", "key": key}).is_error
    assert fake2.methods() == ["resolve", "press_key"]


def test_the_model_cannot_grant_itself_system_keys() -> None:
    host, fake = make_host()
    result = call(host, "press_key", {"app": "Mousepad", "key": "alt+F4", "systemKeyCombos": True})
    assert result.is_error and result.not_dispatched
    assert fake.calls == []
    assert host.system_keys_granted is False


def test_press_key_chord_budget() -> None:
    host, fake = make_host()
    result = call(host, "press_key", {"app": "Mousepad", "key": " ".join(["a"] * 129)})
    assert result.is_error and result.not_dispatched and fake.calls == []
    assert not call(host, "press_key", {"app": "Mousepad", "key": " ".join(["a"] * 128)}).is_error


GOOD = [
    ("click", {"app": "Mousepad", "x": 10, "y": 20.5}, {"element": None, "point": (10.0, 20.5), "button": "left", "count": 1}),
    ("click", {"app": "Mousepad", "element_index": "g0:0", "click_count": 3, "mouse_button": "r"}, {"element": "g0:0", "point": None, "button": "right", "count": 3}),
    ("click", {"app": "Mousepad", "element_index": "", "x": 1, "y": 2, "mouse_button": 2}, {"element": None, "point": (1.0, 2.0), "button": "middle", "count": 1}),
    ("scroll", {"app": "Mousepad", "direction": "d", "element_index": "g3:17", "amount": 0.5}, {"direction": "down", "pages": 0.5, "element": "g3:17", "point": None}),
    ("scroll", {"app": "Mousepad", "direction": "left", "x": 5, "y": 5}, {"direction": "left", "pages": 1.0, "element": None, "point": (5.0, 5.0)}),
    ("drag", {"app": "Mousepad", "from": {"x": 1, "y": 2}, "to": {"x": 3, "y": 4}}, {"start": (1.0, 2.0), "end": (3.0, 4.0), "button": "left"}),
    ("drag", {"app": "Mousepad", "from_x": 0, "from_y": 0, "to_x": 2410, "to_y": 1749, "mouse_button": "r"}, {"start": (0.0, 0.0), "end": (2410.0, 1749.0), "button": "right"}),
    ("type_text", {"app": "Mousepad", "text": ""}, {"text": ""}),
    ("paste", {"app": "Mousepad", "text": "# hi", "format": "md"}, {"text": "# hi", "fmt": "md"}),
    ("select_text", {"app": "Mousepad", "element_index": "g1:2", "text": "aa", "selection_type": "cursor_after"}, {"element": "g1:2", "text": "aa", "prefix": None, "suffix": None, "selection_type": "cursor_after"}),
    ("set_value", {"app": "Mousepad", "element_index": "g1:2", "value": ""}, {"element": "g1:2", "value": ""}),
    ("perform_secondary_action", {"app": "Mousepad", "element_index": "g1:2", "action": "zoom the window"}, {"element": "g1:2", "action": "zoom the window"}),
    ("press_key", {"app": "Mousepad", "key": "ctrl+shift+Tab"}, {"key": "ctrl+shift+Tab"}),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "args", "expected"), GOOD)
def test_valid_calls_map_to_exactly_one_executor_call(
    tool: str, args: dict[str, object], expected: dict[str, object]
) -> None:
    host, fake = make_host()
    result = call(host, tool, args)
    assert not result.is_error, result.text
    assert result.text == "Action completed. Call `get_app_state` to fetch the updated UI state."
    assert fake.methods() == ["resolve", tool]
    assert fake.calls[0].args == {"selector": "Mousepad"}
    assert fake.calls[1].args == {"app": "Mousepad", **expected}


def test_validate_alone_raises_the_pre_dispatch_error() -> None:
    host, fake = make_host()
    host.validate("click", {"app": "M", "x": 1, "y": 2})
    with pytest.raises(Exception, match="click x and y must be provided together"):
        host.validate("click", {"app": "M", "x": 1})
    assert fake.calls == []


def test_policy_file_is_not_needed(tmp_path: Path) -> None:
    assert AppPolicy.load(tmp_path / "absent.toml") == AppPolicy()
