"""The input barrier's policy (``core.barrier``): what waits before the next action of a cell."""

from __future__ import annotations

import pytest

from deskhand.backends.base import ActionResult
from deskhand.backends.linux.act.barrier import sent_by
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


def test_after_text_typed_into_a_gtk_entry_its_completion_timer_is_waited_for() -> None:
    gtk = barrier.before("a11y_entry", next_is_input=True, toolkit="gtk")
    assert gtk.processed and gtk.quiet and gtk.after_s == barrier.ENTRY_COMPLETION_S["gtk"] > 0.15
    assert barrier.before("a11y_entry", next_is_input=True, toolkit="qt").after_s == 0


def test_after_key_chords_the_next_call_waits_for_the_app_to_have_handled_them_and_its_focus_to_land() -> None:
    assert barrier.before("keys", next_is_input=True, toolkit="gtk") == Wait(processed=True, refocus=True)
    assert not barrier.before("keys", next_is_input=False, toolkit="qt").none


@pytest.mark.parametrize("previous", ["input", "a11y_edit", "a11y_entry", "a11y_action"])
def test_only_keys_wait_for_the_focus_to_land(previous: barrier.Sent) -> None:
    assert not barrier.before(previous, next_is_input=True, toolkit="gtk").refocus


def test_a_focus_wait_alone_is_a_wait() -> None:
    assert not Wait(refocus=True).none


def test_a_refusal_names_the_calls_sent_since_the_observation() -> None:
    assert barrier.refused_after("Refused.", []) == "Refused."
    one = barrier.refused_after("Refused.", ["press_key('ctrl+shift+s')"])
    assert one == (
        "Refused. Before it, since the app was last observed, press_key('ctrl+shift+s') was sent; "
        "observe the app to see what it did."
    )
    named = barrier.refused_after("Refused.", ["click(g2:32)"], "press_key('ctrl+s')")
    assert named == (
        "Refused. Not sent: press_key('ctrl+s'). Before it, since the app was last observed, click(g2:32) was "
        "sent; observe the app to see what it did."
    )
    assert barrier.refused_after("Refused.", [], "press_key('ctrl+s')") == "Refused. Not sent: press_key('ctrl+s')."
    many = barrier.refused_after("Refused.", [f"call{i}" for i in range(10)])
    assert "2 earlier calls and call2, call3" in many and many.endswith(
        "call9 were sent; observe the app to see what they did."
    )


def test_keys_into_a_single_line_field_go_one_a_round_trip() -> None:
    # Dolphin's location bar rewrote its text under queued keys (its completion): one at a time
    assert barrier.keys_per_burst("line", 30, 200) == 1
    assert barrier.keys_per_burst("line", barrier.PACED_KEYS_MAX, 200) == 1


@pytest.mark.parametrize("field", ["lines", "unknown"])
def test_keys_elsewhere_go_in_chunks(field: barrier.Field) -> None:
    assert barrier.keys_per_burst(field, 30, 200) == 200


def test_a_long_text_goes_in_chunks_even_into_a_single_line_field() -> None:
    assert barrier.keys_per_burst("line", barrier.PACED_KEYS_MAX + 1, 200) == 200


@pytest.mark.parametrize("previous", ["keys", "a11y_edit", "a11y_entry", "a11y_action"])
def test_swing_round_trips_go_through_its_action_thread(previous: barrier.Sent) -> None:
    # java-atk-wrapper runs a press action later on the event dispatch thread; AWT answers pings elsewhere
    wait = barrier.before(previous, next_is_input=False, toolkit="j2se-access-bridge")
    assert wait.processed and wait.loop and not wait.none


def test_swing_input_after_input_still_waits_for_nothing() -> None:
    assert barrier.before("input", next_is_input=True, toolkit="j2se-access-bridge").none
    assert barrier.before(None, next_is_input=False, toolkit="j2se-access-bridge").none


@pytest.mark.parametrize("toolkit", ["gtk", "qt", ""])
def test_other_toolkits_take_no_action_thread_trip(toolkit: str) -> None:
    assert not barrier.before("a11y_action", next_is_input=True, toolkit=toolkit).loop


@pytest.mark.parametrize("next_is_input", [True, False])
def test_keys_typed_at_once_into_an_entry_wait_for_its_completion_as_an_accessible_insert(next_is_input: bool) -> None:
    typed = barrier.before("typed_entry", next_is_input=next_is_input, toolkit="gtk")
    assert typed == barrier.before("a11y_entry", next_is_input=next_is_input, toolkit="gtk")
    assert typed.after_s == barrier.ENTRY_COMPLETION_S["gtk"] and typed.quiet and not typed.refocus
    assert barrier.before("typed_entry", next_is_input=True, toolkit="qt").after_s == 0


def test_typed_keys_send_the_display_s_kind_and_other_routes_keep_theirs() -> None:
    keys = ActionResult({"route": "key_events"})
    assert sent_by(keys, "input") == "input"  # X11: its keys into a line are paced, one a round trip
    assert sent_by(keys, "input", typed="typed_entry") == "typed_entry"  # Wayland: sent at once
    assert sent_by(ActionResult({"route": "accessible_text"}), "input", typed="typed_entry") == "a11y_entry"
    assert sent_by(ActionResult({"route": "synthetic"}), "a11y_action", typed="typed_entry") == "input"
    assert sent_by(ActionResult(), "keys", typed="typed_entry") == "keys"
