"""Pure reads never make a cell's result unknown (issue 14 item 7); an unfinished action does."""

from __future__ import annotations

from deskhand.core.counters import CallCounters
from deskhand.core.errors import RECOVERY_NOT_DISPATCHED, RECOVERY_OBSERVE


def test_an_unfinished_read_is_not_an_unknown_result() -> None:
    c = CallCounters()
    c.start(mutates=False)  # getAXState against a hung app, cut off by the cell's timeout
    out = c.to_json()
    assert out["nativeResultUnknown"] is False
    assert out["recovery"] == RECOVERY_NOT_DISPATCHED
    assert (out["nativeCallsStarted"], out["nativeCallsCompleted"], out["nativeCallsRejectedBeforeDispatch"]) == (
        1,
        0,
        0,
    )


def test_failed_and_thrown_reads_are_not_unknown_either() -> None:
    c = CallCounters()
    c.start(mutates=False)
    c.finish(is_error=True, not_dispatched=False, mutates=False)
    c.start(mutates=False)
    c.threw(mutates=False)
    assert c.to_json()["nativeResultUnknown"] is False


def test_an_unfinished_or_failed_action_still_is() -> None:
    c = CallCounters()
    c.start(mutates=False)
    c.finish(is_error=False, not_dispatched=False, mutates=False)
    c.start()  # a click still in flight when the cell ended
    assert c.to_json()["nativeResultUnknown"] is True
    assert c.to_json()["recovery"] == RECOVERY_OBSERVE
    d = CallCounters()
    d.start()
    d.finish(is_error=True, not_dispatched=False)
    assert d.to_json()["nativeResultUnknown"] is True
