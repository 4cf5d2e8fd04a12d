"""The host: one gate for every native call (native-contract.md 1.2, 4.2 and 6.1, adapted to Linux).

Gate order for one call:

1. static parse of the arguments (:mod:`deskhand.host.validate`): ``bad_args``, ``unknown_key`` and
   ``grant_flag_required`` (the system-key grant is the session's, given by the user when starting
   deskhand; no tool argument can set it) — before the queue, so a bad call never waits;
2. the session's FIFO queue (a ``js`` cell holds it for its whole run; its inner calls use the held
   queue and never re-enter it);
3. ``resolve(app)`` to exactly one running app (``list_apps`` resolves nothing: discovery does not
   authorize);
4. the deny policy on the *resolved* identity: ``app_denied``;
5. for mutating tools, a proven process identity; otherwise the call fails with a result-unknown
   error, as the contract classifies it ("did not prove the running process lifetime");
6. exactly one executor method, run in the host's thread (:mod:`deskhand.host.lane`).

Pre-dispatch refusals carry ``not_dispatched=True``; any other failure counts toward result-unknown.
Nothing is ever retried or replayed.

:meth:`Host.pinned` runs gates 3-5 once and then dispatches every call of a batch (``sequence``) to
that one resolved process without resolving again; the executor re-proves its identity before
each event, so a restarted app fails with ``stale_process`` instead of receiving the rest.

A ``js`` cell (:meth:`Host.session_lock`) remembers, per selector, the process its calls resolved
to; a later action of the same cell on that selector skips gate 3 (a listing of every app, or the
``/proc`` and X reads that prove a pid: most of an action's own cost in a loop of drags) and
goes to that process, which gates 4-5 already passed. The executor still proves the identity,
the window and its activation before each event. When that proof fails before anything was posted
(``process_gone``, ``stale_process``: the app exited or was relaunched since), the call runs the
gates again from resolve, so it ends as it would have without the memory (a relaunch said, a new
process never followed silently). Reads always resolve, and refresh the memory.

No exception escapes a call: an unexpected one (a bug) is logged with its traceback and becomes
an error result, not dispatched if it happened before the first executor call, else result-unknown.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

import anyio

from deskhand.backends.base import ActionResult, AppState, Executor, Platform, RunningApp
from deskhand.core.counters import CallCounters
from deskhand.core.errors import DeskhandError, NativeError
from deskhand.host import tools
from deskhand.host import validate as v
from deskhand.host.held import HeldQueue, PinnedApp
from deskhand.host.lane import Lane, check_cancelled
from deskhand.host.policy import AppPolicy
from deskhand.host.result import (
    ToolResult,
    action_result,
    error_result,
    list_apps_result,
    list_windows_result,
    state_result,
)
from deskhand.host.schemas import Schema

T = TypeVar("T")

__all__ = ("CallTracer", "HeldQueue", "Host", "PinnedApp", "unexpected_error_result")

logger = logging.getLogger(__name__)


#: Name selectors whose last resolution the host remembers.
_MAX_REMEMBERED: Final = 256
#: Refusals of a remembered process that send a cell's action through the gates again (module docstring).
_REGATE: Final = frozenset({"process_gone", "stale_process"})


class CallTracer(Protocol):
    """Where a traced session's native calls are recorded (``deskhand.trace.TraceRecorder``)."""

    def now(self) -> float: ...

    def call(
        self, name: str, args: dict[str, object], result: ToolResult, started: float, duration: float, *, in_cell: bool
    ) -> None: ...


def _unproven_message(selector: str) -> str:
    return (
        f"Resolving '{selector}' did not prove the running process lifetime. "
        "Observe the app with get_app_state before retrying."
    )


@dataclass(slots=True)
class _Progress:
    """How far one call got: once the executor was called, a failure leaves its effect unknown."""

    executor_called: bool = False


def unexpected_error_result(exc: Exception, *, where: str, dispatched: bool) -> ToolResult:
    """The safety net: log ``exc`` with its traceback and turn it into an error result.

    ``dispatched=False`` only when the failure happened before any native call; otherwise the
    call's effect is unknown (native-contract.md 4.2).
    """
    logger.error("unexpected error in %s", where, exc_info=exc)
    return error_result(exc, not_dispatched=not dispatched)


class Host:
    """The gate between callers (MCP server, js kernel bridge, Python SDK) and one Executor.

    One Host serves one session: it owns that session's FIFO queue and counters. Several hosts may
    share an executor. :meth:`fork` makes another session's host on the same executor, queue and
    thread: every call it resolves carries its session number (``RunningApp.session``), so what
    it observes (snapshots, handles, diffs, the key window) is its own.
    """

    def __init__(
        self,
        executor: Executor,
        *,
        policy: AppPolicy | None = None,
        system_keys_granted: bool = False,
    ) -> None:
        self.executor = executor
        self.platform: Platform = executor.platform
        self.policy = policy if policy is not None else AppPolicy.load()
        #: The user's session grant for system key combinations; never set from a tool argument.
        self.system_keys_granted = system_keys_granted
        #: Totals over the host's life, same rules as a cell's counters.
        self.counters = CallCounters()
        self._queue = anyio.Lock()
        #: the thread every executor call of this host runs in (``lane``)
        self._lane = Lane()
        #: name selector -> the process it last resolved to (a relaunch is said, never followed silently)
        self._resolved: dict[str, RunningApp] = {}
        #: Records every call when the session is traced (``deskhand serve --trace``).
        self.tracer: CallTracer | None = None
        #: this session's number: its observation state in the executor is keyed by it
        self.session = 0
        self._sessions = itertools.count(1)

    def fork(self) -> Host:
        """Another session's host: the same executor, policy, grant, queue and thread (calls of
        every session stay serialized), its own session number, counters and resolved names."""
        forked = Host(self.executor, policy=self.policy, system_keys_granted=self.system_keys_granted)
        forked._queue, forked._lane, forked._sessions = self._queue, self._lane, self._sessions
        forked.session = next(self._sessions)
        forked.tracer = self.tracer
        return forked

    # --- advertising and static checks ------------------------------------------------------

    def tool_specs(self) -> dict[str, tuple[str, Schema, dict[str, bool]]]:
        """name -> (description, input schema, annotations) of the 12 semantic tools."""
        return tools.tool_specs()

    def validate(self, name: str, args: dict[str, object]) -> None:
        """The static parse alone (for ``sequence``'s up-front check); raises the pre-dispatch error."""
        self._parse(name, args)

    def _parse(self, name: str, args: object) -> v.Request:
        return tools.parse_request(name, args, platform=self.platform, system_keys_granted=self.system_keys_granted)

    def queue_waiting(self) -> int:
        """How many callers wait for the session queue now (for tests and diagnostics)."""
        return self._queue.statistics().tasks_waiting

    # --- calls ---------------------------------------------------------------------------------

    async def call_tool(
        self, name: str, args: dict[str, object], *, counters: CallCounters | None = None
    ) -> ToolResult:
        """One semantic tool call through every gate, queued behind the session's other calls."""
        return await self._traced(name, args, self._call_tool(name, args, counters))

    async def _call_tool(self, name: str, args: dict[str, object], counters: CallCounters | None) -> ToolResult:
        request = self._start(name, args, counters)
        if isinstance(request, ToolResult):
            return request
        async with self._queue:
            return await self._run(request, counters)

    async def _traced(
        self, name: str, args: object, call: Awaitable[ToolResult], *, in_cell: bool = False
    ) -> ToolResult:
        """Await one call; record it when the session is traced (``in_cell``: through a cell's held queue)."""
        tracer = self.tracer
        if tracer is None:
            return await call
        started, clock = tracer.now(), time.monotonic()
        result = await call
        try:
            arguments = dict(args) if isinstance(args, dict) else {}
            tracer.call(name, arguments, result, started, time.monotonic() - clock, in_cell=in_cell)
        except Exception:  # a full disk must not fail the call
            logger.exception("recording the trace of %s failed", name)
        return result

    @asynccontextmanager
    async def session_lock(self) -> AsyncIterator[HeldQueue]:
        """Hold the session queue (FIFO) for a whole ``js`` cell; call tools through the yielded object."""
        async with self._queue:
            held = HeldQueue(self)
            try:
                yield held
            finally:
                held.active = False

    @asynccontextmanager
    async def pinned(self, selector: str, *, counters: CallCounters | None = None) -> AsyncIterator[PinnedApp]:
        """Hold the session queue, run the gates once for ``selector``, and pin the resolved process.

        The gates are resolve, the deny policy and a proven identity (a batch mutates). When they
        refuse, ``pin.refusal`` is that result (counted as one call) and the pin dispatches
        nothing; otherwise ``pin.call_tool`` sends each call to the pinned process.
        """
        async with self._queue:
            pin = PinnedApp(self, selector, counters)
            progress = _Progress()
            refusal: ToolResult | None = None
            try:
                pin.target = await self._gate(selector, mutating=True, progress=progress)
            except DeskhandError as err:
                refusal = error_result(err)
            except Exception as exc:
                where = f"pinning {selector!r}"
                refusal = unexpected_error_result(exc, where=where, dispatched=progress.executor_called)
            if refusal is not None:  # the refused gates count as one call; passing gates are no call
                for c in self._counters(counters):
                    c.start()
                pin.refusal = self._finish(refusal, counters)
            try:
                yield pin
            finally:
                pin.active = False

    def _start(self, name: str, args: object, counters: CallCounters | None) -> v.Request | ToolResult:
        for c in self._counters(counters):
            c.start()
        try:
            return self._parse(name, args)
        except DeskhandError as err:
            return self._finish(error_result(err), counters)
        except Exception as exc:  # a validator bug: refused before dispatch, never an escaped exception
            return self._finish(unexpected_error_result(exc, where=f"validating {name}", dispatched=False), counters)

    async def _run(
        self,
        request: v.Request,
        counters: CallCounters | None,
        *,
        target: RunningApp | None = None,
        resolved: dict[str, RunningApp] | None = None,
    ) -> ToolResult:
        progress = _Progress()
        try:
            result = await self._gate_and_dispatch(request, target, progress, resolved)
        except DeskhandError as err:
            result = error_result(err)
        except Exception as exc:  # a bug still becomes a result, never an escaped exception
            result = unexpected_error_result(exc, where=f"calling {request.tool}", dispatched=progress.executor_called)
        return self._finish(result, counters)

    def _finish(self, result: ToolResult, counters: CallCounters | None) -> ToolResult:
        for c in self._counters(counters):
            c.finish(is_error=result.is_error, not_dispatched=result.not_dispatched)
        return result

    def _counters(self, extra: CallCounters | None) -> tuple[CallCounters, ...]:
        return (self.counters,) if extra is None else (self.counters, extra)

    async def _gate(self, selector: str, *, mutating: bool, progress: _Progress) -> RunningApp:
        """Gates 3-5: resolve to one running app, the deny policy, a proven identity for mutations."""
        progress.executor_called = True
        return await self._thread(lambda: self._gated(selector, mutating=mutating))

    def _gated(self, selector: str, *, mutating: bool) -> RunningApp:
        """Gates 3-5 in the worker thread (``_gate``, and ``_gate_and_dispatch`` before its call)."""
        target = self.executor.resolve(selector)
        if self.session:
            target = dataclasses.replace(target, session=self.session)
        self.policy.check(target)
        if mutating and not target.identity.proven:
            raise NativeError("identity_unproven", _unproven_message(selector))
        self._check_relaunch(selector, target, mutating=mutating)
        return target

    def _check_relaunch(self, selector: str, target: RunningApp, *, mutating: bool) -> None:
        """A name that now resolves to another process (the app was relaunched): actions are
        refused, saying so, until a read (the agent observing the new process) went through."""
        key = selector.strip().casefold()
        if key.isdigit():
            return  # a pid selector never follows anything
        before = self._resolved.get(key)
        relaunched = before is not None and before.identity != target.identity
        if not (mutating and relaunched):  # an action after a relaunch waits for a read of the new one
            self._resolved[key] = target
            if len(self._resolved) > _MAX_REMEMBERED:
                self._resolved.pop(next(iter(self._resolved)))
        if mutating and before is not None and relaunched:
            raise NativeError(
                "stale_process",
                f"'{selector.strip()}' is another process now (pid {target.pid}, was pid {before.pid}): the app "
                "was relaunched since the last call. Nothing was done; observe it with get_app_state first.",
                dispatched=False,
            )

    async def _gate_and_dispatch(
        self,
        request: v.Request,
        target: RunningApp | None,
        progress: _Progress,
        resolved: dict[str, RunningApp] | None = None,
    ) -> ToolResult:
        """Gate and dispatch one request; a pinned ``target`` already passed the gates.

        ``resolved``: a cell's memory of the processes its selectors resolved to (module docstring).
        """
        progress.executor_called = True
        if isinstance(request, v.ListApps):
            return list_apps_result(await self._thread(self.executor.list_apps))
        if isinstance(request, v.ListWindows):
            entries = await self._thread(lambda: self.executor.list_windows(request.pid))
            return list_windows_result(entries)
        pinned = target
        selector, mutating = request.app, tools.TOOLS[request.tool].mutates

        def gated() -> RunningApp:
            """The gates and the call share one worker thread (one hop, not two, per call); a
            cancellation that arrived during the gates still stops the call before dispatch."""
            if pinned is not None:
                return pinned
            app = self._gated(selector, mutating=mutating)
            check_cancelled()
            if resolved is not None:
                resolved[selector] = app
            return app

        if isinstance(request, v.GetAppState):
            observe = request

            def observed() -> tuple[RunningApp, AppState]:
                app = gated()
                state = self.executor.get_app_state(
                    app,
                    disable_diff=observe.disable_diff,
                    wait_for_change_s=observe.wait_for_change_s,
                    image_only=observe.image_only,
                    # a traced session keeps each observation's screenshot for the trace viewer
                    text_only=observe.text_only and self.tracer is None,
                )
                return app, state

            app, state = await self._thread(observed)
            return state_result(state, _binding_key(request.app, app))
        act = request
        known = resolved.get(selector) if resolved is not None and pinned is None else None

        def acted() -> ActionResult:
            if known is not None and known.identity.proven:
                check_cancelled()
                try:
                    return tools.act(self.executor, known, act)
                except NativeError as err:
                    if err.dispatched is not False or err.code not in _REGATE:
                        raise
                    assert resolved is not None
                    resolved.pop(selector, None)  # nothing was posted: the gates decide again
            return tools.act(self.executor, gated(), act)

        return action_result(await self._thread(acted))

    async def _thread(self, fn: Callable[[], T]) -> T:
        # Not abandoned on cancellation: an in-flight native call always finishes (no lost release).
        return await self._lane.run(fn)


def _binding_key(selector: str, target: RunningApp) -> str:
    """What later calls send as ``app``: the resolved app id, or the pid when one was asked for."""
    return selector.strip() if selector.strip().isdigit() else (target.identity.app_id or selector)
