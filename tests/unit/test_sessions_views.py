"""Observation state per view (issue 29): the observer keeps one snapshot per session's view of
one process, and ``Host.fork`` gives each session its own number on the calls it resolves."""

from __future__ import annotations

import anyio
import pytest

from deskhand.backends.base import AppState, RunningApp
from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core.axtree import AppTree, Element, Observer, WindowTree
from deskhand.core.axtree.observer import ViewKey
from deskhand.core.errors import NativeError
from deskhand.host import AppPolicy, Host


def _tree(pid: int, *names: str) -> AppTree:
    root = Element("AXWindow", locator="w", children=[Element("AXButton", title=n, locator=n) for n in names])
    return AppTree("org.xfce.mousepad", "Mousepad", pid, [WindowTree(7, "Untitled", root)])


def test_two_processes_of_one_app_keep_their_own_snapshots() -> None:
    observer = Observer()
    first, second = ViewKey("org.xfce.mousepad", 100), ViewKey("org.xfce.mousepad", 200)
    a = observer.observe(_tree(100, "Save"), app_key=first, identity="P100", key_window_id=7)
    observer.observe(_tree(200, "Open"), app_key=second, identity="P200", key_window_id=9)
    # the second process's observation did not replace the first's: its handles and key window hold
    assert observer.element(first, f"g{a.epoch}:1", identity="P100").title == "Save"
    assert observer.key_window(first, identity="P100") == 7
    assert observer.key_window(second, identity="P200") == 9
    with pytest.raises(NativeError) as e:
        observer.key_window(first, identity="P200")
    assert e.value.code == "stale_process"


def test_two_sessions_on_one_process_get_their_own_epochs_and_diffs() -> None:
    observer = Observer()
    mine, theirs = ViewKey("org.xfce.mousepad", 100, 1), ViewKey("org.xfce.mousepad", 100, 2)
    first = observer.observe(_tree(100, "Save"), app_key=mine, identity="P", key_window_id=7)
    other = observer.observe(_tree(100, "Save", "Open"), app_key=theirs, identity="P", key_window_id=7)
    again = observer.observe(_tree(100, "Save", "Open"), app_key=mine, identity="P", key_window_id=7)
    assert (first.is_diff, other.is_diff, again.is_diff) == (False, False, True)
    assert first.epoch != other.epoch and again.epoch == first.epoch
    assert "Open" in again.text  # the diff is against this session's own last observation
    with pytest.raises(NativeError) as e:
        observer.element(theirs, f"g{first.epoch}:1", identity="P")
    assert e.value.code == "stale_snapshot"
    assert str(mine) == "org.xfce.mousepad"  # the contract's texts name the app


class _Seeing(FakeExecutor):
    """Remembers the app every observation was called with."""

    def __init__(self, apps: list[FakeApp]) -> None:
        super().__init__(apps)
        self.observed: list[RunningApp] = []

    def get_app_state(self, app: RunningApp, **kw: bool | float) -> AppState:
        self.observed.append(app)
        return super().get_app_state(app, **kw)  # type: ignore[arg-type]


def test_forked_hosts_resolve_for_their_own_session() -> None:
    fake = _Seeing([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)])
    host = Host(fake, policy=AppPolicy())
    forks = [host.fork(), host.fork()]

    async def observe_each() -> None:
        for h in (host, *forks):
            result = await h.call_tool("get_app_state", {"app": "Mousepad"})
            assert not result.is_error

    anyio.run(observe_each)
    assert [a.session for a in fake.observed] == [0, 1, 2]
    assert len({a.view for a in fake.observed}) == 3
    assert len({a.identity for a in fake.observed}) == 1  # one process, three views of it
    assert forks[0].queue_waiting() == 0 and forks[0]._queue is host._queue  # one queue for all
