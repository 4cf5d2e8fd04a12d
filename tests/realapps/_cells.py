"""Cells run as an MCP client runs them: through ``deskhand.runtime.open_service``, one service
for the cells given, each a ``js`` call with a 30 s timeout."""

from __future__ import annotations

from typing import Any

import anyio

from deskhand.desktop import VirtualDesktop
from deskhand.runtime import open_service


def run_cells(desktop: VirtualDesktop, cells: list[str]) -> list[Any]:
    """The results of ``cells``, run in order in one session on ``desktop``."""

    async def go() -> list[Any]:
        service = open_service(env=desktop.env)
        try:
            return [await service.call("js", {"code": code, "timeout_ms": 30000}) for code in cells]
        finally:
            await service.close()

    return anyio.run(go)


def run_cell(desktop: VirtualDesktop, code: str) -> Any:
    """The result of one cell, in a session of its own."""
    return run_cells(desktop, [code])[0]
