"""Tool calls over MCP: refusals before dispatch, the deny policy, `js` routing, content blocks.

Covers `platformRouting.test.ts` (a static bad_args such as click with only ``x`` is raised before
anything else), `replDispatch.test.ts` (an invalid js request never creates a kernel; invalid
js_reset), section 4.2 (pre-dispatch refusals are flagged and counted as such) and section 1.2's
result shape (text and image blocks with their true MIME type).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from deskhand.backends.fake import FAKE_JPEG, FakeExecutor
from deskhand.core.errors import NativeError
from deskhand.host import Host
from deskhand.host.host import HeldQueue
from deskhand.host.result import ToolResult
from deskhand.server.service import Service

pytestmark = pytest.mark.anyio

Connect = Callable[[Service], AbstractAsyncContextManager[Client]]

JS_BAD_ARGS = "js requires code (up to 256 KiB), an optional title, and timeout_ms between 1 and 60000."
JS_NOT_OBJECT = "js requires an object with code."
JS_RESET_BAD_ARGS = "js_reset takes an empty object."
JS_RESET_DONE = "Computer Use JavaScript reset. Select an app again to continue."
NO_KERNEL = "This Computer Use host does not provide an isolated JavaScript kernel."
RECEIPT = "Action completed. Call `get_app_state` to fetch the updated UI state."
PNG_BYTES = b"\x89PNG\r\n\x1a\nfake-png"


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


# --- malformed arguments: refused before any native call ------------------------------------------

MALFORMED = [
    ("click", {"app": "Mousepad", "x": 10}, "click x and y must be provided together"),
    ("click", {"app": "Mousepad", "y": 10}, "click x and y must be provided together"),
    ("click", {"app": "Mousepad", "x": 1, "y": 2, "foo": 1}, "click does not accept the argument 'foo'."),
    ("click", {"x": 1, "y": 2}, "click requires app."),
    ("click", {"app": "   ", "x": 1, "y": 2}, "click requires app."),
    ("click", {"app": "Mousepad"}, "click requires element_index or both x and y."),
    (
        "click",
        {"app": "Mousepad", "element_index": "17"},
        "click element_index must be an element handle like g1:23 from get_app_state.",
    ),
    ("click", {"app": "Mousepad", "x": -1, "y": 2}, "click x must be a finite number >= 0."),
    (
        "click",
        {"app": "Mousepad", "x": 1, "y": 2, "click_count": 4},
        "click click_count must be an integer from 1 to 3.",
    ),
    (
        "click",
        {"app": "Mousepad", "element_index": "g1:2", "x": 1, "y": 2},
        "click takes element_index or x and y, not both.",
    ),
    ("get_app_state", {"app": "Mousepad", "disableDiff": True, "disable_diff": True}, "get_app_state got both"),
    ("get_app_state", {"app": "Mousepad", "disableDiff": "yes"}, "get_app_state disableDiff must be a boolean."),
    (
        "scroll",
        {"app": "Mousepad", "direction": "down", "x": 1, "y": 1, "pages": 0},
        "scroll pages must be a number greater than 0 and at most 10.",
    ),
    (
        "scroll",
        {"app": "Mousepad", "direction": "down", "x": 1, "y": 1, "pages": 11},
        "scroll pages must be a number greater than 0 and at most 10.",
    ),
    (
        "scroll",
        {"app": "Mousepad", "direction": "down", "x": 1, "y": 1, "pages": 1, "amount": 1},
        "scroll got both pages and amount; pass only one.",
    ),
    ("scroll", {"app": "Mousepad", "direction": "sideways", "x": 1, "y": 1}, "scroll direction must be"),
    (
        "drag",
        {"app": "Mousepad", "from_x": 1, "from_y": 1, "to_x": 2, "to_y": 2, "from": {"x": 1, "y": 1}},
        "drag takes from_x/from_y/to_x/to_y or from and to, not both.",
    ),
    ("paste", {"app": "Mousepad", "text": "x", "format": "rtf"}, "paste format must be text, md, or html."),
    ("paste", {"app": "Mousepad", "text": "x"}, "paste requires format."),
    ("type_text", {"app": "Mousepad", "text": 5}, "type_text text must be a string."),
    ("set_value", {"app": "Mousepad", "element_index": "g1:2"}, "set_value requires value."),
    ("list_apps", {"app": "Mousepad"}, "list_apps does not accept the argument 'app'."),
]


@pytest.mark.parametrize(("name", "args", "text"), MALFORMED)
async def test_malformed_arguments_are_refused_before_any_native_call(
    connect: Connect, service: Service, executor: FakeExecutor, host: Host, name: str, args: dict[str, Any], text: str
) -> None:
    async with connect(service) as client:
        result = await client.call_tool(name, args)
    assert result.is_error
    assert _text(result).startswith(text)
    assert executor.calls == []
    assert result.structured_content == {"code": "bad_args"}
    assert (host.counters.started, host.counters.rejected_before_dispatch) == (1, 1)
    assert not host.counters.result_unknown


@pytest.mark.parametrize(
    ("key", "code"),
    [("ctrl+alt+Delete", "grant_flag_required"), ("alt+F4", "grant_flag_required"), ("ctrl+nosuchkey", "unknown_key")],
)
async def test_key_refusals_happen_before_dispatch(
    connect: Connect, service: Service, executor: FakeExecutor, host: Host, key: str, code: str
) -> None:
    async with connect(service) as client:
        result = await client.call_tool("press_key", {"app": "Mousepad", "key": key})
    assert result.is_error
    assert result.structured_content == {"code": code}
    assert executor.calls == []
    assert host.counters.rejected_before_dispatch == 1


async def test_the_same_refusal_is_flagged_not_dispatched_on_the_service(
    service: Service, executor: FakeExecutor
) -> None:
    result = await service.call("click", {"app": "Mousepad", "x": 10})
    assert result.is_error
    assert result.not_dispatched
    assert result.text == "click x and y must be provided together"
    assert result.native_error is not None
    assert result.native_error.name == "TypeError"
    assert executor.calls == []


@pytest.mark.parametrize(
    ("name", "args", "text"),
    [
        ("click", {"app": "Mousepad", "x": 10**400, "y": 1}, "click x must be a finite number >= 0."),
        ("drag", {"app": "Mousepad", "from": {"x": 1, "y": -(10**400)}, "to": {"x": 1, "y": 1}}, "drag from must be"),
        ("scroll", {"app": "Mousepad", "direction": "up", "x": 1, "y": 1, "pages": 10**400}, "scroll pages must be"),
    ],
)
async def test_integers_beyond_float_range_are_bad_args(
    service: Service, executor: FakeExecutor, name: str, args: dict[str, Any], text: str
) -> None:
    result = await service.call(name, args)
    assert result.is_error
    assert result.not_dispatched
    assert result.text.startswith(text)
    assert executor.calls == []


@pytest.mark.parametrize("args", [None, [], "click", 3, [{"app": "Mousepad"}]])
async def test_semantic_tool_with_a_non_object_is_refused(
    service: Service, executor: FakeExecutor, args: object
) -> None:
    result = await service.call("click", args)
    assert result.is_error
    assert result.not_dispatched
    assert result.text == "click requires an object of arguments."
    assert executor.calls == []


# --- the deny policy: refused after resolution, before dispatch -----------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("click", {"x": 1, "y": 1}),
        ("get_app_state", {}),
        ("type_text", {"text": "rm -rf ~\n"}),
        ("press_key", {"key": "Return"}),
        ("paste", {"text": "ls", "format": "text"}),
    ],
)
@pytest.mark.parametrize(("selector", "shown"), [("XTerm", "XTerm"), ("xterm", "XTerm"), ("5151", "XTerm")])
async def test_a_terminal_is_refused_before_dispatch(
    connect: Connect,
    service: Service,
    executor: FakeExecutor,
    host: Host,
    name: str,
    args: dict[str, Any],
    selector: str,
    shown: str,
) -> None:
    async with connect(service) as client:
        result = await client.call_tool(name, {"app": selector, **args})
    assert result.is_error
    assert _text(result) == f"Computer Use is not allowed to use the app '{shown}' for safety reasons."
    assert result.structured_content == {"code": "app_denied"}
    # Resolution only: the identity decides the policy; no method that observes or acts ran.
    assert executor.methods() == ["resolve"]
    assert (host.counters.started, host.counters.completed, host.counters.rejected_before_dispatch) == (1, 0, 1)
    assert not host.counters.result_unknown


async def test_deny_matches_the_executable_name_too(service: Service, executor: FakeExecutor) -> None:
    result = await service.call("type_text", {"app": "Shell", "text": "x"})
    assert result.is_error
    assert result.not_dispatched
    assert result.structured == {"code": "app_denied"}
    assert executor.methods() == ["resolve"]


async def test_discovery_does_not_authorize(connect: Connect, service: Service, executor: FakeExecutor) -> None:
    async with connect(service) as client:
        listing = await client.call_tool("list_apps", {})
    assert not listing.is_error
    assert "XTerm — xterm" in _text(listing).splitlines()
    assert executor.methods() == ["list_apps"]


async def test_an_executor_failure_is_result_unknown_not_pre_dispatch(
    service: Service, executor: FakeExecutor, host: Host
) -> None:
    executor.fail("click", NativeError("ax_failed", "The click could not be confirmed."))
    result = await service.call("click", {"app": "Mousepad", "x": 1, "y": 1})
    assert result.is_error
    assert not result.not_dispatched
    assert result.text == "The click could not be confirmed."
    assert executor.methods() == ["resolve", "click"]
    assert host.counters.result_unknown


# --- results as MCP content blocks -------------------------------------------------------------------


async def test_action_receipt_is_one_text_block(connect: Connect, service: Service, executor: FakeExecutor) -> None:
    async with connect(service) as client:
        result = await client.call_tool("click", {"app": "Mousepad", "element_index": "g1:2", "click_count": 2})
    assert not result.is_error
    assert [b.type for b in result.content] == ["text"]
    assert _text(result) == RECEIPT
    assert executor.calls[-1].method == "click"
    assert executor.calls[-1].args["element"] == "g1:2"
    assert executor.calls[-1].args["count"] == 2


async def test_app_state_is_a_text_block_then_a_jpeg_block(
    connect: Connect, service: Service, executor: FakeExecutor
) -> None:
    async with connect(service) as client:
        result = await client.call_tool("get_app_state", {"app": "Mousepad", "disableDiff": True})
    assert not result.is_error
    text, image = result.content
    assert isinstance(text, types.TextContent)
    assert "<app_state>" in text.text
    assert "org.xfce.mousepad" in text.text
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/jpeg"
    assert base64.b64decode(image.data) == FAKE_JPEG
    assert executor.calls[-1].args["disable_diff"] is True


async def test_js_blocks_keep_their_true_mime_type(connect: Connect, service: Service) -> None:
    async with connect(service) as client:
        result = await client.call_tool("js", {"code": "nodeRepl.write(1)"})
    assert not result.is_error
    text, image = result.content
    assert isinstance(text, types.TextContent)
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG_BYTES
    assert result.structured_content is None


# --- js and js_reset ---------------------------------------------------------------------------------

INVALID_JS = [
    ({}, JS_BAD_ARGS),
    ({"code": 5}, JS_BAD_ARGS),
    ({"code": None}, JS_BAD_ARGS),
    ({"code": "1", "extra": True}, JS_BAD_ARGS),
    ({"code": "1", "title": 7}, JS_BAD_ARGS),
    ({"code": "1", "timeout_ms": 0}, JS_BAD_ARGS),
    ({"code": "1", "timeout_ms": 60_001}, JS_BAD_ARGS),
    ({"code": "1", "timeout_ms": 1.5}, JS_BAD_ARGS),
    ({"code": "1", "timeout_ms": "100"}, JS_BAD_ARGS),
    ({"code": "1", "timeout_ms": True}, JS_BAD_ARGS),
    # 131073 two-byte characters: under 256 Ki characters, over 256 KiB of UTF-8.
    ({"code": "é" * (128 * 1024 + 1)}, JS_BAD_ARGS),
    ({"code": "x" * (256 * 1024 + 1)}, JS_BAD_ARGS),
]


@pytest.mark.parametrize(("args", "text"), INVALID_JS)
async def test_invalid_js_never_creates_a_kernel(
    connect: Connect, service: Service, kernels: Any, executor: FakeExecutor, args: dict[str, Any], text: str
) -> None:
    async with connect(service) as client:
        result = await client.call_tool("js", args)
    assert result.is_error
    assert _text(result) == text
    assert kernels.made == []
    assert executor.calls == []


@pytest.mark.parametrize("args", [None, [], "code", 1, [{"code": "1"}]])
async def test_js_with_a_non_object_is_refused(service: Service, kernels: Any, args: object) -> None:
    result = await service.call("js", args)
    assert result.is_error
    assert result.not_dispatched
    assert result.text == JS_NOT_OBJECT
    assert kernels.made == []


@pytest.mark.parametrize(
    ("args", "timeout_ms"),
    [
        ({"code": "1"}, 30_000),
        ({"code": "1", "timeout_ms": 1}, 1),
        ({"code": "1", "timeout_ms": 60_000}, 60_000),
        ({"code": "1", "timeout_ms": 2000.0, "title": "t"}, 2000),
        ({"code": "é" * (128 * 1024)}, 30_000),
    ],
)
async def test_valid_js_reaches_one_kernel(
    connect: Connect, service: Service, kernels: Any, args: dict[str, Any], timeout_ms: int
) -> None:
    async with connect(service) as client:
        first = await client.call_tool("js", args)
        second = await client.call_tool("js", {"code": "2"})
    assert not first.is_error
    assert not second.is_error
    assert len(kernels.made) == 1
    assert kernels.made[0].runs == [(args["code"], timeout_ms), ("2", 30_000)]


async def test_js_without_a_kernel_says_so(connect: Connect, host: Host) -> None:
    async with connect(Service(host, None)) as client:
        result = await client.call_tool("js", {"code": "1"})
    assert result.is_error
    assert _text(result) == NO_KERNEL


async def test_js_cell_acts_through_the_held_queue(
    connect: Connect, service: Service, kernels: Any, executor: FakeExecutor, host: Host
) -> None:
    async def act(queue: HeldQueue, _code: str) -> ToolResult:
        await queue.call_tool("click", {"app": "Mousepad", "x": 3, "y": 4})
        return await queue.call_tool("get_app_state", {"app": "Mousepad"})

    kernels.script = act
    async with connect(service) as client:
        result = await client.call_tool("js", {"code": "await app.click([3, 4])"})
    assert not result.is_error
    assert executor.methods() == ["resolve", "click", "resolve", "get_app_state"]
    assert executor.calls[1].args["point"] == (3.0, 4.0)
    assert [b.type for b in result.content] == ["text", "image"]
    assert host.counters.completed == 2


@pytest.mark.parametrize("args", [{"x": 1}, {"code": "1"}])
async def test_js_reset_with_arguments_is_refused(
    connect: Connect, service: Service, kernels: Any, args: dict[str, Any]
) -> None:
    async with connect(service) as client:
        await client.call_tool("js", {"code": "1"})
        result = await client.call_tool("js_reset", args)
    assert result.is_error
    assert _text(result) == JS_RESET_BAD_ARGS
    assert kernels.made[0].resets == 0


@pytest.mark.parametrize("args", [None, [], "", 0])
async def test_js_reset_with_a_non_object_is_refused(service: Service, args: object) -> None:
    result = await service.call("js_reset", args)
    assert result.is_error
    assert result.text == JS_RESET_BAD_ARGS


async def test_js_reset_resets_the_kernel(connect: Connect, service: Service, kernels: Any) -> None:
    async with connect(service) as client:
        before = await client.call_tool("js_reset", {})
        await client.call_tool("js", {"code": "1"})
        after = await client.call_tool("js_reset", {})
    assert not before.is_error
    assert not after.is_error
    assert _text(before) == _text(after) == JS_RESET_DONE
    assert len(kernels.made) == 1
    assert kernels.made[0].resets == 1


async def test_closing_the_service_closes_the_kernel(service: Service, kernels: Any) -> None:
    await service.call("js", {"code": "1"})
    await service.close()
    assert kernels.made[0].closed
