"""One agent's persistent ``js`` session: queueing, limits, counters and the worker's lifecycle.

The host side of native-contract.md sections 1.2, 1.3, 5.4 and 5.5. A :class:`KernelSession`
runs one cell at a time in a worker process (:mod:`deskhand.kernel.worker`), forwards the
cell's native calls to a :class:`ToolCaller` one at a time, and enforces the per-cell limits.
Timeout, cancellation, reset and every protocol or limit violation end the cell with the
contract's text, let the one in-flight native call finish, start nothing queued, kill the
worker and discard its bindings; the next cell gets a fresh worker. A spare worker, started
in the background as soon as a worker is in use (and again after each discard), has run no
cell (so it holds no bindings) and becomes that fresh worker, so the first cell after a reset
or a cancellation does not wait for a start.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

import anyio

from deskhand.core import deadline as call_deadline
from deskhand.core.counters import CallCounters
from deskhand.core.platform import from_sys_platform, js_target
from deskhand.host.result import Block, ImageBlock, TextBlock, ToolResult
from deskhand.host.tools import TOOL_NAMES, TOOLS
from deskhand.kernel import limits
from deskhand.kernel.frames import FrameError
from deskhand.kernel.limits import MAX_CODE_BYTES, MAX_NATIVE_CALLS, RESET_DONE
from deskhand.kernel.process import WorkerProcess

MAX_BLOCKS: Final = 128
MAX_OUTPUT_BYTES: Final = 16 * 1024 * 1024
DEFAULT_TIMEOUT_S: Final = limits.DEFAULT_TIMEOUT_MS / 1000
MAX_TIMEOUT_S: Final = limits.MAX_TIMEOUT_MS / 1000
#: The 11 native names a cell may call (``INVOCABLE_TOOLS``): the host's tool registry.
INVOCABLE: Final = frozenset(TOOL_NAMES)

CALL_LIMIT: Final = (
    f"Computer Use JavaScript exceeded its action limit: a cell makes at most {MAX_NATIVE_CALLS} native calls. "
    "Bindings were reset; observe the app, then split the work over several js calls."
)
ALREADY_RUNNING: Final = "A Computer Use JavaScript cell is already running."
INVALID_RUN: Final = f"Invalid Computer Use JavaScript code or timeout (maximum {MAX_TIMEOUT_S:g} seconds)."
TIMED_OUT: Final = "Computer Use JavaScript timed out. Bindings were reset; observe the app before continuing."
CANCELLED: Final = "Computer Use JavaScript cancelled. Bindings were reset; observe the app before continuing."
CANCELLED_EARLIER: Final = (
    "The previous Computer Use JavaScript cell was cancelled. Bindings were reset; observe the app before continuing."
)
RESET_ACTIVE: Final = "Computer Use JavaScript reset. Bindings were discarded."
RESET_QUEUED: Final = "Computer Use JavaScript was reset before this queued cell started."
INVALID_OPERATION: Final = "Computer Use JavaScript exceeded its action limit or requested an invalid operation."
INVALID_CONTENT: Final = "Computer Use JavaScript emitted invalid content."
OUTPUT_LIMIT: Final = "Computer Use JavaScript exceeded the output limit."
MEMORY_LIMIT: Final = "Computer Use JavaScript exceeded its memory budget."
OUT_OF_MEMORY: Final = (
    "Computer Use JavaScript ran out of memory. The worker and its bindings were reset; "
    "observe the app before continuing."
)
UNRESPONSIVE: Final = "Computer Use JavaScript left an unresponsive background task."
INVALID_PROTOCOL: Final = "Computer Use JavaScript kernel sent invalid protocol data."
IDLE_SUFFIX: Final = " Bindings were reset. Select the app again."

_IMAGE_MIME = re.compile(r"^image/(png|jpeg|webp)$")
_MAX_SAFE_INTEGER = 2**53 - 1
_BOOTSTRAP = Path(__file__).resolve().parent / "js" / "cua.js"


class ToolCaller(Protocol):
    """The kernel's one dependency: a guarded dispatcher for the 11 native names."""

    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult: ...


@dataclass(frozen=True, slots=True)
class KernelLimits:
    #: The RSS soft cap of a worker, checked every ``health_check_s``.
    max_rss_bytes: int = 768 * 1024 * 1024
    health_check_s: float = 1.0
    #: An idle worker that does not answer a ping within this time is discarded.
    pong_timeout_s: float = 2.0


@dataclass(frozen=True, slots=True)
class CellResult:
    """What one ``js`` call returns: emitted blocks in order, then the error text on failure.

    ``structured`` holds the contract's counters (``nativeCallsStarted``, ...,
    ``bindingsReset``, ``recovery``) on a failed cell, and is None on success.
    """

    content: tuple[Block, ...]
    is_error: bool = False
    structured: dict[str, object] | None = None

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


def _error(text: str) -> CellResult:
    return CellResult((TextBlock(text),), is_error=True)


@dataclass(eq=False, slots=True)
class _Cell:
    id: int
    result: asyncio.Future[CellResult]
    counters: CallCounters = field(default_factory=CallCounters)
    content: list[Block] = field(default_factory=list)
    output_bytes: int = 0
    calls: int = 0
    requests: set[int] = field(default_factory=set)
    accepting: bool = True
    dispatch: asyncio.Lock = field(default_factory=asyncio.Lock)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    deadline: asyncio.TimerHandle | None = None


@dataclass(eq=False, slots=True)
class _Kernel:
    worker: WorkerProcess
    ready: asyncio.Future[None]
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    ping: tuple[int, float] | None = None


class KernelSession:
    """A persistent, isolated JavaScript session bound to one :class:`ToolCaller`.

    Args:
        caller: dispatches the cell's native calls (the host, or a fake in tests).
        target: ``cua.computer.target``; by default the caller's ``platform`` attribute if it
            has one, else ``'mac'`` on macOS and ``'linux'`` elsewhere.
        limits: the memory watchdog and health-check settings.
    """

    def __init__(self, caller: ToolCaller, *, target: str | None = None, limits: KernelLimits | None = None) -> None:
        self.caller = caller
        self.target = target or _default_target(caller)
        self.limits = limits or KernelLimits()
        self._kernel: _Kernel | None = None
        #: Started after a worker is discarded; it has run no cell and becomes the next worker.
        self._spare: _Kernel | None = None
        self._spawning: asyncio.Task[None] | None = None
        self._closing = False
        self._cell: _Cell | None = None
        self._queue = asyncio.Lock()
        self._waiting = 0
        self._epoch = 0
        self._next_cell = 0
        self._idle_failure: str | None = None
        #: Set when a caller gave up on its cell: nobody read the cancellation text, so the next
        #: cell's result starts with it (MCP answers no cancelled request).
        self._unread_cancel = False
        self._reaping: set[asyncio.Task[None]] = set()
        self._bootstrap = _BOOTSTRAP.read_text("utf-8")

    @property
    def busy(self) -> bool:
        return self._cell is not None

    @property
    def waiting(self) -> int:
        """Cells waiting for the one running now (for tests and diagnostics)."""
        return self._waiting

    @property
    def worker_pid(self) -> int | None:
        return self._kernel.worker.pid if self._kernel is not None else None

    @property
    def spare_pid(self) -> int | None:
        return self._spare.worker.pid if self._spare is not None else None

    # -- public API --------------------------------------------------------------------
    async def run(self, code: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, queue: bool = True) -> CellResult:
        """Run one cell. With ``queue=False`` a cell that finds another running is rejected."""
        if (
            not isinstance(code, str)
            or len(code.encode("utf-8", "surrogatepass")) > MAX_CODE_BYTES
            or not 0 < timeout_s <= MAX_TIMEOUT_S
        ):
            return _error(INVALID_RUN)
        if not queue and (self._cell is not None or self._queue.locked()):
            return _error(ALREADY_RUNNING)
        epoch = self._epoch
        self._waiting += 1
        try:
            await self._queue.acquire()
        finally:
            self._waiting -= 1
        try:
            if epoch != self._epoch:
                return _error(RESET_QUEUED)
            return await self._run(code, timeout_s)
        finally:
            self._queue.release()

    async def cancel(self) -> None:
        """Cancel the running cell, if any; it reports the cancellation text."""
        cell = self._cell
        if cell is not None:
            self._finish(cell, CANCELLED, invalidate=True)

    async def reset(self) -> CellResult:
        """``js_reset``: end the running cell, reject queued ones, discard the worker."""
        self._epoch += 1
        self._idle_failure = None
        self._unread_cancel = False
        cell = self._cell
        if cell is not None:
            self._finish(cell, RESET_ACTIVE, invalidate=True)
        self._discard()
        if cell is not None:
            await cell.result
        await self._settle_reaping()
        if self._spawning is not None:
            await asyncio.shield(self._spawning)  # the spare's process exists when reset returns
        return CellResult((TextBlock(RESET_DONE),))

    async def close(self) -> None:
        """Stop everything and wait until every worker, the spare too, is gone and its directory removed."""
        self._epoch += 1
        self._closing = True
        try:
            cell = self._cell
            if cell is not None:
                self._finish(cell, RESET_ACTIVE, invalidate=True)
                await cell.result
            async with self._queue:  # a cell still starting its worker has installed it
                self._discard()
                if self._spawning is not None:
                    await asyncio.shield(self._spawning)
                spare, self._spare = self._spare, None
                if spare is not None:
                    self._dispose(spare)
                await self._settle_reaping()
        finally:
            self._closing = False

    # -- cells -------------------------------------------------------------------------
    async def _run(self, code: str, timeout_s: float) -> CellResult:
        if self._idle_failure is not None:
            text, self._idle_failure = self._idle_failure, None
            return _error(text)
        loop = asyncio.get_running_loop()
        self._next_cell += 1
        cell = _Cell(self._next_cell, loop.create_future())
        self._cell = cell
        cell.deadline = loop.call_later(timeout_s, self._finish, cell, TIMED_OUT, True)
        try:
            kernel = await self._start()
            if cell.accepting:
                await asyncio.shield(kernel.ready)
            if cell.accepting:
                kernel.worker.send({"type": "run", "cellId": cell.id, "code": code, "timeoutMs": int(timeout_s * 1000)})
        except (OSError, RuntimeError, EOFError) as error:
            self._finish(cell, f"Computer Use JavaScript startup failed: {error}", invalidate=True)
        except asyncio.CancelledError:
            await self._cancelled(cell)
            raise
        try:
            result = await asyncio.shield(cell.result)
        except asyncio.CancelledError:
            await self._cancelled(cell)
            raise
        if self._unread_cancel:
            self._unread_cancel = False
            result = CellResult((TextBlock(CANCELLED_EARLIER), *result.content), result.is_error, result.structured)
        return result

    async def _cancelled(self, cell: _Cell) -> None:
        """The caller gave up on the cell (MCP ``notifications/cancelled``, a task cancel).

        The worker is killed now and the in-flight native call drained, shielded from the
        caller's cancellation, so the caller's session queue is held until nothing of the
        cell runs any more and the next cell starts at once on a fresh worker.
        """
        self._finish(cell, CANCELLED, invalidate=True)
        self._unread_cancel = True
        with anyio.CancelScope(shield=True):
            await asyncio.shield(cell.result)

    def _finish(self, cell: _Cell, error: str | None, invalidate: bool = False) -> None:
        if not cell.accepting:
            return
        cell.accepting = False
        if cell.deadline is not None:
            cell.deadline.cancel()
        if invalidate:
            cell.counters.bindings_reset = True
            self._discard()
        task = asyncio.get_running_loop().create_task(self._complete(cell, error))
        self._reaping.add(task)
        task.add_done_callback(self._reaping.discard)

    async def _complete(self, cell: _Cell, error: str | None) -> None:
        # A native call already being injected cannot be undone: drain it; queued ones never start.
        if cell.tasks:
            await asyncio.gather(*cell.tasks, return_exceptions=True)
        if self._cell is cell:
            self._cell = None
        content = tuple(cell.content) + ((TextBlock(error),) if error else ())
        structured = cell.counters.to_json() if error else None
        if cell.result.done():  # a caller that gave up twice cancelled the future itself
            return
        cell.result.set_result(CellResult(content, is_error=bool(error), structured=structured))

    # -- native calls ------------------------------------------------------------------
    def _invoke(self, kernel: _Kernel, cell: _Cell, message: dict[str, object]) -> None:
        request_id, name, args = message.get("requestId"), message.get("name"), message.get("args")
        cell.calls += 1
        if (
            not isinstance(request_id, int)
            or isinstance(request_id, bool)
            or abs(request_id) > _MAX_SAFE_INTEGER
            or request_id in cell.requests
            or name not in INVOCABLE
            or not isinstance(args, dict)
        ):
            self._finish(cell, INVALID_OPERATION, invalidate=True)
            return
        if cell.calls > MAX_NATIVE_CALLS:
            self._finish(cell, CALL_LIMIT, invalidate=True)
            return
        cell.requests.add(request_id)
        task = asyncio.get_running_loop().create_task(self._call(kernel, cell, request_id, str(name), args))
        cell.tasks.add(task)

    async def _call(self, kernel: _Kernel, cell: _Cell, request_id: int, name: str, args: dict[str, object]) -> None:
        async with cell.dispatch:
            if not cell.accepting:
                return
            mutates = TOOLS[name].mutates
            cell.counters.start(mutates=mutates)
            try:
                # the native call gets the cell's remaining time as its deadline (core.deadline)
                left = cell.deadline.when() - asyncio.get_running_loop().time() if cell.deadline else None
                with call_deadline.within(left) if left is not None else contextlib.nullcontext():
                    result = await self.caller.call_tool(name, args)
            except Exception as error:  # any transport failure becomes the JS error text
                cell.counters.threw(mutates=mutates)
                if cell.accepting:
                    kernel.worker.send(
                        {"type": "response", "cellId": cell.id, "requestId": request_id, "error": str(error)}
                    )
                return
            cell.counters.finish(is_error=result.is_error, not_dispatched=result.not_dispatched, mutates=mutates)
            if cell.accepting:
                reply = {"type": "response", "cellId": cell.id, "requestId": request_id, "result": result_json(result)}
                kernel.worker.send(reply)

    def _emit(self, cell: _Cell, content: object) -> None:
        block = _block(content)
        if block is None:
            self._finish(cell, INVALID_CONTENT, invalidate=True)
            return
        cell.output_bytes += len(json.dumps(content, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
        if cell.output_bytes > MAX_OUTPUT_BYTES or len(cell.content) >= MAX_BLOCKS:
            self._finish(cell, OUTPUT_LIMIT, invalidate=True)
            return
        cell.content.append(block)

    # -- the worker --------------------------------------------------------------------
    async def _start(self) -> _Kernel:
        if self._kernel is not None:
            return self._kernel
        if self._spawning is not None:
            await asyncio.shield(self._spawning)
        kernel, self._spare = self._spare, None
        if kernel is None:
            kernel = await self._launch()
        self._kernel = kernel
        self._ensure_spare()  # ready before a reset or cancellation needs it
        return kernel

    async def _launch(self) -> _Kernel:
        worker = await WorkerProcess.spawn()
        loop = asyncio.get_running_loop()
        kernel = _Kernel(worker, loop.create_future())
        kernel.ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        kernel.tasks = [
            loop.create_task(self._read(kernel)),
            loop.create_task(worker.drain_stderr()),
            loop.create_task(self._health(kernel)),
        ]
        worker.send({"type": "init", "bootstrap": self._bootstrap, "target": self.target})
        return kernel

    async def _read(self, kernel: _Kernel) -> None:
        while True:
            try:
                message = await kernel.worker.receive()
            except FrameError:
                self._failed(kernel, INVALID_PROTOCOL)
                return
            except (EOFError, ConnectionError):
                await asyncio.sleep(0.05)  # let the stderr tail arrive
                how = _exit_text(kernel.worker.process.returncode)
                self._failed(kernel, f"Computer Use JavaScript kernel exited ({how}). {kernel.worker.stderr_text()}")
                return
            kind = message["type"]
            if kind == "ready":
                if not kernel.ready.done():
                    kernel.ready.set_result(None)
            elif kind == "pong":
                if kernel.ping is not None and message.get("nonce") == kernel.ping[0]:
                    kernel.ping = None
            else:
                self._receive(kernel, message)

    def _receive(self, kernel: _Kernel, message: dict[str, object]) -> None:
        cell = self._cell
        if cell is None or not cell.accepting or message.get("cellId") != cell.id or self._kernel is not kernel:
            return
        kind = message["type"]
        if kind == "done":
            error = message.get("error")
            if message.get("outOfMemory") is True:
                self._finish(cell, OUT_OF_MEMORY, invalidate=True)
                return
            self._finish(cell, str(error) if error else None)
        elif kind == "emit":
            self._emit(cell, message.get("content"))
        elif kind == "invoke":
            self._invoke(kernel, cell, message)

    async def _health(self, kernel: _Kernel) -> None:
        loop = asyncio.get_running_loop()
        nonce = 0
        while True:
            await asyncio.sleep(self.limits.health_check_s)
            rss = kernel.worker.rss_bytes()
            if rss is not None and rss > self.limits.max_rss_bytes:
                self._failed(kernel, MEMORY_LIMIT)
                return
            if self._cell is not None or not kernel.ready.done():
                kernel.ping = None
            elif kernel.ping is not None:
                if loop.time() - kernel.ping[1] > self.limits.pong_timeout_s:
                    self._failed(kernel, UNRESPONSIVE)
                    return
            else:
                nonce += 1
                kernel.ping = (nonce, loop.time())
                kernel.worker.send({"type": "ping", "nonce": nonce})

    def _failed(self, kernel: _Kernel, text: str) -> None:
        if not kernel.ready.done():
            kernel.ready.set_exception(RuntimeError(text))
        if kernel is self._spare:  # it held no bindings: nothing to report
            self._spare = None
            self._dispose(kernel)
            return
        if self._kernel is not kernel:
            return
        cell = self._cell
        if cell is not None and cell.accepting:
            self._finish(cell, text, invalidate=True)
        else:
            self._idle_failure = text + IDLE_SUFFIX
            self._discard()

    def _discard(self) -> None:
        kernel, self._kernel = self._kernel, None
        if kernel is None:
            return
        self._dispose(kernel)
        self._ensure_spare()

    def _ensure_spare(self) -> None:
        if not self._closing and self._spare is None and self._spawning is None:
            self._spawning = asyncio.get_running_loop().create_task(self._prepare_spare())

    async def _prepare_spare(self) -> None:
        try:
            spare = await self._launch()
        except (OSError, RuntimeError):
            return  # the next cell starts its own worker and reports why that fails
        finally:
            self._spawning = None
        self._spare = spare

    def _dispose(self, kernel: _Kernel) -> None:
        kernel.worker.kill()
        if not kernel.ready.done():
            kernel.ready.set_exception(RuntimeError("Computer Use JavaScript kernel stopped."))
        current = asyncio.current_task()
        for task in kernel.tasks:
            if task is not current:
                task.cancel()
        reap = asyncio.get_running_loop().create_task(self._reap(kernel))
        self._reaping.add(reap)
        reap.add_done_callback(self._reaping.discard)

    async def _reap(self, kernel: _Kernel) -> None:
        await kernel.worker.reap()
        for task in kernel.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _settle_reaping(self) -> None:
        while self._reaping:
            await asyncio.gather(*list(self._reaping), return_exceptions=True)


def result_json(result: ToolResult) -> dict[str, object]:
    """The JSON a cell's facade receives for one native call (``ReplToolResult``)."""
    content: list[dict[str, object]] = []
    for block in result.content:
        if isinstance(block, TextBlock):
            content.append({"type": "text", "text": block.text})
        else:
            data = base64.b64encode(block.data).decode("ascii")
            content.append({"type": "image", "data": data, "mimeType": block.mime_type})
    out: dict[str, object] = {"content": content}
    if result.is_error:
        out["isError"] = True
    if result.not_dispatched:
        out["nativeCallNotDispatched"] = True
    if result.native_error is not None:
        out["nativeError"] = result.native_error.to_json()
    for key in ("app", "apps", "result", "windows"):
        if key in result.structured:
            out[key] = result.structured[key]
    return out


def _block(content: object) -> Block | None:
    if not isinstance(content, dict):
        return None
    kind = content.get("type")
    if kind == "text":
        text = content.get("text")
        return TextBlock(text) if isinstance(text, str) else None
    if kind == "image":
        data, mime = content.get("data"), content.get("mimeType")
        if not isinstance(data, str) or not isinstance(mime, str) or not _IMAGE_MIME.match(mime):
            return None
        try:
            return ImageBlock(base64.b64decode(data, validate=True), mime)
        except (binascii.Error, ValueError):
            return None
    return None


def _default_target(caller: object) -> str:
    platform = getattr(caller, "platform", None)
    if isinstance(platform, str) and platform:
        return js_target(platform)
    return js_target(from_sys_platform() or "linux")


def _exit_text(code: int | None) -> str:
    """A worker's end in words: ``killed by SIGKILL`` for a signal, else its exit code."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
