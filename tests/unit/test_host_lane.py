"""The host's native-call thread (``host.lane``): order, context, cancellation, idle end."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable

import anyio
import anyio.to_thread
import pytest

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core import deadline
from deskhand.host import AppPolicy, Host
from deskhand.host.lane import Lane, check_cancelled

APP = FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)


async def until(condition: Callable[[], bool]) -> None:
    """Poll ``condition`` on the event loop, with a deadline."""
    with anyio.fail_after(5):
        while not condition():
            await asyncio.sleep(0.001)


async def cancelled_while(
    call: Callable[[], Awaitable[object]],
    started: threading.Event,
    release: Callable[[], None],
    seen: Callable[[], bool],
) -> bool:
    """Run ``call`` in a cancel scope; once its native call has ``started``, cancel the scope,
    wait until the lane ``seen`` the cancellation, then ``release`` the native call. Returns
    whether the scope caught the cancellation."""
    scopes: list[anyio.CancelScope] = []
    caught: list[bool] = []

    async def caller() -> None:
        with anyio.CancelScope() as scope:
            scopes.append(scope)
            await call()
        caught.append(scope.cancelled_caught)

    async with anyio.create_task_group() as tg:
        tg.start_soon(caller)
        await anyio.to_thread.run_sync(started.wait, 5)
        scopes[0].cancel()
        await until(seen)
        release()
    return caught == [True]


def test_calls_run_in_one_thread_in_order_with_results_and_errors() -> None:
    lane = Lane()
    seen: list[tuple[int, int]] = []

    def one(i: int) -> int:
        seen.append((i, threading.get_ident()))
        return i * 10

    def boom() -> int:
        raise ValueError("from the lane")

    async def main() -> list[int]:
        out = [await lane.run(lambda i=i: one(i)) for i in range(5)]  # type: ignore[misc]
        with pytest.raises(ValueError, match="from the lane"):
            await lane.run(boom)
        return out

    assert anyio.run(main) == [0, 10, 20, 30, 40]
    assert [i for i, _ in seen] == [0, 1, 2, 3, 4]
    threads = {t for _, t in seen}
    assert len(threads) == 1 and threading.get_ident() not in threads


def test_the_callers_deadline_reaches_the_call() -> None:
    lane = Lane()

    async def main() -> tuple[float | None, bool]:
        with deadline.within(30.0):
            left = await lane.run(deadline.remaining)
        stop = threading.Event()
        stop.set()
        with deadline.within(30.0, stop=stop):
            expired = await lane.run(deadline.expired)
        return left, expired

    left, expired = anyio.run(main)
    assert left is not None and 29.0 < left <= 30.0
    assert expired  # the cell's stop flag, seen from the lane's thread


def test_calls_of_concurrent_callers_never_overlap() -> None:
    lane = Lane()
    inside = threading.Lock()
    overlaps: list[int] = []
    release = threading.Event()

    def hold(i: int) -> int:
        if not inside.acquire(blocking=False):
            overlaps.append(i)
            return i
        try:
            if i == 0:
                release.wait(5)
            return i
        finally:
            inside.release()

    async def main() -> list[int]:
        got: list[int] = []

        async def one(i: int) -> None:
            got.append(await lane.run(lambda: hold(i)))

        async with anyio.create_task_group() as tg:
            for i in range(3):
                tg.start_soon(one, i)
            await anyio.sleep(0)
            release.set()
        return got

    assert sorted(anyio.run(main)) == [0, 1, 2]
    assert overlaps == []


def test_a_cancelled_caller_waits_for_its_call_and_gets_its_result() -> None:
    lane = Lane()
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(5)
        return "done"

    async def main() -> tuple[str | None, bool, float]:
        got: str | None = None
        t0 = time.monotonic()
        with anyio.move_on_after(0.05) as scope:
            threading.Timer(0.15, release.set).start()
            got = await lane.run(slow)
            await anyio.sleep(0)  # the scope's cancellation comes at the next checkpoint
        return got, scope.cancelled_caught, time.monotonic() - t0

    got, caught, elapsed = anyio.run(main)
    assert got == "done" and caught
    assert elapsed >= 0.15  # it waited for the call instead of abandoning it


def test_check_cancelled_stops_a_call_whose_caller_was_cancelled() -> None:
    lane = Lane()
    started, release = threading.Event(), threading.Event()
    dispatched: list[str] = []

    def gated() -> None:
        started.set()
        release.wait(5)
        check_cancelled()
        dispatched.append("posted")

    async def main() -> bool:
        return await cancelled_while(lambda: lane.run(gated), started, release.set, lambda: lane.caller_cancelled)

    assert anyio.run(main)
    assert dispatched == []


def test_check_cancelled_is_a_no_op_outside_a_cancelled_call() -> None:
    check_cancelled()  # not in a lane
    assert anyio.run(Lane().run, lambda: check_cancelled() or "ran") == "ran"


def test_the_thread_ends_when_idle_and_starts_again() -> None:
    lane = Lane(idle_s=0.02)

    async def main() -> list[int]:
        first = await lane.run(threading.get_ident)
        end = time.monotonic() + 5
        while lane.running and time.monotonic() < end:
            await asyncio.sleep(0.005)
        assert not lane.running
        second = await lane.run(threading.get_ident)
        return [first, second]

    first, second = anyio.run(main)
    assert first != threading.get_ident() and second != threading.get_ident()


def test_a_host_call_cancelled_during_its_gates_dispatches_nothing() -> None:
    fake = FakeExecutor([APP])
    host = Host(fake, policy=AppPolicy())
    gate = fake.block("resolve")

    async def main() -> bool:
        call = lambda: host.call_tool("click", {"app": "Mousepad", "x": 1, "y": 1})  # noqa: E731
        return await cancelled_while(call, gate.entered, gate.release, lambda: host._lane.caller_cancelled)

    assert anyio.run(main)
    assert fake.methods() == ["resolve"]  # resolved, never clicked
