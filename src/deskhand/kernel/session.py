"""One agent's persistent ``js`` session: queueing, limits, counters and the worker's lifecycle.

The host side of native-contract.md sections 1.2, 1.3, 5.4 and 5.5. A :class:`KernelSession`
runs one cell at a time in a worker process (:mod:`deskhand.kernel.worker`), forwards the
cell's native calls to a :class:`ToolCaller` one at a time, and enforces the per-cell limits
(:mod:`deskhand.kernel.cell`; the texts are in :mod:`deskhand.kernel.texts`).
Timeout, cancellation, reset and every protocol or limit violation end the cell with the
contract's text, let the one in-flight native call finish, start nothing queued, kill the
worker and discard its bindings; the next cell gets a fresh worker. A spare worker, started
in the background as soon as a worker is in use (and again after each discard), has run no
cell (so it holds no bindings) and becomes that fresh worker, so the first cell after a reset
or a cancellation does not wait for a start.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Final

import anyio

from deskhand.core.platform import from_sys_platform, js_target
from deskhand.host.result import TextBlock
from deskhand.kernel import limits
from deskhand.kernel.cell import INVOCABLE, Cell, CellResult, ToolCaller, failed
from deskhand.kernel.driver import Kernel, KernelLimits
from deskhand.kernel.limits import MAX_CODE_BYTES, RESET_DONE
from deskhand.kernel.texts import (
    ALREADY_RUNNING,
    BINDINGS_GONE,
    CANCELLED,
    CANCELLED_EARLIER,
    IDLE_SUFFIX,
    INVALID_RUN,
    OUT_OF_MEMORY,
    RESET_ACTIVE,
    RESET_QUEUED,
    TIMED_OUT,
)

__all__ = (
    "CANCELLED", "CANCELLED_EARLIER", "DEFAULT_TIMEOUT_S", "INVALID_RUN", "INVOCABLE", "MAX_CODE_BYTES",
    "MAX_TIMEOUT_S", "OUT_OF_MEMORY", "RESET_ACTIVE", "RESET_DONE", "RESET_QUEUED", "TIMED_OUT", "CellResult",
    "KernelLimits", "KernelSession", "ToolCaller",
)  # fmt: skip

DEFAULT_TIMEOUT_S: Final = limits.DEFAULT_TIMEOUT_MS / 1000
MAX_TIMEOUT_S: Final = limits.MAX_TIMEOUT_MS / 1000
_BOOTSTRAP = Path(__file__).resolve().parent / "js" / "cua.js"


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
        self._kernel: Kernel | None = None
        #: Started after a worker is discarded; it has run no cell and becomes the next worker.
        self._spare: Kernel | None = None
        self._spawning: asyncio.Task[None] | None = None
        self._closing = False
        self._cell: Cell | None = None
        self._queue = asyncio.Lock()
        self._waiting = 0
        self._epoch = 0
        self._next_cell = 0
        self._idle_failure: str | None = None
        #: Set when a caller gave up on its cell: nobody read the cancellation text, so the next
        #: cell's result starts with it (MCP answers no cancelled request).
        self._unread_cancel = False
        #: How the last discarded worker ended ("cell 3 ended: ..."), while its successor runs:
        #: a cell that then names an unknown binding is told the bindings went with that worker.
        self._lost: str | None = None
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
            return failed(INVALID_RUN)
        if not queue and (self._cell is not None or self._queue.locked()):
            return failed(ALREADY_RUNNING)
        epoch = self._epoch
        self._waiting += 1
        try:
            await self._queue.acquire()
        finally:
            self._waiting -= 1
        try:
            if epoch != self._epoch:
                return failed(RESET_QUEUED)
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
        self._lost = "js_reset"
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
            return failed(text)
        loop = asyncio.get_running_loop()
        self._next_cell += 1
        cell = Cell(self._next_cell, loop.create_future())
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

    async def _cancelled(self, cell: Cell) -> None:
        """The caller gave up on the cell (MCP ``notifications/cancelled``, a task cancel).

        The worker is killed now and the in-flight native call drained, shielded from the
        caller's cancellation, so the caller's session queue is held until nothing of the
        cell runs any more and the next cell starts at once on a fresh worker.
        """
        self._finish(cell, CANCELLED, invalidate=True)
        self._unread_cancel = True
        with anyio.CancelScope(shield=True):
            await asyncio.shield(cell.result)

    def _finish(self, cell: Cell, error: str | None, invalidate: bool = False) -> None:
        if not cell.accepting:
            return
        cell.accepting = False
        if error is not None:  # the in-flight native call stops at its next deadline check
            cell.stop.set()
        if cell.deadline is not None:
            cell.deadline.cancel()
        if invalidate:
            cell.counters.bindings_reset = True
            self._lost = f"cell {cell.id} ended ({_first_sentence(error)})" if error else f"cell {cell.id} ended"
            self._discard()
        task = asyncio.get_running_loop().create_task(self._complete(cell, error))
        self._reaping.add(task)
        task.add_done_callback(self._reaping.discard)

    async def _complete(self, cell: Cell, error: str | None) -> None:
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
    def _invoke(self, kernel: Kernel, cell: Cell, message: dict[str, object]) -> None:
        call = cell.check_call(message)
        if isinstance(call, str):
            self._finish(cell, call, invalidate=True)
            return
        task = asyncio.get_running_loop().create_task(cell.call(self.caller, kernel.worker.send, *call))
        cell.tasks.add(task)

    def _emit(self, cell: Cell, content: object) -> None:
        error = cell.emit(content)
        if error is not None:
            self._finish(cell, error, invalidate=True)

    # -- the worker --------------------------------------------------------------------
    async def _start(self) -> Kernel:
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

    async def _launch(self) -> Kernel:
        return await Kernel.launch(
            self._bootstrap,
            self.target,
            self.limits,
            receive=self._receive,
            failed=self._failed,
            busy=lambda: self._cell is not None,
        )

    def _receive(self, kernel: Kernel, message: dict[str, object]) -> None:
        cell = self._cell
        if cell is None or not cell.accepting or message.get("cellId") != cell.id or self._kernel is not kernel:
            return
        kind = message["type"]
        if kind == "done":
            error = message.get("error")
            if message.get("outOfMemory") is True:
                self._finish(cell, OUT_OF_MEMORY, invalidate=True)
                return
            text = str(error) if error else None
            if text is not None and self._lost is not None and "is not defined" in text:
                text = text.rstrip().removesuffix(".") + "." + BINDINGS_GONE.format(why=self._lost)
            self._finish(cell, text)
        elif kind == "emit":
            self._emit(cell, message.get("content"))
        elif kind == "invoke":
            self._invoke(kernel, cell, message)

    def _failed(self, kernel: Kernel, text: str) -> None:
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
            self._lost = f"the worker ended between cells ({_first_sentence(text)})"
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

    def _dispose(self, kernel: Kernel) -> None:
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

    async def _reap(self, kernel: Kernel) -> None:
        await kernel.worker.reap()
        for task in kernel.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _settle_reaping(self) -> None:
        while self._reaping:
            await asyncio.gather(*list(self._reaping), return_exceptions=True)


def _default_target(caller: object) -> str:
    platform = getattr(caller, "platform", None)
    if isinstance(platform, str) and platform:
        return js_target(platform)
    return js_target(from_sys_platform() or "linux")


def _first_sentence(text: str) -> str:
    """``text`` up to its first full stop that ends a sentence (a worker's stderr tail left out)."""
    return text.partition(". ")[0].rstrip(".")
