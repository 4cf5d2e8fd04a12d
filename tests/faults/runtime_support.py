"""Running one js cell through the whole service (host gate, kernel, Linux backend)."""

from __future__ import annotations

import time
from typing import Any

import anyio

from deskhand.runtime import open_service


def run_cell(env: dict[str, str], code: str, timeout_ms: int, *, time_it: bool = False) -> tuple[Any, float]:
    """(the js tool's result, seconds the call took); a fresh service each time, closed after."""

    async def go() -> tuple[Any, float]:
        service = open_service(env=env)
        try:
            if time_it:  # start the worker first: the time measured is the cell's alone
                await service.call("js", {"code": "1", "timeout_ms": 30000})
            t0 = time.monotonic()
            result = await service.call("js", {"code": code, "timeout_ms": timeout_ms})
            return result, time.monotonic() - t0
        finally:
            await service.close()

    return anyio.run(go)
