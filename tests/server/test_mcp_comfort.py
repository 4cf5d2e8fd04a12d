"""What MCP clients rely on beyond the tools' behaviour, checked with the official Python SDK client.

Progress notifications after each native call of a real QuickJS cell (over the fake backend);
the logging capability, ``logging/setLevel`` and deskhand's log records reaching the client; a
failed cell's counts and recovery advice in its text; output schemas the client validates
results against; unknown tools as protocol errors; the server's instructions; tool titles; the
guidance documents as prompts and resources; ``caps`` selection; ``--image-responses``.
"""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from PIL import Image

from deskhand import guidance
from deskhand.host import Host
from deskhand.host.host import HeldQueue
from deskhand.host.result import ImageBlock, TextBlock, ToolResult
from deskhand.runtime import JsKernel
from deskhand.server.mcp import build_server
from deskhand.server.mcpface import INSTRUCTIONS, TITLES
from deskhand.server.options import ImagePolicy, ServerOptions
from deskhand.server.service import Service

pytestmark = pytest.mark.anyio

Connect = Callable[[Service], AbstractAsyncContextManager[Client]]

THREE_CALLS = """
let app = await cua.getApp("Mousepad");
await app.getAXState({emit: false});
await app.getAXState({emit: false});
nodeRepl.write("done");
"""


def _texts(result: types.CallToolResult) -> list[str]:
    return [b.text for b in result.content if isinstance(b, types.TextContent)]


def _real(host: Host) -> Service:
    return Service(host, JsKernel)


@pytest.mark.timeout(120)
async def test_progress_after_each_native_call(host: Host) -> None:
    service = _real(host)
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    try:
        async with Client(build_server(service)) as client:
            result = await client.call_tool("js", {"code": THREE_CALLS}, progress_callback=on_progress)
            quiet = await client.call_tool("js", {"code": "nodeRepl.write('no calls')"}, progress_callback=on_progress)
    finally:
        await service.close()
    assert not result.is_error, _texts(result)
    assert _texts(result)[-1] == "done"
    assert not quiet.is_error
    counts = [p for p, _, _ in heard]
    assert counts == sorted(counts) and counts[-1] >= 3  # getApp's own calls, then the two observations
    assert counts == list(range(1, len(counts) + 1))
    assert heard[0][2] == "1 native call done"
    assert heard[-1][2] == f"{int(counts[-1])} native calls done"


@pytest.mark.timeout(120)
async def test_a_failed_cell_says_its_counts_and_the_recovery_in_text(host: Host) -> None:
    service = _real(host)
    try:
        async with Client(build_server(service)) as client:
            result = await client.call_tool(
                "js", {"code": THREE_CALLS.replace('nodeRepl.write("done")', "throw new Error('boom')")}
            )
    finally:
        await service.close()
    assert result.is_error
    assert result.structured_content is not None
    started = result.structured_content["nativeCallsStarted"]
    assert isinstance(started, int) and started >= 3
    text = "\n".join(_texts(result))
    assert "boom" in text
    assert (
        f"Native calls: {started} started, {result.structured_content['nativeCallsCompleted']} completed, 0 rejected"
        in text
    )
    recovery = result.structured_content["recovery"]
    assert isinstance(recovery, str) and recovery
    assert f"Recovery: {recovery}" in text


async def _logging_script(_queue: HeldQueue, code: str) -> ToolResult:
    logging.getLogger("deskhand.server.test").warning("a warning from %s", code)
    logging.getLogger("deskhand.server.test").info("an info line")
    return ToolResult((TextBlock("ok"),))


async def test_logging_capability_and_records_reach_the_client(host: Host, kernels: Any) -> None:
    kernels.script = _logging_script
    service = Service(host, kernels)
    got: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        got.append(params)

    async with Client(build_server(service), mode="legacy", logging_callback=on_log) as client:
        assert client.server_capabilities.logging is not None
        await client.call_tool("js", {"code": "cell-1"})
        warned = list(got)
        with pytest.warns(MCPDeprecationWarning):  # the 2026 protocol drops it; handshake clients use it
            await client.set_logging_level("error")
        await client.call_tool("js", {"code": "cell-2"})
        after_error_level = got[len(warned) :]
        with pytest.warns(MCPDeprecationWarning):  # the 2026 protocol drops it; handshake clients use it
            await client.set_logging_level("info")
        await client.call_tool("js", {"code": "cell-3"})
        info = got[len(warned) :]
    assert [(p.level, p.data) for p in warned] == [("warning", "deskhand.server.test: a warning from cell-1")]
    assert after_error_level == []
    assert [(p.level, p.data) for p in info] == [
        ("warning", "deskhand.server.test: a warning from cell-3"),
        ("info", "deskhand.server.test: an info line"),
    ]


async def test_the_default_log_level_comes_from_the_options(host: Host, kernels: Any) -> None:
    kernels.script = _logging_script
    service = Service(host, kernels)
    got: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        got.append(params)

    server = build_server(service, ServerOptions(log_level="error"))
    async with Client(server, mode="legacy", logging_callback=on_log) as client:
        await client.call_tool("js", {"code": "cell"})
    assert got == []


async def test_output_schemas_titles_and_instructions(connect: Connect, semantic_service: Service) -> None:
    async with connect(semantic_service) as client:
        listing = await client.list_tools()
        assert client.instructions == INSTRUCTIONS
        apps = await client.call_tool("list_apps", {})  # the client validates it against the schema
        state = await client.call_tool("get_app_state", {"app": "Mousepad"})
    tools = {t.name: t for t in listing.tools}
    assert {n for n, t in tools.items() if t.output_schema} == {"list_apps", "get_app_state", "sequence"}
    assert all(t.title == TITLES[n] and t.annotations and t.annotations.title == TITLES[n] for n, t in tools.items())
    assert not apps.is_error and apps.structured_content is not None
    assert [a["id"] for a in apps.structured_content["apps"]][:1] == ["org.xfce.mousepad"]
    assert state.structured_content == {"app": "org.xfce.mousepad"}
    assert len(INSTRUCTIONS) < 600


async def test_unknown_tools_are_protocol_errors(connect: Connect, service: Service, kernels: Any) -> None:
    async with connect(service) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("no_such_tool", {})
    assert caught.value.error.code == types.INVALID_PARAMS
    assert caught.value.error.message == "Unknown tool: no_such_tool"
    assert kernels.made == []


async def test_guidance_as_prompts_and_resources(connect: Connect, service: Service) -> None:
    """The Skill: one prompt (the entry, then the platform document the listing's ``_meta`` selects)
    and each shipped document as a resource; unknown names are protocol errors."""
    async with connect(service) as client:
        prompts = await client.list_prompts()
        skill = await client.get_prompt("deskhand")
        resources = await client.list_resources()
        linux = await client.read_resource("deskhand://guidance/linux.md")
        with pytest.raises(MCPError):
            await client.get_prompt("nope")
        with pytest.raises(MCPError):
            await client.read_resource("deskhand://guidance/nope")
    assert [p.name for p in prompts.prompts] == ["deskhand"]
    message = skill.messages[0]
    assert message.role == "user" and isinstance(message.content, types.TextContent)
    assert message.content.text.startswith(guidance.load("entry").rstrip())
    assert guidance.load("linux").strip() in message.content.text
    assert guidance.load("macos").strip() not in message.content.text
    assert sorted(str(r.uri) for r in resources.resources) == [
        f"deskhand://guidance/{d}" for d in ("SKILL.md", "linux.md", "macos.md")
    ]
    assert all(r.mime_type == "text/markdown" for r in resources.resources)
    (content,) = linux.contents
    assert isinstance(content, types.TextResourceContents) and content.text == guidance.load("linux")


async def test_caps_select_the_tools(connect: Connect, host: Host, kernels: Any) -> None:
    only_semantic = Service(host, kernels, caps=frozenset({"semantic"}))
    async with connect(only_semantic) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        with pytest.raises(MCPError, match="Unknown tool: js"):
            await client.call_tool("js", {"code": "1"})
        apps = await client.call_tool("list_apps", {})
    assert "js" not in names and "js_reset" not in names
    assert {"list_apps", "get_app_state", "click", "sequence"} <= set(names)
    assert not apps.is_error
    assert kernels.made == []
    both = Service(host, kernels, caps=frozenset({"js", "semantic"}))
    async with connect(both) as client:
        names = [t.name for t in (await client.list_tools()).tools]
    assert names[:2] == ["js", "js_reset"] and "sequence" in names
    with pytest.raises(ValueError, match="caps"):
        Service(host, kernels, caps=frozenset({"browser"}))


def _big_jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (2000, 1000), (10, 120, 200)).save(out, "JPEG", quality=80)
    return out.getvalue()


BIG = _big_jpeg()


async def _emit_big_image(_queue: HeldQueue, _code: str) -> ToolResult:
    return ToolResult((TextBlock("shot"), ImageBlock(BIG, "image/jpeg")))


@pytest.mark.parametrize("mode", ["allow", "omit", "scale"])
async def test_image_responses(host: Host, kernels: Any, mode: str) -> None:
    kernels.script = _emit_big_image
    service = Service(host, kernels)
    server = build_server(service, ServerOptions(images=ImagePolicy(mode, 500)))
    async with Client(server) as client:
        result = await client.call_tool("js", {"code": "shot"})
    images = [b for b in result.content if isinstance(b, types.ImageContent)]
    texts = _texts(result)
    if mode == "allow":
        assert [base64.b64decode(i.data) for i in images] == [BIG]
        assert texts == ["shot"]
    elif mode == "omit":
        assert images == []
        assert texts == ["shot", "[image omitted (image/jpeg, 2000x1000): the server runs with --image-responses omit]"]
    else:
        (image,) = images
        with Image.open(io.BytesIO(base64.b64decode(image.data))) as small:
            assert small.size == (500, 250)
        assert texts[0] == "shot"
        assert texts[1].startswith("[image scaled from 2000x1000 to 500x250")
        assert "multiply what you read here by 4" in texts[1]


def test_image_policy_is_checked() -> None:
    with pytest.raises(ValueError, match="image responses"):
        ImagePolicy("blur")
    with pytest.raises(ValueError, match="at least 16"):
        ImagePolicy("scale", 4)
    with pytest.raises(ValueError, match="log level"):
        ServerOptions(log_level="loud")
