"""A holder of the session queue and its calls: a ``js`` cell (``HeldQueue``), a ``sequence`` batch
(``PinnedApp``). Both are made by :class:`deskhand.host.host.Host` and run every call through its gates
(``Gates``: the host's own steps, named here so this module does not import the host).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol

from deskhand.backends.base import RunningApp
from deskhand.core.counters import CallCounters
from deskhand.core.errors import ArgumentError, DeskhandError
from deskhand.host import validate as v
from deskhand.host.result import ToolResult, error_result

__all__ = ("PIN_REFUSED_TEXT", "QUEUE_RELEASED_TEXT", "Gates", "HeldQueue", "PinnedApp")

QUEUE_RELEASED_TEXT = "Computer Use cancelled before dispatch: this caller no longer holds the session queue."
PIN_REFUSED_TEXT = "Computer Use cancelled before dispatch: the pinned app did not pass the gates."


class Gates(Protocol):
    """The steps of ``Host`` that a holder's calls go through."""

    async def _traced(
        self, name: str, args: object, call: Awaitable[ToolResult], *, in_cell: bool = False
    ) -> ToolResult: ...
    def _start(self, name: str, args: object, counters: CallCounters | None) -> v.Request | ToolResult: ...
    def _finish(self, result: ToolResult, counters: CallCounters | None) -> ToolResult: ...
    async def _run(
        self,
        request: v.Request,
        counters: CallCounters | None,
        *,
        target: RunningApp | None = None,
        resolved: dict[str, RunningApp] | None = None,
    ) -> ToolResult: ...


class HeldQueue:
    """The session queue while a caller (a ``js`` cell) holds it: calls run at once, in the caller's order."""

    def __init__(self, host: Gates) -> None:
        self._host = host
        #: False once the holder released the queue; later calls are refused before dispatch.
        self.active = True
        #: selector -> the process the holder's calls resolved it to (``Host`` module docstring)
        self.resolved: dict[str, RunningApp] = {}

    async def call_tool(
        self, name: str, args: dict[str, object], *, counters: CallCounters | None = None
    ) -> ToolResult:
        return await self._host._traced(name, args, self._call_tool(name, args, counters), in_cell=True)

    async def _call_tool(self, name: str, args: dict[str, object], counters: CallCounters | None) -> ToolResult:
        request = self._host._start(name, args, counters)
        if isinstance(request, ToolResult):
            return request
        if not self.active:
            return self._host._finish(
                error_result(DeskhandError(QUEUE_RELEASED_TEXT, code="cu_lock_held", dispatched=False)), counters
            )
        return await self._host._run(request, counters, resolved=self.resolved)


class PinnedApp:
    """One resolved process that a batch's calls all go to, while its holder keeps the session queue.

    Made by :meth:`Host.pinned`. Calls are validated like any other, must name the pinned
    selector as ``app``, and are dispatched without resolving again; the executor re-proves the
    pinned identity before each event (``stale_process`` after a restart).
    """

    def __init__(self, host: Gates, selector: str, counters: CallCounters | None) -> None:
        self._host = host
        self._counters = counters
        self.selector = selector
        #: The pinned process, once the gates passed.
        self.target: RunningApp | None = None
        #: The gates' error result when they refused; then nothing is ever dispatched.
        self.refusal: ToolResult | None = None
        #: False once the holder released the queue; later calls are refused before dispatch.
        self.active = True

    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult:
        return await self._host._traced(name, args, self._call_tool(name, args))

    async def _call_tool(self, name: str, args: dict[str, object]) -> ToolResult:
        request = self._host._start(name, args, self._counters)
        if isinstance(request, ToolResult):
            return request
        refusal: DeskhandError | None = None
        if not self.active:
            refusal = DeskhandError(QUEUE_RELEASED_TEXT, code="cu_lock_held", dispatched=False)
        elif self.target is None:
            refusal = DeskhandError(PIN_REFUSED_TEXT, code="cu_lock_held", dispatched=False)
        elif isinstance(request, v.ListApps | v.ListWindows) or request.app != self.selector.strip():
            refusal = ArgumentError(f"{name} is pinned to the app '{self.selector.strip()}'.")
        if refusal is not None:
            return self._host._finish(error_result(refusal), self._counters)
        return await self._host._run(request, self._counters, target=self.target)
