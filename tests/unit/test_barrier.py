"""The input barrier's policy (``core.barrier``): what waits before the next action of a cell."""

from __future__ import annotations

import pytest

from deskhand.core import barrier
from deskhand.core.barrier import Wait


def test_nothing_waits_after_an_observation() -> None:
    assert barrier.before(None, next_is_input=True, toolkit="qt").none
    assert barrier.before(None, next_is_input=False, toolkit="gtk").none


def test_input_after_input_keeps_its_order_without_a_wait() -> None:
    assert barrier.before("input", next_is_input=True, toolkit="gtk").none


def test_an_accessibility_call_after_input_waits_for_the_input_to_be_processed() -> None:
    assert barrier.before("input", next_is_input=False, toolkit="gtk") == Wait(processed=True)


@pytest.mark.parametrize("next_is_input", [True, False])
def test_anything_after_an_accessible_edit_waits_for_a_round_trip(next_is_input: bool) -> None:
    wait = barrier.before("a11y_edit", next_is_input=next_is_input, toolkit="gtk")
    assert wait.processed and not wait.quiet and wait.after_s == 0


def test_an_accessible_action_waits_for_its_effect_and_for_qt_s_deferred_click() -> None:
    gtk = barrier.before("a11y_action", next_is_input=True, toolkit="gtk")
    assert gtk.processed and gtk.quiet and gtk.after_s == 0
    qt = barrier.before("a11y_action", next_is_input=True, toolkit="qt5")
    assert qt.processed and qt.quiet and qt.after_s == barrier.DEFERRED_ACTION_S["qt"] >= 0.1
    assert qt.cap_s == barrier.BARRIER_CAP_S
