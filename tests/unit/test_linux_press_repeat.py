"""The Linux click primitives over a recording bus: what a DoAction reply means to the tier runner.

A reply ``(True,)`` is done, ``(False,)`` refused (the next tier may try), a D-Bus error or a
missed deadline unknown (the click ends). A multi-press failing part-way is never retried elsewhere.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from deskhand.backends.linux.act.clicks import AtspiElement
from deskhand.backends.linux.atspi.connection import TIMED_OUT, Failed
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.core import clicktiers
from deskhand.core.errors import NativeError


class _Bus:
    """An ``AtspiConnection`` stand-in: ``GetActions`` answers ["click"], ``DoAction`` pops a reply."""

    def __init__(self, replies: list[object]) -> None:
        self.replies = replies
        self.calls: list[str] = []

    def call(self, c):
        self.calls.append(c.method)
        if c.method == "GetActions":
            return ([("click", "", "")],)
        if c.method == "DoAction":
            return self.replies.pop(0)
        return Failed("org.freedesktop.DBus.Error.UnknownMethod")


def _press(replies: list[object], count: int) -> tuple[bool, int]:
    bus = _Bus(replies)
    session = SimpleNamespace(a11y=A11y(bus))
    el = AtspiElement(session, app=None)  # type: ignore[arg-type]
    ref = Ref(":1.1", "/obj")
    action = el.press_action(ref)
    assert action == 0
    done = clicktiers.press_repeat(el, ref, action, count, sleep=lambda _s: None)
    return done, bus.calls.count("DoAction")


def test_all_presses_succeed() -> None:
    assert _press([(True,), (True,)], 2) == (True, 2)


def test_first_press_refused_lets_the_next_tier_try() -> None:
    assert _press([(False,)], 2) == (False, 1)


def test_a_later_press_failing_is_an_error_with_unknown_effect() -> None:
    with pytest.raises(NativeError) as err:
        _press([(True,), (False,)], 2)
    assert err.value.code == "ax_failed"
    assert err.value.dispatched is None
    assert "Press 2 of 2 failed after 1 succeeded" in err.value.message


@pytest.mark.parametrize("reply", [TIMED_OUT, Failed("org.freedesktop.DBus.Error.NoReply")], ids=["timeout", "error"])
def test_a_first_press_without_an_answer_is_unknown_and_ends_the_click(reply) -> None:
    with pytest.raises(NativeError) as err:
        _press([reply], 1)
    assert (err.value.code, err.value.dispatched) == ("ax_failed", None)


class _GeckoBus:
    """Firefox's answer: ``GetActions`` gives each action's key binding in all three fields, and
    ``GetName`` the name."""

    def call(self, c):
        if c.method == "GetActions":
            return ([(";;", ";;", ";;"), ("", "", "")],)
        if c.method == "GetName":
            return (["press", "showmenu"][c.body[0]],)
        return Failed("org.freedesktop.DBus.Error.UnknownMethod")


def test_gecko_action_names_are_asked_for_by_index() -> None:
    a11y = A11y(_GeckoBus())
    assert a11y.actions(Ref(":1.1", "/obj")) == ["press", "showmenu"]
    el = AtspiElement(SimpleNamespace(a11y=a11y), app=None)  # type: ignore[arg-type]
    assert el.press_action(Ref(":1.1", "/obj")) == 0
    assert el.menu_action(Ref(":1.1", "/obj")) == 1
