"""The barrier's wait for an app's focus to land after keys (``act.focus.Focus.refocused``), on a
fake clock with scripted focus events: LibreOffice's Font Name box loses the focus on Return and
the document gains it some 300 ms later; a key sent in between reaches no window."""

from __future__ import annotations

import pytest
from test_focus_readback import Clock

from deskhand.backends.linux.act import focus as _focusmod
from deskhand.backends.linux.act import focuswatch as _focuswatch
from deskhand.backends.linux.act.focus import Focus
from deskhand.backends.linux.act.focuswatch import FocusWatch, Gained

BUS = ":1.42"
#: When the keys were sent (the clock starts at 100.0).
KEYS_AT = 100.0


class ScriptedWatch(FocusWatch):
    """A focus watch whose bus delivers ``events`` (seconds after 100.0, path, gained) in time,
    and answers ``sync`` when ``answers``."""

    def __init__(self, clock: Clock, events: list[tuple[float, str, bool]], *, answers: bool = True) -> None:
        super().__init__("unix:path=/nonexistent")
        self._conn = object()  # type: ignore[assignment]
        self.clock = clock
        #: a path "<bus> <path>" is an event of that bus (another app's), a bare path one of BUS
        self.events = sorted(((100.0 + at, path, gained) for at, path, gained in events), key=lambda e: e[0])
        self.answers = answers
        self.synced = 0

    def open(self) -> bool:
        return True

    def sync(self, bus: str, timeout_s: float) -> bool:
        self.synced += 1
        self._drain(0.0)
        return self.answers

    def _drain(self, timeout_s: float) -> None:
        due = [e for e in self.events if e[0] <= self.clock.t + timeout_s]
        if not due:
            self.clock.t += timeout_s
            return
        self.clock.t = max(self.clock.t, due[0][0])
        for event in [e for e in self.events if e[0] <= self.clock.t]:
            self.events.remove(event)
            at, path, gained = event
            bus, _, path = path.rpartition(" ")
            bus = bus or BUS
            self._last[bus] = at
            self._has_focus[bus] = gained
            if gained:
                self._gained[bus] = Gained(path, at)
            else:
                self._lost[bus] = at


def _refocused(
    monkeypatch: pytest.MonkeyPatch, events: list[tuple[float, str, bool]], *, answers: bool = True, cap_s: float = 2.0
) -> tuple[bool, float, ScriptedWatch]:
    clock = Clock()
    monkeypatch.setattr(_focusmod, "time", clock)
    monkeypatch.setattr(_focuswatch, "time", clock)
    focus = Focus.__new__(Focus)
    watch = ScriptedWatch(clock, events, answers=answers)
    focus._watch = watch
    landed = focus.refocused(BUS, since=KEYS_AT - 0.001, end=KEYS_AT + cap_s)
    return landed, clock.t - KEYS_AT, watch


def test_keys_that_moved_no_focus_cost_one_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    landed, waited, watch = _refocused(monkeypatch, [])
    assert landed and waited == 0.0 and watch.synced == 1


def test_a_focus_in_transit_is_waited_for_until_an_element_gains_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # the Font Name entry loses the focus on Return (before the app answered); a panel gains and
    # loses it 0.3 s later, and the document's paragraph gains it last
    events = [(0.0, "/entry", False), (0.30, "/panel", True), (0.30, "/panel", False), (0.31, "/paragraph", True)]
    landed, waited, _ = _refocused(monkeypatch, events)
    assert landed and waited == pytest.approx(0.31)


def test_a_focus_that_never_lands_is_not_settled_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    landed, waited, _ = _refocused(monkeypatch, [(0.0, "/entry", False)], cap_s=2.0)
    assert not landed and waited == pytest.approx(2.0)


def test_a_loss_followed_by_a_gain_before_the_barrier_looks_needs_no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    landed, waited, _ = _refocused(monkeypatch, [(0.0, "/entry", False), (0.0, "/dialog-field", True)])
    assert landed and waited == 0.0


def test_a_loss_before_the_keys_is_no_transit_of_theirs(monkeypatch: pytest.MonkeyPatch) -> None:
    landed, waited, _ = _refocused(monkeypatch, [(-1.0, "/old", False)])
    assert landed and waited == 0.0


def test_an_app_that_does_not_answer_the_round_trip_is_not_settled(monkeypatch: pytest.MonkeyPatch) -> None:
    landed, _, _ = _refocused(monkeypatch, [], answers=False)
    assert not landed


def test_a_focus_another_app_took_is_not_in_transit(monkeypatch: pytest.MonkeyPatch) -> None:
    # keys to this app, then a click that activated another: this app's field lost the focus and
    # the other app's field gained it; waited for here, it counted as in transit until the cap
    events = [(0.0, "/entry", False), (0.0, ":1.77 /name", True)]
    landed, waited, _ = _refocused(monkeypatch, events)
    assert landed and waited == 0.0


def test_a_focus_in_transit_ends_when_another_app_takes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    events = [(0.0, "/entry", False), (0.4, ":1.77 /name", True)]
    landed, waited, _ = _refocused(monkeypatch, events)
    assert landed and waited == pytest.approx(0.4)


def test_another_app_s_focus_before_the_keys_does_not_end_a_transit(monkeypatch: pytest.MonkeyPatch) -> None:
    landed, waited, _ = _refocused(monkeypatch, [(-1.0, ":1.77 /name", True), (0.0, "/entry", False)], cap_s=2.0)
    assert not landed and waited == pytest.approx(2.0)
