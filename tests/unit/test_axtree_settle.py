"""The UI settle rule of section 6.12: ``max(50 ms, 250 ms - elapsed)`` once, for the same app."""

from __future__ import annotations

import pytest

from deskhand.core.axtree.settle import (
    AX_PRESS_REPEAT_S,
    PRE_CLICK_HOVER_S,
    PRE_PASTE_S,
    UNICODE_CHUNK_S,
    SettleClock,
    settle_delay,
)


@pytest.mark.parametrize(
    ("elapsed", "wait"),
    [(None, 0.0), (0.0, 0.250), (0.100, 0.150), (0.210, 0.050), (0.249, 0.050), (0.250, 0.0), (1.0, 0.0)],
)
def test_settle_delay(elapsed: float | None, wait: float) -> None:
    assert settle_delay(elapsed) == pytest.approx(wait)


def test_settle_applies_once_to_the_next_capture_of_the_same_app() -> None:
    clock = SettleClock()
    clock.mark_mutation("mousepad", 10.0)
    assert clock.take("other", 10.05) == 0.0
    assert clock.take("mousepad", 10.1) == pytest.approx(0.150)
    assert clock.take("mousepad", 10.1) == 0.0


def test_remaining_pauses() -> None:
    assert (PRE_CLICK_HOVER_S, AX_PRESS_REPEAT_S, UNICODE_CHUNK_S, PRE_PASTE_S) == (0.010, 0.050, 0.020, 0.040)
