"""performSecondaryAction on the GTK and Qt fixtures (contract 6.8), checked in the apps' event logs.

Names are matched raw first, then in their pretty form, case-insensitively; page scrolls move the
scroll area's own bar by one page, which the app's ``scroll`` event shows as an offset of exactly
its page (the content size minus the largest offset). On X11 and on sway (``displays``).
"""

from __future__ import annotations

import re
import time

import pytest
from _act_support import Bound, bind

from deskhand.core.errors import NativeError
from desktop_support import Launcher, Running
from display_support import MatrixExecutor, actor_a11y

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin")]

#: The scroll area's content, as in tests/apps/_eventlog.py (not imported: that folder is the apps').
CONTENT_WIDTH, CONTENT_HEIGHT = 2000, 1500


@pytest.fixture(params=["gtk", "qt"])
def app(request: pytest.FixtureRequest, launch: Launcher, ex: MatrixExecutor) -> tuple[Running, Bound]:
    running = launch.gtk_fixture() if request.param == "gtk" else launch.qt_fixture()
    running.extra["toolkit"] = running.events.wait_for("ready")["toolkit"]
    return running, bind(ex, running.pid)


def _area_line(text: str) -> str:
    found = re.search(r"^\s*g\d+:\d+ scroll pane Scroll area.*$", text, re.MULTILINE)
    assert found, text
    return found.group(0)


def test_scroll_area_offers_vertical_page_actions_and_hides_horizontal_ones(app: tuple[Running, Bound]) -> None:
    _running, bound = app
    # Both bars are shown; the contract hides a scroll area's horizontal page actions when it has
    # vertical ones. Qt's scroll area (an AT-SPI filler) reads as the scroll pane it is.
    assert _area_line(bound.text).endswith("Scroll area, Secondary Actions: Scroll Up, Scroll Down")


def test_page_scroll_down_moves_by_one_page(app: tuple[Running, Bound]) -> None:
    running, bound = app
    area = bound.handle("scroll pane Scroll area")
    since = time.monotonic()
    result = bound.ex.perform_secondary_action(bound.app, area, "Scroll Down")
    ev = running.events.wait_for("scroll", name="Scroll area", since=since)
    page = CONTENT_HEIGHT - ev["max_y"]  # the app's own page: the visible height of its viewport
    assert (ev["x"], ev["y"]) == (0, page)
    assert page < bound.frame(area).height  # a page is the viewport, not the whole frame
    assert result.structured["action"] == "AXScrollDownByPage"
    assert result.structured["route"] == "scroll_bar_value"
    assert result.structured["requested"] == result.structured["achieved"] == [0, -page]
    assert result.structured["exact"] is True
    # Raw name in any case; back up by exactly one page.
    since = time.monotonic()
    bound.ex.perform_secondary_action(bound.app, area, "axscrollupbypage")
    ev = running.events.wait_for("scroll", name="Scroll area", since=since)
    assert (ev["x"], ev["y"]) == (0, 0)


def test_hidden_horizontal_page_action_is_performed_by_name(app: tuple[Running, Bound]) -> None:
    running, bound = app
    area = bound.handle("scroll pane Scroll area")
    assert "Scroll Right" not in _area_line(bound.text)
    since = time.monotonic()
    result = bound.ex.perform_secondary_action(bound.app, area, "scroll right")
    ev = running.events.wait_for("scroll", name="Scroll area", since=since)
    page = CONTENT_WIDTH - ev["max_x"]
    assert (ev["x"], ev["y"]) == (page, 0)
    assert result.structured["action"] == "AXScrollRightByPage"
    assert result.structured["achieved"] == [-page, 0]


def test_unknown_action_is_invalid_and_sends_nothing(app: tuple[Running, Bound]) -> None:
    running, bound = app
    check = bound.handle(r"check box Enable sync")
    since = time.monotonic()
    with pytest.raises(NativeError) as info:
        bound.ex.perform_secondary_action(bound.app, check, "Frobnicate")
    assert info.value.code == "invalid_action"
    assert info.value.message == f"Frobnicate is not a valid secondary action for {check}"
    assert info.value.dispatched is False
    # A pretty form of an action the element lacks is no match either.
    with pytest.raises(NativeError, match="Scroll Down is not a valid secondary action"):
        bound.ex.perform_secondary_action(bound.app, check, "Scroll Down")
    # The app processes events in order: after a real toggle shows up, an earlier one would have too.
    bound.ex.perform_secondary_action(bound.app, bound.handle("scroll pane Scroll area"), "Scroll Down")
    running.events.wait_for("scroll", name="Scroll area", since=since)
    assert running.events.of_type("toggled", since=since) == []


def test_gtk_outline_row_expands_and_collapses(launch: Launcher, ex: MatrixExecutor) -> None:
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    bound = bind(ex, running.pid)
    row = bound.handle(r"table cell Group A, Secondary Actions: Expand Or Contract")
    since = time.monotonic()
    result = bound.ex.perform_secondary_action(bound.app, row, "expand or contract")
    running.events.wait_for("row_expanded", name="Group A", expanded=True, since=since)
    assert result.structured["action"] == "Expand or contract"  # the AT-SPI name, matched raw
    since = time.monotonic()
    result = bound.ex.perform_secondary_action(bound.app, row, "AXEXPANDORCONTRACT")
    running.events.wait_for("row_expanded", name="Group A", expanded=False, since=since)
    assert result.structured["action"] == "AXExpandOrContract"


def test_qt_checkbox_toggle_and_slider_increment(launch: Launcher, ex: MatrixExecutor) -> None:
    running = launch.qt_fixture()
    running.events.wait_for("ready")
    bound = bind(ex, running.pid)
    since = time.monotonic()
    result = bound.ex.perform_secondary_action(bound.app, bound.handle(r"check box Enable sync"), "Toggle")
    running.events.wait_for("toggled", name="Enable sync", active=True, since=since)
    assert result.structured["action"] == "Toggle"
    # The slider shows "Increment" (its AT-SPI "Increase" under the contract's name).
    slider = bound.handle(r"slider \(settable, float\) Volume, Value: 0, Secondary Actions: Increment, Decrement")
    bound.ex.perform_secondary_action(bound.app, slider, "Increment")
    running.events.wait_for("value", name="Volume", value=1, since=since)
    assert [e["name"] for e in running.events.of_type("toggled", since=since)] == ["Enable sync"]


def test_refused_page_scroll_is_ax_failed_and_not_replayed(
    app: tuple[Running, Bound], monkeypatch: pytest.MonkeyPatch
) -> None:
    running, bound = app
    area = bound.handle("scroll pane Scroll area")
    a11y = actor_a11y(bound.ex)
    real_set = a11y.set_value
    sets: list[float] = []

    def refuse(ref: object, value: float) -> bool:
        sets.append(value)
        return False

    since = time.monotonic()
    monkeypatch.setattr(a11y, "set_value", refuse)
    with pytest.raises(NativeError) as info:
        bound.ex.perform_secondary_action(bound.app, area, "Scroll Down")
    assert info.value.code == "ax_failed"
    assert info.value.dispatched is None
    assert len(sets) == 1  # tried once; no other route, no second try
    monkeypatch.setattr(a11y, "set_value", real_set)
    # The next page scroll starts from the top: the refused one moved nothing.
    bound.ex.perform_secondary_action(bound.app, area, "Scroll Down")
    ev = running.events.wait_for("scroll", name="Scroll area", since=since)
    assert ev["y"] == CONTENT_HEIGHT - ev["max_y"]
    assert len(running.events.of_type("scroll", since=since)) == 1
