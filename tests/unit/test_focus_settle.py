"""Typing's wait for a browser's focus after a shortcut (``_focuswatch.Focus.settle``), on a fake
clock with scripted focus events: ctrl+l in a page waits for the move out of it (a busy page
process hands the key back late, and keys typed before the move go into the page); with the focus
already in the browser's UI no move comes, and the usual quiet applies."""

from __future__ import annotations

import pytest

from deskhand.backends.linux import _focuswatch
from deskhand.backends.linux._focuswatch import (
    FOCUS_AFTER_GAIN_S,
    FOCUS_QUIET_S,
    FOCUS_SHORTCUT_CAP_S,
    Focus,
    FocusWatch,
    Gained,
)

BUS = ":1.8"


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def monotonic(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


class ScriptedWatch(FocusWatch):
    """A focus watch whose bus delivers ``events`` (seconds after 100.0, path gained) in time."""

    def __init__(self, clock: Clock, events: list[tuple[float, str]]) -> None:
        super().__init__("unix:path=/nonexistent")
        self._conn = object()  # type: ignore[assignment]
        self.clock = clock
        self.events = sorted((100.0 + at, path) for at, path in events)

    def _drain(self, timeout_s: float) -> None:
        due = [e for e in self.events if e[0] <= self.clock.t + timeout_s]
        if not due:
            self.clock.t += timeout_s
            return
        self.clock.t = max(self.clock.t, due[0][0])
        for at, path in [e for e in self.events if e[0] <= self.clock.t]:
            self.events.remove((at, path))
            self._last[BUS] = self.clock.t
            self._gained[BUS] = Gained(path, self.clock.t)


def _settle(
    monkeypatch: pytest.MonkeyPatch, *, shortcut: bool, in_page: bool, events: list[tuple[float, str]]
) -> tuple[float, list[str]]:
    clock = Clock()
    monkeypatch.setattr(_focuswatch, "time", clock)
    focus = Focus.__new__(Focus)
    focus._watch = ScriptedWatch(clock, events)
    asked: list[str] = []

    def page(bus: str) -> bool:  # the focus is in the page until an element of the UI gained it
        asked.append(bus)
        gained = focus._watch.gained(bus)
        return in_page and not (gained is not None and gained.path.startswith("/ui"))

    monkeypatch.setattr(focus, "is_async", lambda bus: True)
    monkeypatch.setattr(focus, "_in_page", page)
    focus._key_at = clock.t
    focus._shortcut = shortcut
    return focus.settle(BUS), asked


def test_a_shortcut_in_a_page_waits_for_the_late_move_out_of_it(monkeypatch: pytest.MonkeyPatch) -> None:
    waited, asked = _settle(monkeypatch, shortcut=True, in_page=True, events=[(3.0, "/ui/urlbar")])
    assert waited == pytest.approx(3.0 + FOCUS_AFTER_GAIN_S, abs=0.01)
    assert asked == [BUS, BUS]


def test_a_focus_event_inside_the_page_is_not_the_move(monkeypatch: pytest.MonkeyPatch) -> None:
    # the page's document gains the focus again (a page process waking up), then the address bar
    waited, asked = _settle(monkeypatch, shortcut=True, in_page=True, events=[(1.0, "/doc"), (3.0, "/ui/urlbar")])
    assert waited == pytest.approx(3.0 + FOCUS_AFTER_GAIN_S, abs=0.01)
    assert asked == [BUS, BUS, BUS]


def test_a_shortcut_whose_move_never_comes_waits_to_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    waited, _ = _settle(monkeypatch, shortcut=True, in_page=True, events=[])
    assert waited == pytest.approx(FOCUS_SHORTCUT_CAP_S, abs=0.01)


def test_a_shortcut_with_the_focus_in_the_browser_ui_waits_only_the_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    waited, asked = _settle(monkeypatch, shortcut=True, in_page=False, events=[])
    assert waited == pytest.approx(FOCUS_QUIET_S, abs=0.01)
    assert asked == [BUS]


def test_a_prompt_move_out_of_the_page_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    waited, asked = _settle(monkeypatch, shortcut=True, in_page=True, events=[(0.1, "/ui/urlbar")])
    assert waited == pytest.approx(0.1 + FOCUS_AFTER_GAIN_S, abs=0.01)
    assert asked == [BUS]


def test_another_key_in_a_page_waits_only_the_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    waited, asked = _settle(monkeypatch, shortcut=False, in_page=True, events=[])
    assert waited == pytest.approx(FOCUS_QUIET_S, abs=0.01)
    assert asked == []
