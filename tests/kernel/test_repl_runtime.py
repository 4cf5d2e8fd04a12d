"""native-contract.md 7.1 replRuntime and replDispatch: limits, counters, timeout, cancel, reset."""

from __future__ import annotations

import asyncio
import time

from _kernel_support import FakeCaller, run, session_run, texts

from deskhand.core import deadline
from deskhand.host.result import TextBlock, ToolResult
from deskhand.kernel import CellResult, KernelLimits, KernelSession
from deskhand.kernel.session import (
    CANCELLED,
    INVALID_RUN,
    RESET_ACTIVE,
    RESET_DONE,
    RESET_QUEUED,
    TIMED_OUT,
)

NO_DISPATCH = "No native actions were dispatched. Resolve the reported error before retrying."


def test_pre_dispatch_rejection_counts() -> None:
    caller = FakeCaller(
        lambda n, a: ToolResult((TextBlock("permissions required"),), is_error=True, not_dispatched=True)
    )
    (result,) = session_run(caller, 'await cua.getApp("Fixture")')
    assert result.is_error
    assert result.structured is not None
    assert {k: result.structured[k] for k in ("nativeCallsStarted", "nativeCallsCompleted")} == {
        "nativeCallsStarted": 1,
        "nativeCallsCompleted": 0,
    }
    assert result.structured["nativeCallsRejectedBeforeDispatch"] == 1
    assert result.structured["nativeResultUnknown"] is False
    assert result.structured["recovery"] == NO_DISPATCH
    assert texts(result)[-1] == "permissions required"


def test_loops_need_no_round_trips() -> None:
    caller = FakeCaller()
    results = session_run(
        caller,
        'let app = await cua.getApp("Fixture")',
        'for (let i = 0; i < 3; i++) await app.click([10, 10]); nodeRepl.write("done")',
    )
    assert not any(r.is_error for r in results)
    assert texts(results[1]) == ["done"]
    assert caller.names == ["get_app_state", "click", "click", "click"]


def test_cpu_loop_is_killed_and_bindings_reset() -> None:
    async def go() -> tuple[float, list[str], bool, dict[str, object] | None]:
        session = KernelSession(FakeCaller())
        try:
            await session.run("let saved = 42")
            started = time.monotonic()
            result = await session.run("while (true) {}", timeout_s=0.15)
            elapsed = time.monotonic() - started
            after = await session.run("nodeRepl.write(typeof saved)")
            return elapsed, texts(result) + texts(after), result.is_error, result.structured
        finally:
            await session.close()

    elapsed, out, is_error, structured = run(go())
    assert is_error and elapsed < 3
    assert out == [TIMED_OUT, "undefined"]
    assert structured is not None and structured["bindingsReset"] is True


def test_microtask_loop_times_out() -> None:
    async def go() -> tuple[CellResult, CellResult]:
        session = KernelSession(FakeCaller())
        try:
            spin = "let spin; spin = () => { Promise.resolve().then(spin) }; Promise.resolve().then(spin)"
            looped = await session.run(spin, timeout_s=0.15)
            # the next cell gets the default timeout: it may have to wait for a fresh worker to start
            return looped, await session.run("nodeRepl.write(typeof spin)")
        finally:
            await session.close()

    looped, after = run(go())
    assert looped.is_error and texts(looped) == [TIMED_OUT]
    assert texts(after) == ["undefined"]


async def until(condition, timeout_s: float = 5.0) -> None:
    """Yield to the loop until ``condition()`` holds, with a deadline."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.001)


def test_cancel_drains_the_in_flight_call() -> None:
    caller = FakeCaller()
    caller.hold = {"click"}

    async def go() -> tuple[object, bool]:
        caller.gate, caller.entered = asyncio.Event(), asyncio.Event()
        session = KernelSession(caller)
        try:
            running = asyncio.ensure_future(
                session.run('let app = await cua.getApp("Fixture"); await app.click([1,1]); await app.click([2,2])')
            )
            await caller.entered.wait()
            worker = session.worker_pid
            await session.cancel()
            # the cancel has been acted on once the cell's worker is gone; a cell that did not
            # wait for its in-flight call would be finished by then
            await until(lambda: session.worker_pid != worker or running.done())
            finished_early = running.done()
            caller.gate.set()
            return await running, finished_early
        finally:
            await session.close()

    result, finished_early = run(go())
    assert not finished_early
    assert result.is_error and texts(result)[-1] == CANCELLED
    assert result.structured["nativeCallsStarted"] == 2
    assert result.structured["nativeCallsCompleted"] == 2
    assert result.structured["nativeResultUnknown"] is False
    assert result.structured["bindingsReset"] is True
    assert caller.names == ["get_app_state", "click"]


def _in_flight_deadline_after(end: str) -> list[tuple[bool, float | None]]:
    """(expired, remaining) of a native call's deadline as the call sees it once the cell it
    belongs to was ended by ``end`` ("cancel" or "reset") while the call was in flight."""
    seen: list[tuple[bool, float | None]] = []

    def script(name: str, args: dict[str, object]) -> ToolResult:
        seen.append((deadline.expired(), deadline.remaining()))
        return ToolResult((TextBlock("typed"),))

    caller = FakeCaller(script)
    caller.hold = {"type_text"}

    async def go() -> None:
        caller.gate, caller.entered = asyncio.Event(), asyncio.Event()
        session = KernelSession(caller)
        try:
            running = asyncio.ensure_future(session.run('await __cuInvoke("type_text", {})', timeout_s=60))
            await caller.entered.wait()
            ending = asyncio.ensure_future(session.cancel() if end == "cancel" else session.reset())
            await asyncio.sleep(0)  # one turn of the loop: the cancel or reset ends the cell first
            caller.gate.set()
            await ending
            await running
        finally:
            await session.close()

    run(go())
    return seen


def test_cancel_and_reset_pass_the_in_flight_calls_deadline() -> None:
    """A drained call stops at its next deadline check (a long typed text at its next chunk),
    instead of running on for the rest of the cell's 60 s."""
    assert _in_flight_deadline_after("cancel") == [(True, 0.0)]
    assert _in_flight_deadline_after("reset") == [(True, 0.0)]


def test_a_call_of_a_running_cell_has_the_cells_time_left() -> None:
    seen: list[float | None] = []

    def script(name: str, args: dict[str, object]) -> ToolResult:
        seen.append(deadline.remaining())
        return ToolResult((TextBlock("typed"),))

    (result,) = session_run(FakeCaller(script), 'await __cuInvoke("type_text", {})', timeout_s=30)
    assert not result.is_error
    (left,) = seen
    assert left is not None and 0 < left <= 30


def test_reset_interrupts_the_running_cell_and_rejects_the_queued_one() -> None:
    caller = FakeCaller()
    caller.hold = {"click"}

    async def go() -> tuple[object, object, object, object]:
        caller.gate, caller.entered = asyncio.Event(), asyncio.Event()
        session = KernelSession(caller)
        try:
            first = asyncio.ensure_future(session.run('await __cuInvoke("click", {}); await __cuInvoke("click", {})'))
            await caller.entered.wait()
            queued = asyncio.ensure_future(session.run('await __cuInvoke("click", {})'))
            await until(lambda: session.waiting == 1)  # queued behind the running cell
            resetting = asyncio.ensure_future(session.reset())
            await asyncio.sleep(0)  # one turn of the loop: the reset starts (and ends the epoch) first
            assert not resetting.done()  # it waits for the in-flight call, which the gate still holds
            caller.gate.set()
            after = await session.run("nodeRepl.write('fresh')")
            return await first, await queued, await resetting, after
        finally:
            await session.close()

    first, queued, reset, after = run(go())
    assert texts(first)[-1] == RESET_ACTIVE and first.structured["bindingsReset"] is True
    assert texts(queued) == [RESET_QUEUED]
    assert texts(reset) == [RESET_DONE]
    assert texts(after) == ["fresh"]
    assert caller.names == ["click"]


def test_idle_health_check_keeps_variables() -> None:
    async def go() -> list[str]:
        session = KernelSession(FakeCaller(), limits=KernelLimits(health_check_s=0.05))
        try:
            await session.run("let retained = 7")
            await asyncio.sleep(1.0)  # idle time is the subject: about 20 health-check rounds pass
            return texts(await session.run("nodeRepl.write(retained)"))
        finally:
            await session.close()

    assert run(go()) == ["7"]


def test_memory_watchdog() -> None:
    async def go() -> list[str]:
        session = KernelSession(FakeCaller(), limits=KernelLimits(max_rss_bytes=1, health_check_s=0.05))
        try:
            return texts(await session.run("await new Promise(() => {})", timeout_s=5))
        finally:
            await session.close()

    out = run(go())
    assert len(out) == 1 and "memory budget" in out[0]


def test_ignored_failing_action_is_result_unknown_and_handled_failure_continues() -> None:
    def script(name: str, args: dict[str, object]) -> ToolResult:
        if name == "click":
            return ToolResult((TextBlock("fixture click failed"),), is_error=True)
        return ToolResult((TextBlock("fixture state"),))

    ignored, handled = session_run(
        FakeCaller(script),
        'let app = await cua.getApp("Fixture"); app.click([1,1]); await app.getAXState()',
        "try { await app.click([1,1]) } catch(error) { nodeRepl.write(error.message) }; await app.getAXState()",
    )
    assert ignored.is_error and ignored.structured["nativeResultUnknown"] is True
    assert not handled.is_error
    assert "fixture click failed" in texts(handled)
    assert texts(handled)[-1] == "fixture state"


def test_invalid_bridge_operations_and_floods_reset_without_native_calls() -> None:
    for code in (
        'await __cuInvoke("js", {code:"1"})',
        '__cuEmit({type:"image",data:"AA==",mimeType:"text/html"})',
        "for(let i=0;i<129;i++) nodeRepl.write(i)",
    ):
        caller = FakeCaller()
        (result,) = session_run(caller, code)
        assert result.is_error, code
        assert result.structured["bindingsReset"] is True
        assert result.structured["nativeCallsStarted"] == 0
        assert caller.calls == []


def test_native_call_budget_stops_at_255_clicks() -> None:
    caller = FakeCaller()
    (result,) = session_run(
        caller, 'let app = await cua.getApp("Fixture"); for(let i=0;i<300;i++) await app.click([1,1])'
    )
    assert result.is_error
    assert caller.names.count("click") == 255
    assert "at most 256 native calls" in result.content[-1].text
    assert result.structured["nativeCallsStarted"] == 256
    assert result.structured["nativeCallsCompleted"] == 256
    assert result.structured["bindingsReset"] is True


def test_code_size_and_timeout_validation() -> None:
    async def go() -> list[str]:
        session = KernelSession(FakeCaller())
        try:
            big = "//" + "é" * (128 * 1024)  # over 256 KiB in UTF-8 bytes, under in characters
            out = [(await session.run(big)).text, (await session.run("1", timeout_s=61)).text]
            out.append((await session.run("1", timeout_s=0)).text)
            return out
        finally:
            await session.close()

    assert run(go()) == [INVALID_RUN] * 3


def test_a_binding_of_a_discarded_worker_is_said_gone() -> None:
    """After a cell that discarded its worker (here a timeout), a cell that names a binding of the
    old worker fails with the ReferenceError and a sentence that says where the bindings went;
    a name never bound in a worker that replaced none gets the plain ReferenceError."""

    async def go() -> tuple[CellResult, CellResult, CellResult]:
        session = KernelSession(FakeCaller())
        try:
            fresh = await session.run("nodeRepl.write(typeof nope); nope")
            await session.run("globalThis.app = 1")
            await session.run("for (;;) {}", timeout_s=0.15)
            return fresh, await session.run("app"), await session.run("globalThis.app = 2; app")
        finally:
            await session.close()

    fresh, gone, again = run(go())
    assert fresh.is_error and "nope is not defined" in fresh.text and "are gone" not in fresh.text
    assert gone.is_error and "app is not defined" in gone.text, gone.text
    assert "The bindings made before cell 3 ended (Computer Use JavaScript timed out) are gone" in gone.text, gone.text
    assert "cua.getApp" in gone.text
    assert not again.is_error
