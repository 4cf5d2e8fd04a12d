"""The focus log ``type_text`` takes candidates from (``backends/linux/_focus.py``)."""

from __future__ import annotations

from deskhand.backends.linux._focus import MAX_OBJECTS, FocusLog


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_is_known_before_a_seed() -> None:
    log = FocusLog(clock=Clock())
    log.event(":1.5", "/a", True)
    assert log.candidates(":1.5") is None


def test_events_after_the_seed_move_the_focus() -> None:
    clock = Clock()
    log = FocusLog(clock=clock)
    log.seed(":1.5", ["/entry"], since=clock.now)
    assert log.candidates(":1.5") == ["/entry"]
    clock.now += 1
    log.event(":1.5", "/entry", False)
    log.event(":1.5", "/canvas", True)
    assert log.candidates(":1.5") == ["/canvas"]
    assert log.candidates(":1.9") is None  # another app: not seeded


def test_events_seen_during_the_read_win_over_it() -> None:
    clock = Clock()
    log = FocusLog(clock=clock)
    since = clock.now
    clock.now += 0.01
    log.event(":1.5", "/old", False)  # lost focus while the read was under way
    log.event(":1.5", "/new", True)
    log.seed(":1.5", ["/old"], since=since)  # the read saw /old before it lost focus
    assert log.candidates(":1.5") == ["/new"]


def test_a_seed_overrides_events_older_than_the_read() -> None:
    clock = Clock()
    log = FocusLog(clock=clock)
    log.event(":1.5", "/stale", True)
    clock.now += 1
    log.seed(":1.5", ["/tree", "/cell"], since=clock.now)
    assert sorted(log.candidates(":1.5") or []) == ["/cell", "/tree"]


def test_the_latest_candidate_comes_first() -> None:
    clock = Clock()
    log = FocusLog(clock=clock)
    log.seed(":1.5", [], since=clock.now)
    assert log.candidates(":1.5") == []
    for path in ("/a", "/b"):
        clock.now += 1
        log.event(":1.5", path, True)
    assert log.candidates(":1.5") == ["/b", "/a"]


def test_a_closed_log_trusts_nothing() -> None:
    clock = Clock()
    log = FocusLog(clock=clock)
    log.seed(":1.5", ["/a"], since=clock.now)
    log.close()
    assert log.candidates(":1.5") is None
    log.seed(":1.5", ["/a"], since=clock.now)
    log.event(":1.5", "/b", True)
    assert log.candidates(":1.5") is None


def test_too_many_focused_objects_drop_the_app() -> None:
    clock = Clock()
    log = FocusLog(clock=clock)
    log.seed(":1.5", [], since=clock.now)
    for i in range(MAX_OBJECTS * 2):
        clock.now += 1
        log.event(":1.5", f"/off{i}", False)  # unfocused objects are forgotten first
    assert log.candidates(":1.5") == []
    for i in range(MAX_OBJECTS + 1):
        log.event(":1.5", f"/on{i}", True)
    assert log.candidates(":1.5") is None
