"""The Wayland executor's actions on a real headless sway, KWin and GNOME Shell, judged from the app's side.

Scroll, paste, selectText, setValue, performSecondaryAction and drag on the GTK 3 and Qt 6
fixtures running natively on Wayland: their event logs say what moved, what text arrived, what
was selected, which button went down where; the clipboard is read back by another client.
Observing never changes the stacking or the focus.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import pytest
from _wl_support import (
    UserClipboard,
    WaylandLauncher,
    clear_clipboard,
    clipboard_now,
    comp_of,
    focused_pid,
    placed,
    stacking,
    wide_text,
)

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect
from deskhand.desktop import VirtualDesktop
from desktop_support import POLL_S, Running

#: Where the fixture's window goes (content rect), away from the origin; tall enough for the GTK
#: fixture's minimum size with its client-side title bar (709 on GNOME, which keeps it).
RECT = (130, 70, 1000, 720)
#: The scroll area's content (tests/apps/_eventlog.py).
CONTENT_HEIGHT = 1500


@dataclass
class WlBound:
    ex: WaylandExecutor
    app: RunningApp
    text: str = ""

    def observe(self) -> str:
        self.text = self.ex.get_app_state(self.app, disable_diff=True).text
        return self.text

    def handle(self, pattern: str) -> str:
        m = re.search(r"(g\d+:\d+) " + pattern, self.text)
        assert m, f"{pattern!r} not in\n{self.text}"
        return m.group(1)

    def frame(self, handle: str) -> Rect:
        frame = self.ex.element(self.app, handle).frame
        assert frame is not None
        return frame

    def pixels(self, gx: float, gy: float) -> tuple[float, float]:
        """Global points to screenshot pixels of the latest observation."""
        t = self.ex.transforms[self.app.view]
        return ((gx - t.origin_x) * t.pixels_per_point, (gy - t.origin_y) * t.pixels_per_point)


@pytest.fixture
def ex(wl_ex: WaylandExecutor) -> WaylandExecutor:
    return wl_ex


def _start(
    wl_launch: WaylandLauncher, ex: WaylandExecutor, kit: str, rect: tuple[int, int, int, int] = RECT
) -> tuple[Running, WlBound]:
    running = wl_launch.gtk_fixture() if kit == "gtk" else wl_launch.qt_fixture()
    running.events.wait_for("ready")
    placed(wl_launch.desktop, running.pid, rect)
    bound = WlBound(ex, ex.resolve(str(running.pid)))
    bound.observe()
    return running, bound


@pytest.fixture(params=["gtk", "qt"])
def fixture_app(
    request: pytest.FixtureRequest, wl_launch: WaylandLauncher, ex: WaylandExecutor
) -> tuple[Running, WlBound]:
    return _start(wl_launch, ex, request.param)


@pytest.fixture
def gtk(wl_launch: WaylandLauncher, ex: WaylandExecutor) -> tuple[Running, WlBound]:
    return _start(wl_launch, ex, "gtk")


# -- scroll ---------------------------------------------------------------------------------------
def test_element_scroll_moves_the_area_by_the_contract_delta(fixture_app: tuple[Running, WlBound]) -> None:
    running, bound = fixture_app
    area = bound.handle("scroll pane Scroll area")
    height = bound.frame(area).height
    since = time.monotonic()
    result = bound.ex.scroll(bound.app, direction="down", pages=0.5, element=area)
    delta = int(height * 0.5 + 0.5)  # round(extent x pages), ties away from zero
    assert result.structured["requested"] == [0, -delta]
    moved = -result.structured["achieved"][1]
    ev = running.events.wait_for("scroll", lambda e: e["y"] == moved, name="Scroll area", since=since)
    assert ev["x"] == 0 and moved > 0
    if result.structured["exact"]:
        assert moved == delta
    assert result.outcome is not None and result.outcome.effect == "confirmed"


def test_point_scroll_turns_the_wheel_and_reports_what_the_app_moved(fixture_app: tuple[Running, WlBound]) -> None:
    running, bound = fixture_app
    area = bound.frame(bound.handle("scroll pane Scroll area"))
    at = bound.pixels(area.x + area.width / 2, area.y + area.height / 2)
    since = time.monotonic()
    result = bound.ex.scroll(bound.app, direction="down", pages=0.2, point=at)
    assert result.structured["route"] == "wheel"
    assert result.structured["requested"] == [0, -int(RECT[3] * 0.2 + 0.5)]  # the bound window's height
    ev = running.events.wait_for("scroll", lambda e: e["y"] > 0, name="Scroll area", since=since)
    assert ev["x"] == 0
    if "achieved" in result.structured:  # measured on the content: what the app says it moved
        deadline = time.monotonic() + 5.0
        # GTK's smooth wheel moves by fractions of a pixel; the witness reads whole pixels
        while abs(running.events.of_type("scroll", since=since)[-1]["y"] + result.structured["achieved"][1]) >= 1:
            assert time.monotonic() < deadline, (
                result.structured,
                [(e["x"], e["y"]) for e in running.events.of_type("scroll", since=since)],
            )
            time.sleep(POLL_S)
    since = time.monotonic()
    bound.ex.scroll(bound.app, direction="right", pages=0.1, point=at)
    running.events.wait_for("scroll", lambda e: e["x"] > 0, name="Scroll area", since=since)


def test_scroll_outside_the_window_or_before_observing_sends_nothing(
    wl_launch: WaylandLauncher, ex: WaylandExecutor
) -> None:
    running = wl_launch.gtk_fixture()
    running.events.wait_for("ready")
    placed(wl_launch.desktop, running.pid, RECT)
    app = ex.resolve(str(running.pid))
    since = time.monotonic()
    with pytest.raises(NativeError) as refused:
        ex.scroll(app, direction="down", pages=1, point=(10, 10))
    assert refused.value.code == "stale_snapshot" and refused.value.dispatched is False
    ex.get_app_state(app)
    with pytest.raises(NativeError) as refused:
        ex.scroll(app, direction="down", pages=1, point=(5000, 10))
    assert refused.value.dispatched is False
    assert not running.events.of_type("scroll", since=since) and not running.events.of_type("wheel", since=since)


# -- paste ----------------------------------------------------------------------------------------
USER: dict[str, bytes] = {
    "text/plain;charset=utf-8": "the user's text ✓".encode(),
    "text/html": b"<b>the user's</b>",
    "application/x-deskhand-test": bytes(range(256)) * 64,
}


def test_paste_lands_in_the_field_and_gives_back_every_type_of_the_users_clipboard(
    fixture_app: tuple[Running, WlBound], wl_desktop: VirtualDesktop
) -> None:
    running, bound = fixture_app
    user = UserClipboard(wl_desktop, USER)
    try:
        bound.ex.click(bound.app, element=bound.handle(r"text \(settable, string\) Name"))
        running.events.wait_for("focus", name="Name")
        result = bound.ex.paste(bound.app, "pasted ✓ Grüße")
        running.events.wait_for("text", name="Name", text="pasted ✓ Grüße")
        assert result.outcome is not None and result.outcome.effect == "confirmed", result
        assert result.structured["receipt"]["restored"] is True
        assert clipboard_now(wl_desktop) == USER  # every type, byte for byte, served by us now
    finally:
        user.close()
    bound.ex.close()  # the session ends: a keeper serves the user's clipboard from now on
    assert clipboard_now(wl_desktop) == USER
    next_copy = {"text/plain;charset=utf-8": b"next copy"}
    user = UserClipboard(wl_desktop, next_copy)  # the next copy wins and the keeper goes
    try:
        assert clipboard_now(wl_desktop) == next_copy
    finally:
        user.close()


def test_paste_with_an_empty_clipboard_leaves_it_empty(
    gtk: tuple[Running, WlBound], wl_desktop: VirtualDesktop
) -> None:
    running, bound = gtk
    clear_clipboard(wl_desktop)
    bound.ex.click(bound.app, element=bound.handle(r"text \(settable, string\) Name"))
    running.events.wait_for("focus", name="Name")
    bound.ex.paste(bound.app, "once")
    running.events.wait_for("text", name="Name", text="once")
    assert clipboard_now(wl_desktop) == {}


def test_a_copy_made_during_the_paste_wins(
    gtk: tuple[Running, WlBound], wl_desktop: VirtualDesktop, monkeypatch: pytest.MonkeyPatch
) -> None:
    running, bound = gtk
    bound.ex.click(bound.app, element=bound.handle(r"text \(settable, string\) Name"))
    running.events.wait_for("focus", name="Name")
    user = UserClipboard(wl_desktop, {"text/plain;charset=utf-8": b"before"})
    server = bound.ex.actor.keys.paste_clipboard()
    original = server.data_requests_since
    calls: list[object] = []
    meanwhile: list[UserClipboard] = []

    def copy_while_pasting(token: object) -> list[str]:
        # the core polls the requests after posting ctrl+v: another client copies right then
        calls.append(token)
        if len(calls) == 2:
            meanwhile.append(UserClipboard(wl_desktop, {"text/plain;charset=utf-8": b"copied meanwhile"}))
            deadline = time.monotonic() + 2.0
            while server.owns and time.monotonic() < deadline:
                time.sleep(POLL_S)
        return list(original(token))

    monkeypatch.setattr(server, "data_requests_since", copy_while_pasting)
    try:
        with pytest.raises(NativeError) as info:
            bound.ex.paste(bound.app, "pasted")
        assert info.value.code == "clipboard_changed"
        assert clipboard_now(wl_desktop) == {"text/plain;charset=utf-8": b"copied meanwhile"}
    finally:
        user.close()
        for other in meanwhile:
            other.close()


def test_typed_text_is_confirmed_by_reading_the_focused_field_back(fixture_app: tuple[Running, WlBound]) -> None:
    running, bound = fixture_app
    bound.ex.click(bound.app, element=bound.handle(r"text \(settable, string\) Name"))
    running.events.wait_for("focus", name="Name")
    text = wide_text(bound.ex.compositor, "typed ✓ Grüße", "typed (1) & done!")
    result = bound.ex.type_text(bound.app, text)
    running.events.wait_for("text", name="Name", text=text)
    assert result.outcome is not None and result.outcome.effect == "confirmed", result
    wide = text != "typed (1) & done!"
    ime = wide and bound.ex.compositor.name == "GNOME Shell"  # off the layout: the shell commits it whole
    assert result.structured["route"] == ("input_method" if ime else "key_events"), result


# -- selectText, setValue, performSecondaryAction -------------------------------------------------
def test_set_value_select_text_and_secondary_actions_reach_the_app(fixture_app: tuple[Running, WlBound]) -> None:
    running, bound = fixture_app
    name = bound.handle(r"text \(settable, string\) Name")
    since = time.monotonic()
    result = bound.ex.set_value(bound.app, name, "hello wayland world")
    running.events.wait_for("text", name="Name", text="hello wayland world", since=since)
    assert result.outcome is not None and result.outcome.effect == "confirmed"
    bound.observe()
    result = bound.ex.select_text(bound.app, name, "wayland", prefix="hello ")
    running.events.wait_for("selection", name="Name", start=6, end=13, since=since)
    assert (result.structured["location"], result.structured["length"]) == (6, 7)
    area = bound.handle("scroll pane Scroll area")
    result = bound.ex.perform_secondary_action(bound.app, area, "Scroll Down")
    ev = running.events.wait_for("scroll", name="Scroll area", since=since)
    assert ev["y"] == CONTENT_HEIGHT - ev["max_y"] and result.structured["achieved"] == [0, -ev["y"]]
    slider = bound.handle(r"slider \(settable, float\) Volume")
    bound.ex.set_value(bound.app, slider, "40")
    running.events.wait_for("value", name="Volume", value=40, since=since)
    with pytest.raises(NativeError) as refused:
        bound.ex.perform_secondary_action(bound.app, area, "Frobnicate")
    assert refused.value.code == "invalid_action" and refused.value.dispatched is False


# -- drag -----------------------------------------------------------------------------------------
def test_drag_sends_the_five_events_in_order_on_the_canvas(fixture_app: tuple[Running, WlBound]) -> None:
    running, bound = fixture_app
    canvas = bound.frame(bound.handle(r"(?:canvas|container|filler) Canvas"))
    a = (canvas.x + 40, canvas.y + 30)
    b = (canvas.x + 240, canvas.y + 130)
    since = time.monotonic()
    result = bound.ex.drag(bound.app, bound.pixels(*a), bound.pixels(*b))
    assert result.structured["events"] == 5
    release = running.events.wait_for("release", since=since)
    log = [e for e in running.events.read() if e["t"] >= since and e["type"] in ("press", "motion", "release")]
    first = next(i for i, e in enumerate(log) if e["type"] == "press")
    # the pointer put at the origin first (on KWin after a hover one pixel beside: ``kwin.fakeinput``)
    near = 1 if bound.ex.compositor.name == "KWin" else 0
    assert all(abs(e["x"] - 40) <= near and e["y"] == 30 for e in log[:first]) and (
        log[first - 1]["x"],
        log[first - 1]["y"],
    ) == (40, 30)
    log = log[first:]
    kinds = [e["type"] for e in log]
    assert kinds[0] == "press" and kinds[-1] == "release" and kinds.count("press") == 1
    press = log[0]
    assert (press["button"], press["x"], press["y"]) == (1, 40, 30)
    motions = [(e["x"], e["y"]) for e in log if e["type"] == "motion"]
    assert motions[-1] == (240, 130)
    if running.events.of_type("ready")[0]["toolkit"] != "qt":
        # the midpoint, then the destination; Qt on Wayland folds the motions it reads in one
        # batch into the last one (its high-frequency event compression), so it logs only that
        assert (140, 80) in motions and motions.index((140, 80)) < len(motions) - 1
    assert (release["x"], release["y"]) == (240, 130)


def test_drag_from_outside_the_observed_window_is_refused(gtk: tuple[Running, WlBound]) -> None:
    running, bound = gtk
    since = time.monotonic()
    with pytest.raises(NativeError) as refused:
        bound.ex.drag(bound.app, (RECT[2] * 5.0, 10.0), (10.0, 10.0))
    assert refused.value.dispatched is False
    assert not running.events.of_type("press", since=since)


# -- observing changes nothing --------------------------------------------------------------------
def test_observing_a_covered_window_neither_raises_nor_focuses_it(
    wl_launch: WaylandLauncher, ex: WaylandExecutor
) -> None:
    desktop = wl_launch.desktop
    below, bound = _start(wl_launch, ex, "gtk")
    top = wl_launch.gtk_fixture()
    top.events.wait_for("ready")
    placed(desktop, top.pid, (RECT[0] + 300, RECT[1] + 200, 500, 400))
    order, focus = stacking(desktop), focused_pid(desktop)
    assert focus == top.pid
    state = ex.get_app_state(bound.app, disable_diff=True)
    assert "push button Apply" in state.text  # the tree is read all the same
    if ex.compositor.name == "sway":  # no per-window capture: the state says why it has no screenshot
        assert state.image is None and "No screenshot" in state.text and f"pid {top.pid}" in state.text
        with pytest.raises(NativeError) as refused:
            ex.get_app_state(bound.app, image_only=True)
        assert refused.value.code == "capture_failed" and refused.value.dispatched is False
    else:  # KWin renders the covered window by itself, GNOME captures the window actor's own pixels
        assert state.image is not None and "No screenshot" not in state.text
        assert ex.get_app_state(bound.app, image_only=True).image is not None
    assert (stacking(desktop), focused_pid(desktop)) == (order, focus)
    if ex.compositor.name == "sway":
        placed(desktop, top.pid, (RECT[0] + RECT[2] + 10, RECT[1], 100, 100))  # moved off: uncovered
        state = ex.get_app_state(bound.app, disable_diff=True)
        assert state.image is not None and (stacking(desktop), focused_pid(desktop)) == (order, focus)
    since = time.monotonic()  # an action raises the target and sends nothing to the other app
    placed(desktop, top.pid, (RECT[0] + 300, RECT[1] + 200, 500, 400))
    area = bound.frame(bound.handle("scroll pane Scroll area"))
    bound.ex.scroll(bound.app, direction="down", pages=0.2, point=bound.pixels(area.x + 20, area.y + 20))
    below.events.wait_for("scroll", lambda e: e["y"] > 0, since=since)
    assert focused_pid(desktop) == below.pid
    assert not top.events.of_type("scroll", since=since) and not top.events.of_type("wheel", since=since)


def test_paste_and_drag_go_only_to_the_observed_app_when_another_is_on_top(
    gtk: tuple[Running, WlBound], wl_launch: WaylandLauncher
) -> None:
    running, bound = gtk
    desktop = wl_launch.desktop
    name = bound.handle(r"text \(settable, string\) Name")
    canvas = bound.frame(bound.handle(r"(?:canvas|container|filler) Canvas"))
    bound.ex.click(bound.app, element=name)
    running.events.wait_for("focus", name="Name")
    other = wl_launch.gtk_fixture()  # opens over it and takes the focus
    other.events.wait_for("ready")
    placed(desktop, other.pid, RECT)
    assert focused_pid(desktop) == other.pid
    since = time.monotonic()
    bound.ex.paste(bound.app, "only here ✓")
    running.events.wait_for("text", name="Name", text="only here ✓", since=since)
    placed(desktop, other.pid, RECT)  # on top again
    comp = comp_of(desktop)
    comp.focus(next(v.id for v in comp.views() if v.pid == other.pid))
    bound.ex.drag(bound.app, bound.pixels(canvas.x + 20, canvas.y + 20), bound.pixels(canvas.x + 60, canvas.y + 40))
    running.events.wait_for("release", since=since)
    assert focused_pid(desktop) == running.pid
    for kind in ("text", "press", "release", "key_press"):
        assert not other.events.of_type(kind, since=since), kind


def test_a_drag_that_fails_half_way_releases_the_button(
    gtk: tuple[Running, WlBound], monkeypatch: pytest.MonkeyPatch
) -> None:
    running, bound = gtk
    canvas = bound.frame(bound.handle(r"(?:canvas|container|filler) Canvas"))
    devices = bound.ex.compositor.input
    real_move = devices.move
    moves: list[tuple[float, float]] = []

    def broken_move(x: float, y: float) -> None:
        moves.append((x, y))
        if len(moves) == 3:  # after the press and the motion at the origin
            raise OSError("the compositor went away")
        real_move(x, y)

    monkeypatch.setattr(devices, "move", broken_move)
    since = time.monotonic()
    with pytest.raises(OSError, match="went away"):
        bound.ex.drag(bound.app, bound.pixels(canvas.x + 20, canvas.y + 20), bound.pixels(canvas.x + 80, canvas.y + 60))
    if bound.ex.compositor.name == "GNOME Shell":  # a burst goes out whole at its flush: nothing was sent
        assert not devices.held
        monkeypatch.undo()
        bound.ex.click(bound.app, point=bound.pixels(canvas.x + 50, canvas.y + 50))
        running.events.wait_for("release", since=since)  # the click after it, and nothing before it
        assert [(e["x"], e["y"]) for e in running.events.of_type("press", since=since)] == [(50, 50)]
        assert not devices.held
        return
    release = running.events.wait_for("release", since=since)  # the app saw the button go up
    assert (release["x"], release["y"]) == (20, 20) and not devices.held
    assert [e["type"] for e in running.events.of_type("press", since=since)] == ["press"]
