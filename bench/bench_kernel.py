"""js kernel benchmarks: worker start, first cell after js_reset, empty-cell round trip, per native
call cost, 256 KiB compile."""

from __future__ import annotations

import asyncio
import statistics
import time

from deskhand.host.result import TextBlock, ToolResult
from deskhand.kernel import KernelSession
from deskhand.kernel.compiler import compile_cell


class _Caller:
    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult:
        return ToolResult((TextBlock("ok"),))


async def _measure() -> dict[str, float]:
    starts, empties, per_call = [], [], []
    for _ in range(7):
        session = KernelSession(_Caller())
        t = time.perf_counter()
        await session.run("")
        starts.append(time.perf_counter() - t)
        for _ in range(30):
            t = time.perf_counter()
            await session.run("")
            empties.append(time.perf_counter() - t)
        t = time.perf_counter()
        await session.run("for (let i = 0; i < 255; i++) await __cuInvoke('click', {x: i})")
        loop = time.perf_counter() - t
        per_call.append((loop - statistics.median(empties)) / 255)
        await session.close()
    after_reset, right_after_reset = await _after_reset()
    cell = "let total = 0\nfor (let i = 0; i < 10; i++) { total += i * 2 }\n"
    big = cell * (256 * 1024 // len(cell))
    compiles = []
    for _ in range(5):
        t = time.perf_counter()
        compile_cell(big)
        compiles.append(time.perf_counter() - t)
    return {
        "worker start to first empty cell (ms)": statistics.median(starts) * 1000,
        "first cell after reset, 0.2 s later (ms)": after_reset * 1000,
        "first cell right after reset (ms)": right_after_reset * 1000,
        "empty cell round trip (ms)": statistics.median(empties) * 1000,
        "per native call over the bridge (ms)": statistics.median(per_call) * 1000,
        "compile 256 KiB cell (ms)": statistics.median(compiles) * 1000,
    }


async def _after_reset() -> tuple[float, float]:
    """The first cell after ``js_reset``: once the agent has taken a moment, and at once."""
    later, at_once = [], []
    session = KernelSession(_Caller())
    try:
        await session.run("let x = 1")
        for _ in range(15):
            await session.reset()
            await asyncio.sleep(0.2)  # the agent reads the reset reply before its next cell
            t = time.perf_counter()
            await session.run("")
            later.append(time.perf_counter() - t)
            await session.reset()
            t = time.perf_counter()
            await session.run("")
            at_once.append(time.perf_counter() - t)
    finally:
        await session.close()
    return statistics.median(later), statistics.median(at_once)


def main() -> None:
    for name, value in asyncio.run(_measure()).items():
        print(f"{name:45s} {value:8.2f}")


if __name__ == "__main__":
    main()
