"""Assemble deskhand for one client: the platform executor, the host gate, the js kernel, the service.

Backend choice: an explicit ``backend`` argument, else ``DESKHAND_BACKEND`` (``linux``, ``macos``,
``fake``), else the running platform; :data:`deskhand.backends.BACKENDS` loads it lazily.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from deskhand.backends import open_backend
from deskhand.backends.base import Executor
from deskhand.core.platform import from_sys_platform
from deskhand.host.host import HeldQueue, Host
from deskhand.host.result import TextBlock, ToolResult
from deskhand.server.service import HostLike, Progress, Service


def backend_name(backend: str | None = None) -> str:
    """An explicit name, else ``DESKHAND_BACKEND``, else the running platform's backend."""
    return backend or os.environ.get("DESKHAND_BACKEND") or from_sys_platform() or sys.platform


def open_executor(env: Mapping[str, str] | None = None, *, backend: str | None = None) -> Executor:
    """The executor for ``env`` (a desktop's DISPLAY and bus addresses; default: this process's)."""
    return open_backend(backend_name(backend), os.environ if env is None else env)


class _HostCaller:
    """The kernel's bridge to the host: inside a cell, calls go through the held session queue."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.platform = host.platform
        self.held: HeldQueue | None = None
        #: The running cell's progress listener and its count of native calls.
        self.progress: Progress | None = None
        self.calls = 0

    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult:
        try:
            if self.held is not None:
                return await self.held.call_tool(name, args)
            return await self.host.call_tool(name, args)
        finally:
            self.calls += 1
            if self.progress is not None:
                await self.progress(self.calls)


class JsKernel:
    """One client's js session: each cell holds the host's FIFO queue for its whole run, so an
    ordinary tool call made meanwhile runs after the cell; `js_reset` is never queued."""

    def __init__(self, host: HostLike) -> None:
        if not isinstance(host, Host):  # the service hands its session's host (``Service.fork``)
            raise TypeError(f"a js kernel needs a deskhand Host, not {type(host).__name__}")
        from deskhand.kernel.session import KernelSession  # noqa: PLC0415 - the kernel is optional for the SDK

        self._caller = _HostCaller(host)
        self._session = KernelSession(self._caller)
        self._epoch = 0

    async def run(self, code: str, *, timeout_ms: int, progress: Progress | None = None) -> ToolResult:
        from deskhand.kernel.session import RESET_QUEUED  # noqa: PLC0415

        epoch = self._epoch
        async with self._caller.host.session_lock() as held:
            if epoch != self._epoch:
                return ToolResult((TextBlock(RESET_QUEUED),), is_error=True, not_dispatched=True)
            self._caller.held, self._caller.progress, self._caller.calls = held, progress, 0
            try:
                cell = await self._session.run(code, timeout_s=timeout_ms / 1000)
            finally:
                self._caller.held, self._caller.progress = None, None
        return ToolResult(tuple(cell.content), is_error=cell.is_error, structured=dict(cell.structured or {}))

    async def reset(self) -> None:
        self._epoch += 1
        await self._session.reset()

    async def close(self) -> None:
        self._epoch += 1
        await self._session.close()


def open_service(
    *,
    env: Mapping[str, str] | None = None,
    backend: str | None = None,
    advertise_semantic: bool = False,
    caps: frozenset[str] | None = None,
    system_keys_granted: bool = False,
    trace: Path | str | None = None,
    trace_redact: bool = False,
    trace_max_bytes: int | None = None,
) -> Service:
    """One client's service over a new executor and host.

    ``system_keys_granted`` is the user's session grant for system key combinations
    (``deskhand serve --grant-system-keys``); no tool argument can set it. ``trace`` records the
    session into that directory (:mod:`deskhand.trace`); ``trace_redact`` hides typed and pasted text.
    """
    executor = open_executor(env, backend=backend)
    try:
        host = Host(executor, system_keys_granted=system_keys_granted)
    except BaseException:  # an unusable policy file: release the executor's connections
        executor.close()
        raise
    on_close = executor.close
    tracer = None
    if trace is not None:
        from deskhand.trace.recorder import DEFAULT_MAX_BYTES, TraceRecorder  # noqa: PLC0415

        try:
            tracer = TraceRecorder(trace, redact=trace_redact, max_bytes=trace_max_bytes or DEFAULT_MAX_BYTES)
        except BaseException:
            executor.close()
            raise
        host.tracer = tracer

        def on_close() -> None:
            try:
                executor.close()
            finally:
                tracer.close()

    service = Service(host, JsKernel, advertise_semantic=advertise_semantic, caps=caps, on_close=on_close)
    service.tracer = tracer
    return service
