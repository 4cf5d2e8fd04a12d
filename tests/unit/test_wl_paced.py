"""Wayland's paced typing into a single-line field (``WaylandKeys._paced``): each key goes once the
field showed the one before, read as its text, caret and selection, and waits no longer than
``PACE_S`` for a key that shows nothing. The app here is a stand-in for the session's reads; the
real apps are in tests/realapps (Kate's Save As on KWin) and tests/tasks (Thunar's location bar)."""

from __future__ import annotations

from typing import Any

import pytest

from deskhand.backends.linux.act import wl_actor
from deskhand.backends.linux.atspi.element import Ref

FIELD = Ref(":1.9", "/org/a11y/atspi/accessible/7")


class Completing:
    """A location bar with inline completion: after "/tm" the text reads "/tmp/" with "p/"
    selected, and a key that agrees with the completion moves only the selection's start."""

    def __init__(self) -> None:
        self.typed = ""
        self.sent: list[str] = []
        self.devices = self
        self.a11y = self

    # the session: devices, posting, the app's answer through the compositor
    def type_text(self, ch: str) -> None:
        self.sent.append(ch)
        self.typed += ch

    def post(self, calls: list[Any]) -> None:
        for call in calls:
            call()

    def written_out(self, app: object, end: float) -> bool:
        return True

    # the accessibility reads
    def interfaces(self, ref: Ref) -> frozenset[str]:
        return frozenset({"org.a11y.atspi.Text"})

    def text(self) -> str:
        return "/tmp/" if self.typed.startswith("/tm") and "/tmp/".startswith(self.typed) else self.typed

    def caret(self, ref: Ref) -> int:
        return len(self.text())

    def selection(self, ref: Ref) -> tuple[int, int] | None:
        shown = self.text()
        return (len(self.typed), len(shown)) if len(self.typed) < len(shown) else None


class Focus:
    def __init__(self, app: Completing) -> None:
        self.app = app

    def text(self, ref: Ref | None, kinds: object = None) -> str | None:
        return self.app.text()


def _keys(app: Completing) -> Any:
    keys: Any = object.__new__(wl_actor.WaylandKeys)
    keys._s = app
    keys.focus = Focus(app)
    return keys


def test_a_key_that_agrees_with_the_completion_goes_on_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # "/tm" completes to "/tmp/" (selected "p/"); "p" leaves the text and caret as they were and
    # moves the selection: seen at the first read, so no key waits
    def waited(seconds: float) -> None:
        raise AssertionError("a key waited though the field showed the one before")

    monkeypatch.setattr(wl_actor.time, "sleep", waited)
    app = Completing()
    _keys(app)._paced(object(), "/tmp/", FIELD)
    assert app.sent == list("/tmp/") and app.text() == "/tmp/"


def test_a_field_that_shows_nothing_holds_up_the_keys_for_pace_s_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # a field that rejects the keys (or lost them) costs PACE_S once, not PACE_S a key
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(wl_actor.time, "sleep", sleep)
    monkeypatch.setattr(wl_actor.time, "monotonic", lambda: now[0])
    app = Completing()
    monkeypatch.setattr(app, "type_text", app.sent.append)  # the keys are lost: nothing changes
    _keys(app)._paced(object(), "abc", FIELD)
    assert app.sent == ["a", "b", "c"]
    assert wl_actor.PACE_S <= sum(slept) < wl_actor.PACE_S + 0.05
