"""The MCP server: deskhand's tools over stdio or streamable HTTP, on the official `mcp` SDK.

The listing's ``_meta.platform`` says which backend actually runs (``linux``, ``macos``,
``windows``). Results are MCP content blocks: text, and images with their true MIME type.

Each MCP session (an HTTP ``Mcp-Session-Id``) gets its own js kernel and bindings from
:meth:`Service.fork`; all of them share the host and its one session queue. stdio has one
client per process and uses the service itself. ``share_session=True`` makes every HTTP client
use that one session on purpose. While a `js` cell runs, the client hears a progress
notification after each native call (when it sent a progress token), and deskhand's log records
at or above the session's level (``--log-level``, ``logging/setLevel``) as log messages.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Final

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from deskhand import __version__
from deskhand.server import mcpface
from deskhand.server.options import LOG_LEVELS, ServerOptions
from deskhand.server.service import Service

__all__ = ["LOG_LEVELS", "ServerOptions", "build_server", "serve_stdio", "to_mcp"]

to_mcp = mcpface.to_mcp

_SESSION_KEY: Final = "deskhand.service"
_LEVEL_KEY: Final = "deskhand.log_level"


Send = Callable[[str, str], Coroutine[Any, Any, None]]


@dataclass(slots=True)
class _Sink:
    """Where the log records of one tool call go; inactive once the call has answered (a task the
    call started keeps the context, and must not write to a finished request's stream)."""

    loop: asyncio.AbstractEventLoop
    level: int
    send: Send
    active: bool = True


_log_sink: contextvars.ContextVar[_Sink | None] = contextvars.ContextVar("deskhand_log_sink", default=None)


class _ForwardToClient(logging.Handler):
    """Sends deskhand's log records made during a tool call to the client that made the call."""

    def emit(self, record: logging.LogRecord) -> None:
        sink = _log_sink.get()
        if sink is None or not sink.active or record.levelno < sink.level:
            return
        loop, send = sink.loop, sink.send
        level_name = _mcp_level(record.levelno)
        text = self.format(record)

        def schedule() -> None:
            task = loop.create_task(send(level_name, text))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

        try:
            if asyncio.get_running_loop() is loop:
                schedule()
                return
        except RuntimeError:
            pass
        loop.call_soon_threadsafe(schedule)


def _mcp_level(levelno: int) -> str:
    name = "debug"
    for candidate, start in LOG_LEVELS.items():
        if levelno >= start:
            name = candidate
    return name


_forwarder = _ForwardToClient()
_forwarder.setFormatter(logging.Formatter("%(name)s: %(message)s"))


def _install_forwarder() -> None:
    root = logging.getLogger("deskhand")
    if _forwarder not in root.handlers:
        root.addHandler(_forwarder)


def _connection(ctx: Any) -> Any:
    # The SDK's per-request session proxy holds the client's Connection (state, exit stack,
    # session id); there is no public accessor for it on the low-level context yet.
    return ctx.session._connection


def build_server(service: Service, options: ServerOptions | None = None, *, discover: bool = True) -> Server[Any]:
    """A low-level MCP server whose tools are exactly the service's tools.

    ``discover=False`` answers ``server/discover`` with "method not found", so that clients use
    the initialize handshake and its sessions (the HTTP transport needs them: bindings are per
    session).
    """
    opts = options or ServerOptions()
    _install_forwarder()

    def session_service(ctx: Any) -> Service:
        if opts.share_session:
            return service
        conn = _connection(ctx)
        if conn.session_id is None:  # stdio and in-process: one client
            return service
        forked: Service | None = conn.state.get(_SESSION_KEY)
        if forked is None:
            forked = service.fork()
            conn.state[_SESSION_KEY] = forked
            conn.exit_stack.push_async_callback(forked.close)
        return forked

    async def list_tools(_ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tools = [
            types.Tool(
                name=spec.name,
                title=mcpface.TITLES.get(spec.name),
                description=spec.description,
                input_schema=spec.input_schema,
                output_schema=mcpface.OUTPUT_SCHEMAS.get(spec.name),
                annotations=types.ToolAnnotations(
                    title=mcpface.TITLES.get(spec.name),
                    read_only_hint=spec.annotations.get("readOnlyHint"),
                    destructive_hint=spec.annotations.get("destructiveHint"),
                    idempotent_hint=spec.annotations.get("idempotentHint"),
                    open_world_hint=spec.annotations.get("openWorldHint"),
                ),
            )
            for spec in service.tools()
        ]
        return types.ListToolsResult.model_validate({"tools": tools, "_meta": {"platform": service.platform}})

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        target = session_service(ctx)
        if not target.knows(params.name):
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        args: object = {} if params.arguments is None else params.arguments

        async def progress(count: int) -> None:
            try:
                await ctx.session.report_progress(count, None, f"{count} native call{'s' if count != 1 else ''} done")
            except Exception:  # a client gone mid-cell must not fail the cell
                logging.getLogger(__name__).debug("progress notification not sent", exc_info=True)

        async def send_log(level: str, text: str) -> None:
            note = types.LoggingMessageNotification(
                params=types.LoggingMessageNotificationParams(level=level, data=text, logger="deskhand")  # type: ignore[arg-type]
            )
            await ctx.session.send_notification(note, related_request_id=ctx.request_id)

        level = LOG_LEVELS[_connection(ctx).state.get(_LEVEL_KEY, opts.log_level)]
        sink = _Sink(asyncio.get_running_loop(), level, send_log)
        token = _log_sink.set(sink)
        try:
            result = await target.call(params.name, args, progress=progress)
        finally:
            sink.active = False
            _log_sink.reset(token)
        return mcpface.to_mcp(result, opts.images)

    async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        _connection(ctx).state[_LEVEL_KEY] = params.level
        return types.EmptyResult()

    server: Server[Any] = Server(
        "deskhand",
        version=__version__,
        title="deskhand",
        instructions=mcpface.INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=mcpface.on_list_resources,
        on_read_resource=mcpface.on_read_resource,
        on_list_prompts=mcpface.on_list_prompts,
        on_get_prompt=mcpface.on_get_prompt,
    )
    # Registered directly: the constructor's argument warns that the capability is deprecated in
    # the 2026-07-28 protocol, while clients of the handshake versions still use it.
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    if not discover:

        async def no_discover(_ctx: Any, _params: types.RequestParams) -> types.EmptyResult:
            raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found", data="server/discover")

        server.add_request_handler("server/discover", types.RequestParams, no_discover)
    return server


async def serve_stdio(service: Service, options: ServerOptions | None = None) -> None:
    server = build_server(service, options)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await service.close()
