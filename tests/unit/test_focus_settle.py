"""Typing's wait for a browser's focus after a shortcut (``act.focus.Focus.settle``), on a fake
clock with scripted focus events: ctrl+l in a page waits for the move out of it (a busy page
process hands the key back late, and keys typed before the move go into the page); with the focus
already in the browser's UI no move comes, and the usual quiet applies."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_focus_readback import Clock

from deskhand.backends.linux.act import focus as _focusmod
from deskhand.backends.linux.act import focuswatch as _focuswatch
from deskhand.backends.linux.act.focus import (
    FOCUS_AFTER_GAIN_S,
    FOCUS_AFTER_INPUT_S,
    FOCUS_QUIET_S,
    FOCUS_SHORTCUT_CAP_S,
    Focus,
    FocusWatch,
    Gained,
)
from deskhand.backends.linux.atspi.connection import TEXT
from deskhand.backends.linux.atspi.element import Ref
from deskhand.backends.linux.atspi.enums import State
from deskhand.backends.linux.atspi.roles import FOCUSED

BUS = ":1.8"


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
    monkeypatch: pytest.MonkeyPatch,
    *,
    shortcut: bool = False,
    in_page: bool = True,
    events: list[tuple[float, str]],
    click: bool = False,
    new_page: bool = False,
) -> tuple[float, list[str]]:
    clock = Clock()
    monkeypatch.setattr(_focusmod, "time", clock)
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
    focus._key_at = None if click else clock.t
    focus._shortcut = shortcut or new_page
    focus._new_page = new_page
    focus._input_at = None
    focus._target = None
    if click:
        focus.input_posted()
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


def test_a_new_tab_waits_for_the_focus_to_move_there_even_into_its_page(monkeypatch: pytest.MonkeyPatch) -> None:
    # ctrl+t in Chromium: the new tab's page (its offline new tab page) takes the focus 0.8 s
    # later; waited for as a move out of a page, the typing waited FOCUS_SHORTCUT_CAP_S
    waited, asked = _settle(monkeypatch, new_page=True, in_page=True, events=[(0.8, "/newtab/search")])
    assert waited == pytest.approx(0.8 + FOCUS_AFTER_GAIN_S, abs=0.01)
    assert asked == []
    waited, _ = _settle(monkeypatch, new_page=True, in_page=True, events=[])
    assert waited == pytest.approx(FOCUS_SHORTCUT_CAP_S, abs=0.01)  # a move that never comes


def test_another_key_in_a_page_waits_only_the_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    waited, asked = _settle(monkeypatch, shortcut=False, in_page=True, events=[])
    assert waited == pytest.approx(FOCUS_QUIET_S, abs=0.01)
    assert asked == []


def test_a_click_makes_the_next_key_wait_for_the_page_to_move_the_focus(monkeypatch: pytest.MonkeyPatch) -> None:
    # an accessible action focused a page's field: the page applies it after the browser answered
    waited, _ = _settle(monkeypatch, click=True, events=[(0.1, "/field")])
    assert waited == pytest.approx(0.1 + FOCUS_AFTER_GAIN_S, abs=0.01)


def test_a_click_that_moves_nothing_costs_the_input_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    waited, _ = _settle(monkeypatch, click=True, events=[])
    assert waited == pytest.approx(FOCUS_AFTER_INPUT_S, abs=0.01)


def test_a_click_on_a_field_makes_the_next_key_wait_until_the_field_has_the_focus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An accessible action on a page's field: a loaded page process focuses it 1.5 s later (a
    ctrl+a sent before then selects the page, and the text typed lands before the old one)."""
    clock = Clock()
    monkeypatch.setattr(_focusmod, "time", clock)
    monkeypatch.setattr(_focuswatch, "time", clock)
    field = Ref(BUS, "/field")

    class A11y:
        def states(self, ref: Ref) -> int:
            field_bits = State.EDITABLE | State.FOCUSABLE if ref.path != "/button" else State.FOCUSABLE
            return int(field_bits) | (FOCUSED if ref == field and clock.t >= 101.5 else 0)

        def interfaces(self, ref: Ref) -> frozenset[str]:
            return frozenset() if ref.path == "/shape" else frozenset({TEXT})

    focus = Focus.__new__(Focus)
    focus._s = SimpleNamespace(a11y=A11y())  # type: ignore[assignment]
    focus._watch = ScriptedWatch(clock, [])
    focus._key_at = None
    monkeypatch.setattr(focus, "is_async", lambda bus: True)
    focus.input_posted(target=field)
    assert focus.settle(BUS) == pytest.approx(1.5, abs=0.03)
    focus.input_posted(target=Ref(BUS, "/never"))
    assert focus.settle(BUS) == pytest.approx(_focusmod.FOCUS_FIELD_CAP_S, abs=0.03)
    # a click on an element that is no text field waits only the page's quiet
    focus.input_posted(target=Ref(BUS, "/button"))
    assert focus.settle(BUS) == pytest.approx(_focusmod.FOCUS_AFTER_INPUT_S, abs=0.03)
    # nor does one EDITABLE without a Text interface (Impress's title placeholder: selected, never
    # FOCUSED; the key after it waited FOCUS_FIELD_CAP_S)
    focus.input_posted(target=Ref(BUS, "/shape"))
    assert focus.settle(BUS) == pytest.approx(_focusmod.FOCUS_AFTER_INPUT_S, abs=0.03)
    # a field clicked in another app: the keys to this one do not wait for it
    focus.input_posted(target=Ref(":1.77", "/never"))
    assert focus.settle(BUS) == 0.0


def test_the_paste_target_is_the_clicked_field_once_it_took_the_focus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chromium on sway: the input focused before the click still reads FOCUSED and its focus event
    is the last one seen, while the click moved the focus to the textarea (which reads FOCUSED
    too). ``landed`` names the clicked field; without a click it is the element focused now."""
    clock = Clock()
    monkeypatch.setattr(_focusmod, "time", clock)
    monkeypatch.setattr(_focuswatch, "time", clock)
    old, area = Ref(BUS, "/line"), Ref(BUS, "/area")

    class A11y:
        def states(self, ref: Ref) -> int:
            return int(State.EDITABLE | State.FOCUSABLE) | (FOCUSED if ref in (old, area) else 0)

        def role(self, ref: Ref) -> int:
            return 0  # not a combo box: ``with_text`` keeps the element

        def interfaces(self, ref: Ref) -> frozenset[str]:
            return frozenset({TEXT})

    focus = Focus.__new__(Focus)
    focus._s = SimpleNamespace(a11y=A11y())  # type: ignore[assignment]
    focus._watch = ScriptedWatch(clock, [(0.0, "/line")])
    focus._watch._drain(0.0)
    focus._key_at = None
    monkeypatch.setattr(focus, "is_async", lambda bus: True)
    focus.input_posted(target=area)
    focus.settle(BUS)
    assert focus.landed(BUS) == area
    assert focus.landed(BUS) == old  # once only: the next paste without a click asks the focus now
    focus.input_posted(target=Ref(BUS, "/never"))  # a field that never takes the focus
    focus.settle(BUS)
    assert focus.landed(BUS) == old
