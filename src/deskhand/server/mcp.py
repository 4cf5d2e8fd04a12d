"""The MCP server: deskhand's tools over stdio or streamable HTTP, on the official `mcp` SDK.

The listing's ``_meta.platform`` says which backend actually runs (``linux``, ``macos``,
``windows``). Results are MCP content blocks: text, and images with their true MIME type.

Each MCP session (an HTTP ``Mcp-Session-Id``) gets its own js kernel and bindings from
:meth:`Service.fork`, and its own host session (``Host.fork``: its own observations, handles
and diffs); all of them share the executor and its one session queue. stdio has one client
per process and uses the service itself. ``share_session=True`` makes every HTTP client use
that one session on purpose. While a `js` cell runs, the client hears a progress
notification after each native call (when it sent a progress token), and deskhand's log records
at or above the session's level (``--log-level``, ``logging/setLevel``) as log messages.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import signal
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from deskhand import __version__
from deskhand.core.errors import NativeError
from deskhand.server import guidance_mcp, mcpface
from deskhand.server.options import LOG_LEVELS, ServerOptions
from deskhand.server.service import Service
from deskhand.server.stdiolines import pollable_stdin, pollable_stdout

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
    #: Sends not yet done: the call's answer waits for them, so the log precedes it.
    pending: list[asyncio.Task[None]] = field(default_factory=list)


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
            if not sink.active:
                return
            task = loop.create_task(send(level_name, text))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            sink.pending.append(task)

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


def _let_through(level: int) -> None:
    """Lower deskhand's logger to ``level`` if it would drop such records before the forwarder
    (stderr keeps its own level on its handler)."""
    logger = logging.getLogger("deskhand")
    if logger.getEffectiveLevel() > level:
        logger.setLevel(level)


def _connection(ctx: Any) -> Any:
    # The SDK's per-request session proxy holds the client's Connection (state, exit stack,
    # session id); there is no public accessor for it on the low-level context yet.
    return ctx.session._connection


def tools_listing(service: Service) -> types.ListToolsResult:
    """The ``tools/list`` result: the service's tools and ``_meta.platform``."""
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


PLATFORMS: Final = ("macos", "windows", "linux")


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


def build_server(service: Service, options: ServerOptions | None = None, *, discover: bool = True) -> Server[Any]:
    """A low-level MCP server whose tools are exactly the service's tools.

    ``discover=False`` answers ``server/discover`` with "method not found", so that clients use
    the initialize handshake and its sessions (the HTTP transport needs them: bindings are per
    session).
    """
    opts = options or ServerOptions()
    _install_forwarder()
    _let_through(LOG_LEVELS[opts.log_level])

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
        return tools_listing(service)

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

        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:  # per-request opt-in, else none
            wanted = (ctx.meta or {}).get(types.LOG_LEVEL_META_KEY)
        else:
            wanted = _connection(ctx).state.get(_LEVEL_KEY, opts.log_level)
        level = LOG_LEVELS.get(wanted, logging.CRITICAL + 100) if isinstance(wanted, str) else logging.CRITICAL + 100
        sink = _Sink(asyncio.get_running_loop(), level, send_log)
        token = _log_sink.set(sink)
        try:
            result = await target.call(params.name, args, progress=progress)
        finally:
            _log_sink.reset(token)
            await asyncio.gather(*sink.pending, return_exceptions=True)
            sink.active = False
        return mcpface.to_mcp(result, opts.images)

    async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        _connection(ctx).state[_LEVEL_KEY] = params.level
        _let_through(LOG_LEVELS[params.level])
        return types.EmptyResult()

    server: Server[Any] = Server(
        "deskhand",
        version=__version__,
        title="deskhand",
        instructions=mcpface.INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        # the Skill as a prompt and resources; its platform document is chosen from the listing's _meta
        **guidance_mcp.handlers(lambda: platform_of(listing_json(service))),
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
    """Serve one client over stdio until its input ends or the process gets SIGTERM or SIGINT;
    then end the kernel and the executor and return (the caller exits 0)."""
    server = build_server(service, options)
    stdin = pollable_stdin()
    stdout = pollable_stdout()
    try:
        async with anyio.create_task_group() as tg:

            async def stop_on_signal() -> None:
                with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                    async for _ in signals:
                        tg.cancel_scope.cancel()
                        return

            tg.start_soon(stop_on_signal)
            async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):  # type: ignore[arg-type]
                await server.run(read_stream, write_stream, server.create_initialization_options())
            tg.cancel_scope.cancel()
    finally:
        if stdin is not None:
            stdin.restore()
        if stdout is not None:
            stdout.restore()
        with anyio.CancelScope(shield=True):
            await service.close()
