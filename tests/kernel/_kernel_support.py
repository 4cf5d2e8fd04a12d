# ruff: noqa: PERF401 - the tables quote whole JS cells
"""A scripted ToolCaller and helpers for the js kernel tests (real worker processes)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from deskhand.host.result import TextBlock, ToolResult
from deskhand.kernel import CellResult, KernelSession

STATE = "Computer Use state (CUA App Version: 1)\n<app_state>\nApp=Fixture (pid 1)\n\tg1:1 button Test\n</app_state>"

Script = Callable[[str, dict[str, object]], Awaitable[ToolResult] | ToolResult]


class FakeCaller:
    """Records calls; answers from ``script`` (or a fixed state); ``gate`` can hold a call."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script
        self.calls: list[tuple[str, dict[str, object]]] = []
        self.gate: asyncio.Event | None = None
        self.entered: asyncio.Event | None = None
        self.hold: set[str] = set()

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult:
        self.calls.append((name, args))
        if name in self.hold and self.gate is not None:
            if self.entered is not None:
                self.entered.set()
            await self.gate.wait()
        if self.script is not None:
            out = self.script(name, args)
            return await out if isinstance(out, Awaitable) else out
        return ToolResult((TextBlock(STATE),), structured={"app": args.get("app")})


def texts(result: CellResult) -> list[str]:
    return [b.text for b in result.content if isinstance(b, TextBlock)]


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(_bounded(coro))


async def _bounded(coro: Awaitable[Any]) -> Any:
    return await asyncio.wait_for(coro, 60)


async def cells(session: KernelSession, *codes: str, timeout_s: float = 10.0) -> list[CellResult]:
    out = []
    for code in codes:
        out.append(await session.run(code, timeout_s=timeout_s))
    return out


def session_run(caller: FakeCaller | None, *codes: str, timeout_s: float = 10.0) -> list[CellResult]:
    """Run cells in one fresh session and close it."""

    async def go() -> list[CellResult]:
        session = KernelSession(caller or FakeCaller())
        try:
            return await cells(session, *codes, timeout_s=timeout_s)
        finally:
            await session.close()

    return list(run(go()))


def js(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))
