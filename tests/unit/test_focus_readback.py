"""Typing's read-back in a browser (``act.focus.Focus.read_back``) on a fake clock: it keeps
reading while the focused text still changes (a loaded browser applies a URL's keys for seconds
after it answered the ping), and stops at its quiet window, its cap, or once the text is found."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from deskhand.backends.linux.act import focus as _focusmod
from deskhand.backends.linux.act import focuswatch as _focuswatch
from deskhand.backends.linux.act.focus import Focus, Readback
from deskhand.backends.linux.atspi.element import Ref


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def monotonic(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


def _focus(
    monkeypatch: pytest.MonkeyPatch, texts: Callable[[float], str], found_at: float | None = None
) -> tuple[Focus, Clock, list[float]]:
    clock = Clock()
    monkeypatch.setattr(_focusmod, "time", clock)
    monkeypatch.setattr(_focuswatch, "time", clock)
    focus = Focus.__new__(Focus)
    reads: list[float] = []

    def typed_readback(bus: object, ref: object, before: object, text: str, span: object = None) -> Readback:
        reads.append(clock.t)
        found = found_at is not None and clock.t - 100.0 >= found_at
        return Readback(
            "the element focused now holds the typed text" if found else None, True, (texts(clock.t - 100.0), None)
        )

    monkeypatch.setattr(focus, "typed_readback", typed_readback)
    monkeypatch.setattr(focus, "_focused", lambda bus: ([], True))  # no FOCUSED element in a last look
    return focus, clock, reads


def test_a_text_that_stops_changing_ends_the_read_back_one_quiet_window_later(monkeypatch: pytest.MonkeyPatch) -> None:
    # the URL grows for 3 s (one more character every 0.1 s), then holds: never the whole URL
    focus, clock, _reads = _focus(monkeypatch, lambda t: "x" * int(min(t, 3.0) * 10))
    got = focus.read_back(":1.1", None, "", "http://h/p", wait_s=2.0, cap_s=10.0)
    assert (got.found, got.readable) == (None, True)
    assert 3.0 + 2.0 <= clock.t - 100.0 <= 3.0 + 2.0 + 0.1  # past the 2 s window: the text kept changing


def test_the_read_back_stops_once_the_text_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    focus, clock, _reads = _focus(monkeypatch, lambda t: "x" * int(t * 10), found_at=2.5)
    got = focus.read_back(":1.1", None, "", "http://h/p", wait_s=2.0, cap_s=10.0)
    assert got.found == "the element focused now holds the typed text"
    assert clock.t - 100.0 < 2.6


def test_a_text_that_never_stops_changing_ends_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    focus, clock, _ = _focus(monkeypatch, lambda t: "x" * int(t * 100))
    got = focus.read_back(":1.1", None, "", "http://h/p", wait_s=2.0, cap_s=10.0)
    assert got.found is None and 10.0 <= clock.t - 100.0 <= 10.1


def test_an_unchanging_text_ends_after_one_window(monkeypatch: pytest.MonkeyPatch) -> None:
    focus, clock, _reads = _focus(monkeypatch, lambda t: "same")
    got = focus.read_back(":1.1", None, "", "http://h/p", wait_s=2.0, cap_s=10.0)
    assert got.found is None and 2.0 <= clock.t - 100.0 <= 2.1


def test_without_a_wait_it_reads_once(monkeypatch: pytest.MonkeyPatch) -> None:
    focus, _clock, reads = _focus(monkeypatch, lambda t: "x" * int(t * 100))
    focus.read_back(":1.1", None, "", "abc", wait_s=0.0, cap_s=10.0)
    assert reads == [100.0]


def test_part_of_the_text_keeps_the_read_back_going_even_without_a_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(_focusmod, "time", clock)
    monkeypatch.setattr(_focuswatch, "time", clock)
    focus = Focus.__new__(Focus)

    def typed_readback(bus: object, ref: object, before: object, text: str, span: object = None) -> Readback:
        t = clock.t - 100.0
        if t >= 0.5:  # the rest of the keys arrived
            return Readback("the focused text changed", True, (None, "abc"))
        return Readback(None, True, (None, "a"), "only part of the text arrived")

    monkeypatch.setattr(focus, "typed_readback", typed_readback)
    got = focus.read_back(":1.1", None, "", "abc", wait_s=0.0, cap_s=10.0)
    assert got.found == "the focused text changed" and 0.5 <= clock.t - 100.0 < 0.6


def test_part_of_the_text_that_stays_so_is_reported_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(_focusmod, "time", clock)
    monkeypatch.setattr(_focuswatch, "time", clock)
    focus = Focus.__new__(Focus)
    part = Readback(None, True, (None, "a"), "only part of the text arrived")
    monkeypatch.setattr(focus, "typed_readback", lambda *args: part)
    got = focus.read_back(":1.1", None, "", "abc", wait_s=0.0, cap_s=10.0)
    assert got.partial == "only part of the text arrived" and got.found is None
    assert _focusmod.PARTIAL_WAIT_S <= clock.t - 100.0 <= _focusmod.PARTIAL_WAIT_S + 0.1


def test_a_last_look_finds_the_text_in_another_focused_element(monkeypatch: pytest.MonkeyPatch) -> None:
    """The focus events named a row of the address bar's popup; a tree read shows the address bar
    FOCUSED too, holding the URL: the read-back says so rather than suspected_noop."""
    focus, _clock, _reads = _focus(monkeypatch, lambda t: "row: 127.0.0.1/p")
    bar = Ref(":1.1", "/bar")
    monkeypatch.setattr(focus, "_focused", lambda bus: ([Ref(":1.1", "/row"), bar], True))
    monkeypatch.setattr(focus, "text", lambda ref: "http://h/p" if ref == bar else "row: h/p")
    got = focus.read_back(":1.1", None, "", "http://h/p", wait_s=2.0, cap_s=10.0)
    assert got.found == "a focused element holds the typed text"
