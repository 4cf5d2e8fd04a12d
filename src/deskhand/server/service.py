"""One client's view of deskhand: the tools it may call and how each call is routed.

The MCP server, the CLI's ``js`` command and the tests all go through a ``Service``: it advertises
the tools of the running platform, validates the `js` family before any kernel exists, runs
`sequence`, and passes semantic tools to the host's gate. A `js` cell holds the host's session
queue for its whole run; so does a `sequence`, whose steps all go to the one process the host
pinned for it. `js_reset` is never queued.

No exception escapes :meth:`Service.call`: an unexpected one is logged with its traceback and
becomes an error result (not dispatched when it happened while checking the arguments, else
result-unknown).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from deskhand.core.platform import Platform
from deskhand.host.host import unexpected_error_result
from deskhand.host.result import TextBlock, ToolResult
from deskhand.host.tools import TOOL_NAMES
from deskhand.server import jstool
from deskhand.server.sequence import (
    SequenceArgumentError,
    parse_sequence,
    run_sequence,
    sequence_schema,
)

logger = logging.getLogger(__name__)

#: The 12 semantic tools (the host's registry): the two observations, then the mutating tools `sequence` may batch.
SEMANTIC_TOOLS = TOOL_NAMES


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, object]
    annotations: dict[str, bool]


class PinnedLike(Protocol):
    """What `sequence` needs from ``deskhand.host.PinnedApp``."""

    @property
    def refusal(self) -> ToolResult | None: ...

    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult: ...


class HostLike(Protocol):
    """What the service needs from ``deskhand.host.Host``."""

    platform: Platform

    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult: ...

    def pinned(self, selector: str) -> AbstractAsyncContextManager[PinnedLike]: ...

    def validate(self, name: str, args: dict[str, object]) -> None: ...

    def fork(self) -> HostLike: ...

    def tool_specs(self) -> dict[str, tuple[str, dict[str, object], dict[str, bool]]]: ...


#: Called after each native call of a running cell with the number of calls so far.
Progress = Callable[[int], Awaitable[None]]

#: The tool groups ``deskhand serve --caps`` selects: `js` (js, js_reset) and `semantic`
#: (the semantic tools and sequence).
CAPS = ("js", "semantic")


class KernelLike(Protocol):
    """What the service needs from a js kernel session."""

    async def run(self, code: str, *, timeout_ms: int, progress: Progress | None = None) -> ToolResult: ...

    async def reset(self) -> None: ...

    async def close(self) -> None: ...


#: Makes a session's kernel, whose calls go to that session's host.
KernelFactory = Callable[[HostLike], KernelLike]


class CellTracer(Protocol):
    """Where a traced session's cells are recorded (``deskhand.trace.TraceRecorder``)."""

    def cell_start(self, code: str, title: str | None) -> int: ...

    def cell_end(self, cell: int, code: str, title: str | None, result: ToolResult, duration: float) -> None: ...


def _error(text: str, **structured: object) -> ToolResult:
    return ToolResult((TextBlock(text),), is_error=True, structured=dict(structured), not_dispatched=True)


class Service:
    def __init__(
        self,
        host: HostLike,
        kernel_factory: KernelFactory | None,
        *,
        advertise_semantic: bool = False,
        caps: frozenset[str] | None = None,
        on_close: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.host = host
        #: The monotonic clock of `sequence`'s 60 s deadline; tests pass a fake one.
        self._clock = clock
        self._on_close = on_close
        self._kernel_factory = kernel_factory
        self._kernel: KernelLike | None = None
        if caps is None:
            caps = frozenset({"js", "semantic"} if advertise_semantic else {"js"})
        if not caps or not caps <= set(CAPS):
            msg = f"caps must be a non-empty subset of {', '.join(CAPS)}; got {', '.join(sorted(caps)) or 'none'}"
            raise ValueError(msg)
        self.caps = caps
        # Without a kernel the semantic tools are the face.
        self._advertise_semantic = "semantic" in caps or kernel_factory is None
        #: Records every `js` cell when the session is traced (``deskhand serve --trace``).
        self.tracer: CellTracer | None = None

    def fork(self) -> Service:
        """Another client's session on the same executor: its own js kernel and bindings and its
        own host session (``Host.fork``: its own observations, handles and diffs), the same
        session queue (so calls to one app stay serialized), the same caps. Closing it ends only
        its kernel; the executor belongs to this service."""
        forked = Service(self.host.fork(), self._kernel_factory, caps=self.caps, clock=self._clock)
        forked.tracer = self.tracer
        return forked

    def knows(self, name: str) -> bool:
        """Whether ``name`` is a tool of this service: the selected caps' tools, plus the semantic
        tools and `sequence`, which the `js` face accepts unadvertised (contract 1.1)."""
        if name in ("js", "js_reset"):
            return "js" in self.caps
        return name in (*SEMANTIC_TOOLS, "sequence")

    @property
    def platform(self) -> str:
        return self.host.platform

    def tools(self) -> list[ToolSpec]:
        """The advertised tools: `js` and `js_reset` where the kernel runs; the semantic tools
        and `sequence` only when asked for (they are accepted when called directly anyway)."""
        specs: list[ToolSpec] = []
        if "js" in self.caps and self._kernel_factory is not None:
            specs.append(ToolSpec("js", jstool.JS_DESCRIPTION, jstool.JS_SCHEMA, jstool.JS_ANNOTATIONS))
            specs.append(
                ToolSpec(
                    "js_reset",
                    "Reset the JavaScript session: interrupt a running cell and discard every binding.",
                    jstool.JS_RESET_SCHEMA,
                    jstool.JS_RESET_ANNOTATIONS,
                )
            )
        if self._advertise_semantic:
            host_specs = self.host.tool_specs()
            specs.extend(ToolSpec(n, *host_specs[n]) for n in SEMANTIC_TOOLS)
            schemas = {n: host_specs[n][1] for n in SEMANTIC_TOOLS}
            specs.append(
                ToolSpec(
                    "sequence",
                    "Run 1-256 mutating steps against one app, then observe it once.",
                    sequence_schema(schemas),
                    {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
                )
            )
        return specs

    async def call(self, name: str, args: object, *, progress: Progress | None = None) -> ToolResult:
        """One tool call; always a result, never an exception (the host's own net is the first one).

        ``progress`` hears the count of native calls as a `js` cell makes them."""
        try:
            return await self._call(name, args, progress)
        except Exception as exc:
            return unexpected_error_result(exc, where=f"the {name!r} tool", dispatched=True)

    async def _call(self, name: str, args: object, progress: Progress | None) -> ToolResult:
        if not self.knows(name):
            return _error(f"Unknown tool: {name}")
        if name == "js":
            return await self._js(args, progress)
        handlers: dict[str, Callable[[object], Awaitable[ToolResult]]] = {
            "js_reset": self._js_reset,
            "sequence": self._sequence,
        }
        handler = handlers.get(name)
        if handler is not None:
            return await handler(args)
        if name in SEMANTIC_TOOLS:
            if not isinstance(args, dict):
                return _error(f"{name} requires an object of arguments.")
            return await self.host.call_tool(name, args)
        return _error(f"Unknown tool: {name}")

    async def _js(self, args: object, progress: Progress | None) -> ToolResult:
        try:
            request = jstool.parse_js(args)
        except jstool.JsArgumentError as err:
            return _error(str(err))
        except Exception as exc:  # a parser bug: nothing ran yet
            return unexpected_error_result(exc, where="validating js", dispatched=False)
        if self._kernel_factory is None:
            return _error("This Computer Use host does not provide an isolated JavaScript kernel.")
        if self._kernel is None:
            self._kernel = self._kernel_factory(self.host)
        if self.tracer is None:
            return await self._run_kernel(request, progress)
        cell, started = self.tracer.cell_start(request.code, request.title), time.monotonic()
        result = _error("The cell was cancelled before it returned.")  # what the trace says if it is
        try:
            result = await self._run_kernel(request, progress)
        finally:
            try:
                self.tracer.cell_end(cell, request.code, request.title, result, time.monotonic() - started)
            except Exception:  # a full disk must not fail the cell
                logger.exception("recording the trace of a cell failed")
        return result

    async def _run_kernel(self, request: jstool.JsRequest, progress: Progress | None) -> ToolResult:
        assert self._kernel is not None
        if progress is None:
            return await self._kernel.run(request.code, timeout_ms=request.timeout_ms)
        return await self._kernel.run(request.code, timeout_ms=request.timeout_ms, progress=progress)

    async def _js_reset(self, args: object) -> ToolResult:
        try:
            jstool.parse_js_reset(args)
        except jstool.JsArgumentError as err:
            return _error(str(err))
        if self._kernel is not None:
            await self._kernel.reset()
        return ToolResult((TextBlock(jstool.JS_RESET_DONE),))

    async def _sequence(self, args: object) -> ToolResult:
        schemas = {n: spec[1] for n, spec in self.host.tool_specs().items()}
        try:
            app, steps = parse_sequence(args, schemas, self.host.validate)
        except SequenceArgumentError as err:
            return _error(str(err))
        except Exception as exc:  # a parser bug: nothing ran yet
            return unexpected_error_result(exc, where="validating sequence", dispatched=False)
        # The gates run once; every step then goes to the one pinned process (contract 1.5).
        async with self.host.pinned(app) as pin:
            if pin.refusal is not None:
                return pin.refusal
            return await run_sequence(app, steps, pin.call_tool, clock=self._clock)

    async def close(self) -> None:
        """End the kernel, then release the executor (its X and bus connections)."""
        try:
            if self._kernel is not None:
                await self._kernel.close()
                self._kernel = None
        finally:
            if self._on_close is not None:
                on_close, self._on_close = self._on_close, None
                on_close()
