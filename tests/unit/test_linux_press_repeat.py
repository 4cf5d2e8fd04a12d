"""A multi-press by accessible action that fails part-way is reported, never retried elsewhere."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from deskhand.backends.linux._clicks import ElementClicks
from deskhand.core.errors import NativeError


class _A11y:
    def __init__(self, results: list[bool]) -> None:
        self.results = results
        self.calls = 0

    def actions(self, _ref: object) -> list[str]:
        return ["click"]

    def do_action(self, _ref: object, _index: int) -> bool:
        self.calls += 1
        return self.results.pop(0)


def _press(results: list[bool], count: int) -> tuple[bool, int]:
    a11y = _A11y(results)
    clicks = ElementClicks(SimpleNamespace(a11y=a11y), pointer=None)  # type: ignore[arg-type]
    done = clicks._press_named(object(), ["click"], count)  # type: ignore[arg-type]
    return done, a11y.calls


def test_all_presses_succeed() -> None:
    assert _press([True, True], 2) == (True, 2)


def test_first_press_refused_lets_the_next_tier_try() -> None:
    assert _press([False], 2) == (False, 1)


def test_a_later_press_failing_is_an_error_with_unknown_effect() -> None:
    with pytest.raises(NativeError) as err:
        _press([True, False], 2)
    assert err.value.code == "ax_failed"
    assert err.value.dispatched is None
    assert "Press 2 of 2 failed after 1 succeeded" in err.value.message
