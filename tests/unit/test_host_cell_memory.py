"""A js cell's memory of resolved processes: its actions resolve a selector once, the executor still
proves the process before each, and a refusal before dispatch runs the gates again (``Host``)."""

from __future__ import annotations

from collections.abc import Callable

import anyio

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core.errors import NativeError
from deskhand.host import AppPolicy, Host, ToolResult

STALE = "The target application changed process identity before the action."
DRAG = {"from_x": 10, "from_y": 10, "to_x": 50, "to_y": 60}


def make() -> tuple[Host, FakeExecutor]:
    fake = FakeExecutor(
        [
            FakeApp("Mousepad", "org.xfce.mousepad", pid=4242),
            FakeApp("Ghost", "org.example.ghost", pid=6000, proven=False),
        ]
    )
    return Host(fake, policy=AppPolicy()), fake


def cell(
    host: Host, *calls: tuple[str, dict[str, object]], between: dict[int, Callable[[], None]] | None = None
) -> list[ToolResult]:
    """Run ``calls`` in one cell (the held queue); ``between[i]()`` runs before call ``i``."""

    async def main() -> list[ToolResult]:
        out: list[ToolResult] = []
        async with host.session_lock() as queue:
            for i, (name, args) in enumerate(calls):
                if between and i in between:
                    between[i]()
                out.append(await queue.call_tool(name, args))
        return out

    return anyio.run(main)


def drag(app: str) -> tuple[str, dict[str, object]]:
    return "drag", {"app": app, **DRAG}


def test_a_cells_actions_resolve_their_selector_once() -> None:
    host, fake = make()
    results = cell(host, drag("Mousepad"), drag("Mousepad"), ("type_text", {"app": "Mousepad", "text": "x"}))
    assert [r.is_error for r in results] == [False, False, False]
    assert fake.methods() == ["resolve", "drag", "drag", "type_text"]
    # the memory is the cell's: the next cell, and calls outside a cell, resolve again
    cell(host, drag("Mousepad"))
    anyio.run(lambda: host.call_tool(*drag("Mousepad")))
    assert fake.methods()[4:] == ["resolve", "drag", "resolve", "drag"]


def test_each_selector_has_its_own_memory_and_reads_always_resolve() -> None:
    host, fake = make()
    state: tuple[str, dict[str, object]] = ("get_app_state", {"app": "Mousepad"})
    results = cell(host, state, drag("Mousepad"), drag("4242"), state, drag("4242"))
    assert not any(r.is_error for r in results)
    assert fake.methods() == ["resolve", "get_app_state", "drag", "resolve", "drag", "resolve", "get_app_state", "drag"]


def test_an_unproven_identity_seen_by_a_read_is_still_refused_for_an_action() -> None:
    host, fake = make()
    seen, acted = cell(host, ("get_app_state", {"app": "Ghost"}), drag("Ghost"))
    assert not seen.is_error
    assert acted.is_error and "did not prove the running process lifetime" in acted.text
    assert fake.methods() == ["resolve", "get_app_state", "resolve"]


def test_a_refusal_before_dispatch_runs_the_gates_again_and_says_the_relaunch() -> None:
    host, fake = make()

    def relaunch() -> None:
        fake.restart("Mousepad", pid=9999)
        # the executor's proof before the first event: nothing was posted
        fake.fail("drag", NativeError("stale_process", STALE, dispatched=False))

    first, moved = cell(host, drag("Mousepad"), drag("Mousepad"), between={1: relaunch})
    assert not first.is_error
    # as without the memory: the name's new process is said, never followed silently
    assert moved.is_error and moved.not_dispatched
    assert "pid 9999, was pid 4242" in moved.text
    assert fake.methods() == ["resolve", "drag", "drag", "resolve"]
    assert [c.args["start"] for c in fake.calls if c.method == "drag"] == [(10.0, 10.0), (10.0, 10.0)]


def test_a_pid_whose_process_is_gone_is_not_running_after_the_gates_ran_again() -> None:
    host, fake = make()

    def gone() -> None:
        fake.apps[0].running = False
        fake.fail(
            "drag",
            NativeError("process_gone", "The target application (pid 4242) is no longer running.", dispatched=False),
        )

    _first, refused = cell(host, drag("4242"), drag("4242"), between={1: gone})
    assert refused.native_error is not None and refused.native_error.native_code == "target_not_running"
    assert fake.methods() == ["resolve", "drag", "drag", "resolve"]
    plain = anyio.run(lambda: host.call_tool(*drag("4242")))  # what the call says without the memory
    assert (refused.text, refused.not_dispatched) == (plain.text, plain.not_dispatched)


def test_a_failure_that_may_have_posted_input_is_never_run_again() -> None:
    host, fake = make()

    def lost() -> None:
        fake.fail("drag", NativeError("process_gone", "The target application (pid 4242) is no longer running."))

    _first, failed = cell(host, drag("Mousepad"), drag("Mousepad"), between={1: lost})
    assert failed.is_error and not failed.not_dispatched  # result unknown
    assert fake.methods() == ["resolve", "drag", "drag"]
