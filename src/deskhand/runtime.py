"""Assemble deskhand for one client: the platform executor, the host gate, the js kernel, the service.

Backend choice: an explicit ``backend`` argument, else ``DESKHAND_BACKEND`` (``linux``, ``macos``,
``fake``), else the running platform; :data:`deskhand.backends.BACKENDS` loads it lazily.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from deskhand.backends import open_backend
from deskhand.backends.base import Executor
from deskhand.core.platform import from_sys_platform
from deskhand.host.host import HeldQueue, Host
from deskhand.host.result import TextBlock, ToolResult
from deskhand.server.service import Service


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

    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult:
        if self.held is not None:
            return await self.held.call_tool(name, args)
        return await self.host.call_tool(name, args)


class JsKernel:
    """One client's js session: each cell holds the host's FIFO queue for its whole run, so an
    ordinary tool call made meanwhile runs after the cell; `js_reset` is never queued."""

    def __init__(self, host: Host) -> None:
        from deskhand.kernel.session import KernelSession  # noqa: PLC0415 - the kernel is optional for the SDK

        self._caller = _HostCaller(host)
        self._session = KernelSession(self._caller)
        self._epoch = 0

    async def run(self, code: str, *, timeout_ms: int) -> ToolResult:
        from deskhand.kernel.session import RESET_QUEUED  # noqa: PLC0415

        epoch = self._epoch
        async with self._caller.host.session_lock() as held:
            if epoch != self._epoch:
                return ToolResult((TextBlock(RESET_QUEUED),), is_error=True, not_dispatched=True)
            self._caller.held = held
            try:
                cell = await self._session.run(code, timeout_s=timeout_ms / 1000)
            finally:
                self._caller.held = None
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
    system_keys_granted: bool = False,
) -> Service:
    """One client's service over a new executor and host.

    ``system_keys_granted`` is the user's session grant for system key combinations
    (``deskhand serve --grant-system-keys``); no tool argument can set it.
    """
    executor = open_executor(env, backend=backend)
    try:
        host = Host(executor, system_keys_granted=system_keys_granted)
    except BaseException:  # an unusable policy file: release the executor's connections
        executor.close()
        raise
    return Service(host, lambda: JsKernel(host), advertise_semantic=advertise_semantic, on_close=executor.close)
