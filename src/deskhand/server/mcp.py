"""The MCP server: deskhand's tools over stdio or streamable HTTP, on the official `mcp` SDK.

The listing's ``_meta.platform`` says which backend actually runs (``linux``, ``macos``,
``windows``). Results are MCP content blocks: text, and images with their true MIME type.
"""

from __future__ import annotations

import base64
import hmac
import ipaddress
import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from deskhand import __version__
from deskhand.core.errors import NativeError
from deskhand.host.result import ImageBlock, ToolResult
from deskhand.server import guidance_mcp
from deskhand.server.service import Service

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def to_mcp(result: ToolResult) -> types.CallToolResult:
    """Map our result onto MCP content blocks in order."""
    content: list[types.ContentBlock] = []
    for block in result.content:
        if isinstance(block, ImageBlock):
            data = base64.b64encode(block.data).decode("ascii")
            content.append(types.ImageContent(type="image", data=data, mime_type=block.mime_type))
        else:
            content.append(types.TextContent(type="text", text=block.text))
    structured = dict(result.structured) or None
    return types.CallToolResult(content=content, structured_content=structured, is_error=result.is_error)


PLATFORMS = ("macos", "windows", "linux")


def tools_listing(service: Service) -> types.ListToolsResult:
    """The ``tools/list`` result: the service's tools and ``_meta.platform``."""
    tools = [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema,
            annotations=types.ToolAnnotations(
                read_only_hint=spec.annotations.get("readOnlyHint"),
                destructive_hint=spec.annotations.get("destructiveHint"),
                idempotent_hint=spec.annotations.get("idempotentHint"),
                open_world_hint=spec.annotations.get("openWorldHint"),
            ),
        )
        for spec in service.tools()
    ]
    return types.ListToolsResult.model_validate({"tools": tools, "_meta": {"platform": service.platform}})


def listing_json(service: Service) -> str:
    """The listing as a client receives it on the wire (JSON text)."""
    return tools_listing(service).model_dump_json(by_alias=True, exclude_none=True)


def platform_of(listing: str) -> str:
    """``_meta.platform`` of a wire listing: ``macos``, ``windows`` or ``linux``.

    Raises:
        NativeError: ``driver_platform_unavailable`` for invalid JSON, a missing field or another value.
    """
    try:
        parsed = json.loads(listing)
    except (TypeError, ValueError):
        parsed = None
    meta = parsed.get("_meta") if isinstance(parsed, dict) else None
    value = meta.get("platform") if isinstance(meta, dict) else None
    if not isinstance(value, str) or value not in PLATFORMS:
        raise NativeError(
            "driver_platform_unavailable",
            "The driver did not report a supported platform in its tools listing (_meta.platform); "
            "update the driver and SDK.",
            dispatched=False,
        )
    return value


def build_server(service: Service) -> Server[Any]:
    """A low-level MCP server whose tools are exactly the service's tools."""

    async def list_tools(_ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return tools_listing(service)

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args: object = {} if params.arguments is None else params.arguments
        return to_mcp(await service.call(params.name, args))

    # The Skill as a prompt and resources; its platform document is chosen from the listing's _meta.
    skill = guidance_mcp.handlers(lambda: platform_of(listing_json(service)))
    return Server("deskhand", version=__version__, on_list_tools=list_tools, on_call_tool=call_tool, **skill)


async def serve_stdio(service: Service) -> None:
    server = build_server(service)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await service.close()


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def http_app(service: Service, *, host: str = "127.0.0.1", token: str | None = None) -> Any:
    """A Starlette app serving MCP at ``/mcp``. Any non-loopback address needs a bearer token."""
    if not is_loopback(host) and not token:
        msg = f"serving MCP on {host} needs a bearer token (--token or DESKHAND_TOKEN)"
        raise ValueError(msg)
    app = build_server(service).streamable_http_app(host=host)
    if token is None:
        return app
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers", []))
            if not hmac.compare_digest(headers.get(b"authorization", b""), expected):
                await send(
                    {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]}
                )
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token\n"})
                return
        await app(scope, receive, send)

    return guarded


async def serve_http(service: Service, *, host: str, port: int, token: str | None = None) -> None:
    import uvicorn  # noqa: PLC0415 - only the HTTP transport needs it

    config = uvicorn.Config(http_app(service, host=host, token=token), host=host, port=port, log_level="warning")
    try:
        await uvicorn.Server(config).serve()
    finally:
        await service.close()
