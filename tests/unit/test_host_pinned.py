"""Host.pinned: the gates run once, then every call goes to the one resolved process (contract 1.5, 6.1)."""

from __future__ import annotations

import anyio
import pytest

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core.counters import CallCounters
from deskhand.host import AppPolicy, Host, ToolResult

STALE = "The target application changed process identity before the action."


def make() -> tuple[Host, FakeExecutor]:
    # Fresh apps for every test: restart() changes them in place.
    fake = FakeExecutor(
        [
            FakeApp("Mousepad", "org.xfce.mousepad", pid=4242),
            FakeApp("XTerm", "xterm", pid=5000, executable="/usr/bin/xterm"),
            FakeApp("Ghost", "org.example.ghost", pid=6000, proven=False),
        ]
    )
    return Host(fake, policy=AppPolicy()), fake


def typed(fake: FakeExecutor) -> list[object]:
    return [c.args["text"] for c in fake.calls if c.method == "type_text"]


def test_the_gates_run_once_for_the_whole_batch() -> None:
    host, fake = make()

    async def main() -> list[ToolResult]:
        async with host.pinned("Mousepad") as pin:
            assert pin.refusal is None
            return [await pin.call_tool("type_text", {"app": "Mousepad", "text": t}) for t in "abc"]

    results = anyio.run(main)
    assert [r.is_error for r in results] == [False, False, False]
    assert fake.methods() == ["resolve", "type_text", "type_text", "type_text"]
    assert host.counters.started == host.counters.completed == 3


def test_a_restart_mid_batch_fails_the_next_call_with_stale_process() -> None:
    host, fake = make()

    async def main() -> list[ToolResult]:
        results: list[ToolResult] = []
        async with host.pinned("Mousepad") as pin:
            for i, text in enumerate("abcd"):
                if i == 2:
                    fake.restart("Mousepad")  # same selector, a new pid and start time
                result = await pin.call_tool("type_text", {"app": "Mousepad", "text": text})
                results.append(result)
                if result.is_error:
                    break
        return results

    results = anyio.run(main)
    assert [r.is_error for r in results] == [False, False, True]
    failed = results[-1]
    assert not failed.not_dispatched  # an executor error: result-unknown, never replayed
    assert failed.text == STALE
    assert failed.native_error is not None and failed.native_error.native_code == "stale_process"
    # Resolved once; the third call reached the executor, which refused the old identity.
    assert fake.methods() == ["resolve", "type_text", "type_text", "type_text"]
    assert typed(fake) == ["a", "b", "c"]
    assert host.counters.result_unknown


def test_a_plain_call_after_the_restart_finds_the_new_process() -> None:
    host, fake = make()
    new = fake.restart("Mousepad", pid=9999)

    async def main() -> ToolResult:
        return await host.call_tool("type_text", {"app": "Mousepad", "text": "x"})

    assert not anyio.run(main).is_error
    assert new.pid == 9999


@pytest.mark.parametrize(
    ("app", "text", "not_dispatched"),
    [
        ("XTerm", "Computer Use is not allowed to use the app 'XTerm' for safety reasons.", True),
        ("Ghost", "Resolving 'Ghost' did not prove the running process lifetime.", False),
        ("Nothing", "No running app matches 'Nothing'.", False),
    ],
)
def test_refused_gates_dispatch_nothing(app: str, text: str, not_dispatched: bool) -> None:
    host, fake = make()
    cell = CallCounters()

    async def main() -> tuple[ToolResult | None, ToolResult]:
        async with host.pinned(app, counters=cell) as pin:
            late = await pin.call_tool("type_text", {"app": app, "text": "x"})
            return pin.refusal, late

    refusal, late = anyio.run(main)
    assert refusal is not None and refusal.is_error
    assert refusal.text.startswith(text)
    assert refusal.not_dispatched is not_dispatched
    assert late.is_error and late.not_dispatched  # a refused pin never dispatches
    assert fake.methods() == ["resolve"]
    assert cell.started == 2 and cell.rejected_before_dispatch == (2 if not_dispatched else 1)


def test_a_pin_only_serves_its_own_app() -> None:
    host, fake = make()

    async def main() -> tuple[ToolResult, ToolResult]:
        async with host.pinned("Mousepad") as pin:
            other = await pin.call_tool("type_text", {"app": "XTerm", "text": "x"})
            listing = await pin.call_tool("list_apps", {})
        return other, listing

    other, listing = anyio.run(main)
    assert other.is_error and other.not_dispatched
    assert other.text == "type_text is pinned to the app 'Mousepad'."
    assert listing.is_error and listing.not_dispatched
    assert fake.methods() == ["resolve"]


def test_a_released_pin_refuses_late_calls() -> None:
    host, fake = make()

    async def main() -> ToolResult:
        async with host.pinned("Mousepad") as pin:
            pass
        return await pin.call_tool("type_text", {"app": "Mousepad", "text": "late"})

    result = anyio.run(main)
    assert result.is_error and result.not_dispatched
    assert result.native_error is not None and result.native_error.native_code == "cu_lock_held"
    assert fake.methods() == ["resolve"]


def test_a_pin_holds_the_session_queue() -> None:
    host, fake = make()

    async def outside() -> None:
        await host.call_tool("type_text", {"app": "Mousepad", "text": "outside"})

    async def main() -> None:
        async with anyio.create_task_group() as tg, host.pinned("Mousepad") as pin:
            tg.start_soon(outside)
            # Let the outside call reach the queue: it waits there instead of interleaving.
            await anyio.wait_all_tasks_blocked()
            await pin.call_tool("type_text", {"app": "Mousepad", "text": "1"})
            await pin.call_tool("type_text", {"app": "Mousepad", "text": "2"})

    anyio.run(main)
    assert typed(fake) == ["1", "2", "outside"]


def test_observation_goes_to_the_pinned_process() -> None:
    host, fake = make()

    async def main() -> ToolResult:
        async with host.pinned("Mousepad") as pin:
            fake.restart("Mousepad")
            return await pin.call_tool("get_app_state", {"app": "Mousepad"})

    result = anyio.run(main)
    assert result.is_error and result.text == STALE
    assert fake.methods() == ["resolve", "get_app_state"]


def test_a_name_that_now_means_a_relaunched_process_is_said_not_followed() -> None:
    host, fake = make()

    async def main() -> list[ToolResult]:
        out = [await host.call_tool("type_text", {"app": "Mousepad", "text": "a"})]
        fake.restart("Mousepad", pid=9999)
        out.append(await host.call_tool("type_text", {"app": "Mousepad", "text": "b"}))
        out.append(await host.call_tool("type_text", {"app": "Mousepad", "text": "c"}))
        out.append(await host.call_tool("get_app_state", {"app": "Mousepad"}))
        out.append(await host.call_tool("type_text", {"app": "Mousepad", "text": "d"}))
        return out

    first, moved, again, seen, after = anyio.run(main)
    assert not first.is_error
    for refused in (moved, again):
        assert refused.is_error and refused.not_dispatched
        assert "pid 9999, was pid 4242" in refused.text and "relaunched" in refused.text
    assert not seen.is_error and not after.is_error
    assert [c.args.get("text") for c in fake.calls if c.method == "type_text"] == ["a", "d"]
