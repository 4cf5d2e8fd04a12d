"""The session's FIFO queue: ordering, a js cell holding it, and nothing replayed."""

from __future__ import annotations

import threading

import anyio
import anyio.to_thread

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core.counters import CallCounters
from deskhand.core.errors import NativeError
from deskhand.host import AppPolicy, Host, ToolResult

APP = FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)


def make() -> tuple[Host, FakeExecutor]:
    fake = FakeExecutor([APP])
    return Host(fake, policy=AppPolicy()), fake


def typed(fake: FakeExecutor) -> list[object]:
    return [c.args["text"] for c in fake.calls if c.method == "type_text"]


async def until_waiting(host: Host, n: int) -> None:
    """Poll, with a deadline, until ``n`` callers wait on the session queue (never true if it does not hold them)."""
    with anyio.fail_after(5):
        while host.queue_waiting() != n:
            await anyio.sleep(0.001)


def test_calls_run_in_arrival_order_one_at_a_time() -> None:
    host, fake = make()
    gate = fake.block("type_text")
    results: list[ToolResult] = []

    async def one(text: str) -> None:
        results.append(await host.call_tool("type_text", {"app": "Mousepad", "text": text}))

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "1")
            await anyio.to_thread.run_sync(gate.entered.wait)
            for n, text in enumerate(("2", "3", "4"), start=1):
                tg.start_soon(one, text)
                await until_waiting(host, n)  # each arrives, and waits, before the next is sent
            assert typed(fake) == ["1"]  # the others wait behind the blocked call
            gate.release()

    anyio.run(main)
    assert typed(fake) == ["1", "2", "3", "4"]
    assert all(not r.is_error for r in results)


def test_a_cell_owns_the_queue_for_its_whole_run() -> None:
    host, fake = make()

    async def cell(ready: anyio.Event) -> None:
        async with host.session_lock() as queue:
            ready.set()
            await queue.call_tool("type_text", {"app": "Mousepad", "text": "1"})
            await until_waiting(host, 1)  # an outside call has arrived meanwhile and waits
            await queue.call_tool("type_text", {"app": "Mousepad", "text": "2"})

    async def main() -> None:
        ready = anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(cell, ready)
            await ready.wait()
            await host.call_tool("type_text", {"app": "Mousepad", "text": "3"})

    anyio.run(main)
    assert typed(fake) == ["1", "2", "3"]


def test_bad_args_do_not_wait_for_the_queue() -> None:
    host, fake = make()

    async def main() -> ToolResult:
        async with host.session_lock():
            with anyio.fail_after(1):
                return await host.call_tool("click", {"app": "Mousepad", "x": 1})

    result = anyio.run(main)
    assert result.is_error and result.not_dispatched
    assert fake.calls == []


def test_a_released_queue_refuses_late_calls_before_dispatch() -> None:
    host, fake = make()
    cell = CallCounters()

    async def main() -> ToolResult:
        async with host.session_lock() as queue:
            pass
        return await queue.call_tool("type_text", {"app": "Mousepad", "text": "late"}, counters=cell)

    result = anyio.run(main)
    assert result.is_error and result.not_dispatched
    assert result.native_error is not None and result.native_error.native_code == "cu_lock_held"
    assert fake.calls == []
    assert cell.rejected_before_dispatch == 1 and not cell.result_unknown


def test_a_cancelled_waiter_never_dispatches() -> None:
    host, fake = make()
    gate = fake.block("type_text")

    async def first() -> None:
        await host.call_tool("type_text", {"app": "Mousepad", "text": "first"})

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(first)
            await anyio.to_thread.run_sync(gate.entered.wait)
            with anyio.move_on_after(0.05):
                await host.call_tool("type_text", {"app": "Mousepad", "text": "never"})
            gate.release()

    anyio.run(main)
    assert typed(fake) == ["first"]


def test_an_in_flight_call_finishes_even_if_its_caller_is_cancelled() -> None:
    host, fake = make()
    gate = fake.block("click")
    timer = threading.Timer(0.1, gate.release)  # released after the caller's 50 ms deadline

    async def main() -> float:
        start = anyio.current_time()
        timer.start()
        with anyio.move_on_after(0.05):
            await host.call_tool("click", {"app": "Mousepad", "x": 1, "y": 1})
        return anyio.current_time() - start

    elapsed = anyio.run(main)
    assert elapsed >= 0.1  # the caller waited for the native call instead of abandoning it
    assert fake.methods() == ["resolve", "click"]  # dispatched once, never replayed


def test_nothing_is_replayed_after_a_failure() -> None:
    host, fake = make()
    fake.fail("drag", NativeError("user_interference_result_unknown", "The user moved the pointer."))

    async def main() -> ToolResult:
        return await host.call_tool("drag", {"app": "Mousepad", "from_x": 1, "from_y": 1, "to_x": 5, "to_y": 5})

    result = anyio.run(main)
    assert result.is_error and not result.not_dispatched
    assert fake.methods() == ["resolve", "drag"]
    assert result.native_error is not None
    assert result.native_error.to_json() == {
        "name": "Error",
        "message": "The user moved the pointer.",
        "nativeCode": "user_interference_result_unknown",
    }
