"""``cua.getApp(<number>)``: an addition to the contract, a positive integer is a pid."""

from __future__ import annotations

from _kernel_support import STATE, FakeCaller, session_run, texts

from deskhand.host.result import TextBlock, ToolResult


def test_get_app_takes_a_number_as_its_pid_string() -> None:
    caller = FakeCaller(lambda n, a: ToolResult((TextBlock(STATE),), structured={"app": "2971"}))
    (result,) = session_run(caller, "let app = await cua.getApp(2971); await app.click([1, 2])")
    assert not result.is_error, result.text
    assert caller.calls[0] == ("get_app_state", {"app": "2971", "disableDiff": True, "textOnly": True})
    assert caller.calls[1] == ("click", {"app": "2971", "x": 1, "y": 2})


def test_get_app_refuses_numbers_that_are_no_pid_without_a_call() -> None:
    cases = {
        "await cua.getApp(0)": "getApp(0): a pid is a positive integer",
        "await cua.getApp(-3)": "getApp(-3): a pid is a positive integer",
        "await cua.getApp(2.5)": "getApp(2.5): a pid is a positive integer",
        "await cua.getApp(NaN)": "getApp(NaN): a pid is a positive integer",
    }
    caller = FakeCaller()
    results = session_run(caller, *cases)
    assert caller.calls == []
    for result, expected in zip(results, cases.values(), strict=True):
        assert result.is_error and texts(result)[-1] == expected
