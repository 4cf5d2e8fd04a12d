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
6. exactly one executor method, run in a worker thread.

Pre-dispatch refusals carry ``not_dispatched=True``; any other failure counts toward result-unknown.
Nothing is ever retried or replayed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

import anyio
import anyio.to_thread

from deskhand.backends.base import ActionResult, AppEntry, AppState, Executor, RunningApp
from deskhand.core.axtree.render import frame_envelope
from deskhand.core.counters import CallCounters
from deskhand.core.errors import DeskhandError, NativeError, to_js_error
from deskhand.host import validate as v
from deskhand.host.policy import AppPolicy
from deskhand.host.result import ImageBlock, TextBlock, ToolResult
from deskhand.host.schemas import ACTION_RECEIPT, MUTATING_TOOLS, Schema, tool_specs

T = TypeVar("T")

NO_APPS_TEXT = "No running applications are available to control."
QUEUE_RELEASED_TEXT = "Computer Use cancelled before dispatch: this caller no longer holds the session queue."


def _unproven_message(selector: str) -> str:
    return (
        f"Resolving '{selector}' did not prove the running process lifetime. "
        "Observe the app with get_app_state before retrying."
    )


def error_result(exc: BaseException) -> ToolResult:
    """The ToolResult of a failed call; the not-dispatched flag only for pre-dispatch refusals."""
    not_dispatched = isinstance(exc, DeskhandError) and exc.not_dispatched
    js = to_js_error(exc)
    structured: dict[str, object] = {"code": exc.code} if isinstance(exc, DeskhandError) else {}
    return ToolResult(
        (TextBlock(js.message),),
        is_error=True,
        structured=structured,
        native_error=js,
        not_dispatched=not_dispatched,
    )


class Host:
    """The gate between callers (MCP server, js kernel bridge, Python SDK) and one Executor.

    One Host serves one session: it owns that session's FIFO queue and counters. Several hosts may
    share an executor.
    """

    def __init__(
        self,
        executor: Executor,
        *,
        policy: AppPolicy | None = None,
        system_keys_granted: bool = False,
    ) -> None:
        self.executor = executor
        self.platform: str = executor.platform
        self.policy = policy if policy is not None else AppPolicy.load()
        #: The user's session grant for system key combinations; never set from a tool argument.
        self.system_keys_granted = system_keys_granted
        #: Totals over the host's life, same rules as a cell's counters.
        self.counters = CallCounters()
        self._queue = anyio.Lock()

    # --- advertising and static checks ------------------------------------------------------

    def tool_specs(self) -> dict[str, tuple[str, Schema, dict[str, bool]]]:
        """name -> (description, input schema, annotations) of the 11 semantic tools."""
        return tool_specs()

    def validate(self, name: str, args: dict[str, object]) -> None:
        """The static parse alone (for ``sequence``'s up-front check); raises the pre-dispatch error."""
        self._parse(name, args)

    def _parse(self, name: str, args: object) -> v.Request:
        return v.parse_request(name, args, platform=self.platform, system_keys_granted=self.system_keys_granted)

    # --- calls ---------------------------------------------------------------------------------

    async def call_tool(
        self, name: str, args: dict[str, object], *, counters: CallCounters | None = None
    ) -> ToolResult:
        """One semantic tool call through every gate, queued behind the session's other calls."""
        request = self._start(name, args, counters)
        if isinstance(request, ToolResult):
            return request
        async with self._queue:
            return await self._run(request, counters)

    @asynccontextmanager
    async def session_lock(self) -> AsyncIterator[HeldQueue]:
        """Hold the session queue (FIFO) for a whole ``js`` cell; call tools through the yielded object."""
        async with self._queue:
            held = HeldQueue(self)
            try:
                yield held
            finally:
                held.active = False

    def _start(self, name: str, args: object, counters: CallCounters | None) -> v.Request | ToolResult:
        for c in self._counters(counters):
            c.start()
        try:
            return self._parse(name, args)
        except DeskhandError as err:
            return self._finish(error_result(err), counters)

    async def _run(self, request: v.Request, counters: CallCounters | None) -> ToolResult:
        try:
            result = await self._gate_and_dispatch(request)
        except DeskhandError as err:
            result = error_result(err)
        except Exception as exc:  # an executor bug still becomes a result, never an escaped exception
            result = error_result(exc)
        return self._finish(result, counters)

    def _finish(self, result: ToolResult, counters: CallCounters | None) -> ToolResult:
        for c in self._counters(counters):
            c.finish(is_error=result.is_error, not_dispatched=result.not_dispatched)
        return result

    def _counters(self, extra: CallCounters | None) -> tuple[CallCounters, ...]:
        return (self.counters,) if extra is None else (self.counters, extra)

    async def _gate_and_dispatch(self, request: v.Request) -> ToolResult:
        if isinstance(request, v.ListApps):
            return _list_apps_result(await self._thread(self.executor.list_apps))
        target = await self._thread(lambda: self.executor.resolve(request.app))
        self.policy.check(target)
        if request.tool in MUTATING_TOOLS and not target.identity.proven:
            raise NativeError("identity_unproven", _unproven_message(request.app))
        if isinstance(request, v.GetAppState):
            state = await self._thread(lambda: self.executor.get_app_state(target, disable_diff=request.disable_diff))
            return _state_result(state, _binding_key(request.app, target))
        action = await self._thread(lambda: _act(self.executor, target, request))
        return ToolResult((TextBlock(ACTION_RECEIPT),), structured=dict(action.structured))

    @staticmethod
    async def _thread(fn: Callable[[], T]) -> T:
        # Not abandoned on cancellation: an in-flight native call always finishes (no lost release).
        return await anyio.to_thread.run_sync(fn)


class HeldQueue:
    """The session queue while a caller (a ``js`` cell) holds it: calls run at once, in the caller's order."""

    def __init__(self, host: Host) -> None:
        self._host = host
        #: False once the holder released the queue; later calls are refused before dispatch.
        self.active = True

    async def call_tool(
        self, name: str, args: dict[str, object], *, counters: CallCounters | None = None
    ) -> ToolResult:
        request = self._host._start(name, args, counters)
        if isinstance(request, ToolResult):
            return request
        if not self.active:
            return self._host._finish(
                error_result(DeskhandError(QUEUE_RELEASED_TEXT, code="cu_lock_held", dispatched=False)), counters
            )
        return await self._host._run(request, counters)


def _act(executor: Executor, app: RunningApp, r: v.Targeted) -> ActionResult:
    """Exactly one executor method for a mutating request."""
    match r:
        case v.Click():
            return executor.click(app, element=r.element, point=r.point, button=r.button, count=r.count)
        case v.Drag():
            return executor.drag(app, r.start, r.end, button=r.button)
        case v.Scroll():
            return executor.scroll(app, direction=r.direction, pages=r.pages, element=r.element, point=r.point)
        case v.PressKey():
            return executor.press_key(app, r.key)
        case v.TypeText():
            return executor.type_text(app, r.text)
        case v.Paste():
            return executor.paste(app, r.text, r.fmt)
        case v.SelectText():
            return executor.select_text(
                app, r.element, r.text, prefix=r.prefix, suffix=r.suffix, selection_type=r.selection
            )
        case v.SetValue():
            return executor.set_value(app, r.element, r.value)
        case v.SecondaryAction():
            return executor.perform_secondary_action(app, r.element, r.action)
        case v.GetAppState():
            msg = "get_app_state is not an action"
            raise TypeError(msg)


def _list_apps_result(apps: list[AppEntry]) -> ToolResult:
    text = "\n".join(f"{a.display_name or a.id} — {a.id}" for a in apps) or NO_APPS_TEXT
    return ToolResult((TextBlock(text),), structured={"apps": [a.to_json() for a in apps]})


def _binding_key(selector: str, target: RunningApp) -> str:
    """What later calls send as ``app``: the resolved app id, or the pid when one was asked for."""
    return selector.strip() if selector.strip().isdigit() else (target.identity.app_id or selector)


def _state_result(state: AppState, app: str) -> ToolResult:
    blocks: list[TextBlock | ImageBlock] = [TextBlock(frame_envelope(state.text))]
    if state.image is not None:
        blocks.append(ImageBlock(state.image.data, state.image.mime_type))
    return ToolResult(tuple(blocks), structured={"app": app})
