"""Pointer actions against the GTK and Qt fixture canvases, checked in the apps' own event logs, on
X11 and on sway (``displays``); the window manager's button grab is X11's own."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _act_support import Bound, bind, executor_for, named_rect, nothing_held, poll
from Xlib import display as xdisplay

from deskhand.core.errors import NativeError
from deskhand.desktop import VirtualDesktop
from desktop_support import Launcher
from display_support import is_wayland, key_rect, move_window, transform_of

pytestmark = pytest.mark.desktop
BOTH = pytest.mark.displays("x11", "sway", "kwin")


TOOLKITS = ["gtk", "qt"]


def _start(launch: Launcher, toolkit: str):
    running = launch.gtk_fixture() if toolkit == "gtk" else launch.qt_fixture()
    running.extra["toolkit"] = running.events.wait_for("ready")["toolkit"]
    return running


@pytest.fixture(params=TOOLKITS)
def canvas_app(request, launch, ex):
    running = _start(launch, request.param)
    return running, bind(ex, running.pid)


def _canvas(bound: Bound) -> tuple[float, float, float, float]:
    f = named_rect(bound.ex, bound.app.pid, "Canvas")
    return f.x, f.y, f.width, f.height


def _pointer_events(running, since):
    return [e for e in running.events.read() if e["t"] >= since and e["type"] in ("press", "release", "motion")]


def _is_qt_report(got: list[tuple[str, tuple[int, int]]], posted: list[tuple[str, tuple[int, int]]]) -> bool:
    """Whether Qt 6's report of the five posted events is faithful (seen in its own xcb input log).

    Qt drops a motion to the point the pointer is already at, and may merge pointer motions that
    arrive together into the last one (even with ``AA_CompressHighFrequencyEvents`` off), depending
    on when its event loop wakes. So the press and release must be exact, and the motions between
    them must be the posted ones, in order, possibly thinned, always ending at the end point.
    """
    press, *motions, release = posted
    moved = [m for m in motions if m[1] != press[1]]
    if got[:1] != [press] or got[-1:] != [release]:
        return False
    seen = got[1:-1]
    if moved and seen[-1:] != moved[-1:]:
        return False
    it = iter(moved)
    return all(any(m == p for p in it) for m in seen)  # an ordered subsequence of the posted motions


@BOTH
@pytest.mark.parametrize(
    ("start", "end"),
    [((60, 50), (300, 200)), ((120, 120), (120, 120)), ((300, 220), (40, 30))],
    ids=["forward", "zero-distance", "negative"],
)
def test_drag_posts_exactly_five_events(canvas_app, desktop, start, end):
    running, bound = canvas_app
    _drag_and_check(running, bound, start, end)
    assert nothing_held(desktop, bound.ex) == ((), set())


def _drag_and_check(running, bound: Bound, start: tuple[int, int], end: tuple[int, int]) -> None:
    """One drag on the canvas, then exactly the core's five events in the app's own log."""
    cx, cy, _w, _h = _canvas(bound)
    a = bound.pixels(cx + start[0], cy + start[1])
    b = bound.pixels(cx + end[0], cy + end[1])
    since = time.monotonic()
    bound.ex.drag(bound.app, a, b)
    running.events.wait_for("release", since=since)
    events = _pointer_events(running, since)
    # Before the gesture the pointer moves to the origin, with no button held, unless it is there.
    first_press = next(i for i, e in enumerate(events) if e["type"] == "press")
    before = events[:first_press]
    assert all(e["type"] == "motion" and "button1" not in e["modifiers"] for e in before)
    assert len(before) <= 1
    gesture = events[first_press:]
    mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    expected = [("press", start), ("motion", start), ("motion", mid), ("motion", end), ("release", end)]
    want = [(kind, (round(x), round(y))) for kind, (x, y) in expected]
    got = [(e["type"], (e["x"], e["y"])) for e in gesture]
    if running.extra.get("toolkit") == "qt":
        assert _is_qt_report(got, want), events
    elif is_wayland(bound.ex):
        # A wlroots compositor sends a client no motion to the point the pointer is already at:
        # the events dragged at the origin reach the app only once the pointer moved.
        assert got == [w for w in want if w[0] != "motion" or w[1] != want[0][1]], events
    else:
        # Exactly the core's five events, in order, at their points (GTK logs every motion).
        assert got == want, events
    assert gesture[0]["button"] == 1 and gesture[-1]["button"] == 1
    assert all("button1" in e["modifiers"] for e in gesture[1:])


def test_own_desktop_has_no_window_manager_button_grab(canvas_app):
    # deskhand's openbox configuration has no client mouse bindings, so no press is ever frozen
    # and the drag posts its burst without waiting for the manager.
    _running, bound = canvas_app
    gate = bound.ex.actor.session.gate(bound.app, button=1)
    assert gate.grabbed is False


@pytest.fixture(scope="module")
def grabbing_desktop() -> Iterator[VirtualDesktop]:
    """A desktop whose manager grabs presses synchronously: openbox with its stock configuration."""
    stock = Path("/etc/xdg/openbox/rc.xml")
    if not stock.exists():
        pytest.skip("openbox's stock rc.xml is not installed")
    with VirtualDesktop(wm=False) as vd:
        vd.launch(["openbox", "--sm-disable", "--config-file", str(stock)])
        d = xdisplay.Display(f":{vd.display}")
        try:
            check = d.intern_atom("_NET_SUPPORTING_WM_CHECK")
            poll(lambda: d.screen().root.get_full_property(check, 0) is not None, what="openbox running")
        finally:
            d.close()
        yield vd


def test_drag_under_a_grabbing_window_manager_keeps_its_path(grabbing_desktop, tmp_path):
    # Stock openbox freezes the pointer after every press on a client window until it replays the
    # press; the actor finds the grab and waits for the replay before the motions, every time.
    launcher = Launcher(grabbing_desktop, tmp_path)
    ex = executor_for(grabbing_desktop)
    try:
        running = launcher.gtk_fixture()
        running.events.wait_for("ready")
        bound = bind(ex, running.pid)
        assert ex.actor.session.gate(bound.app, button=1).grabbed is True
        for i in range(20):
            start, end = ((60, 50), (300, 200)) if i % 2 == 0 else ((300, 220), (40, 30))
            _drag_and_check(running, bound, start, end)
        assert nothing_held(grabbing_desktop, ex) == ((), set())
    finally:
        ex.close()
        launcher.close()


@BOTH
def test_click_pairs_and_buttons(canvas_app, desktop):
    running, bound = canvas_app
    cx, cy, _w, _h = _canvas(bound)
    for count, button, number in ((1, "left", 1), (2, "left", 1), (3, "left", 1), (1, "right", 3), (1, "middle", 2)):
        since = time.monotonic()
        # 40 px apart: Qt 6 on Wayland counts a press 10 px from the last call's as its double click
        p = bound.pixels(cx + 60 + count * 40, cy + 80)
        bound.ex.click(bound.app, point=p, button=button, count=count)
        poll(lambda s=since, n=count: len(running.events.of_type("release", since=s)) >= n, what="releases")
        presses = running.events.of_type("press", since=since)
        releases = running.events.of_type("release", since=since)
        assert [e["button"] for e in presses] == [number] * count
        # The toolkit's own click count: the pairs of one call make one multi-click (Qt has no
        # triple click: its third press counts 1 again).
        counts = list(range(1, count + 1))
        if running.extra["toolkit"] == "qt":
            counts = [1, 2, 1][:count]
        assert [e["click_count"] for e in presses] == counts
        assert [e["button"] for e in releases] == [number] * count
        assert {(e["x"], e["y"]) for e in presses + releases} == {(60 + count * 40, 80)}
        # a click posts no motion inside the pairs
        moves = [e for e in running.events.of_type("motion", since=presses[0]["t"]) if e["t"] <= releases[-1]["t"]]
        assert moves == []
    assert nothing_held(desktop, bound.ex) == ((), set())


@BOTH
def test_a_click_where_the_pointer_rests_after_the_window_moved_lands_at_the_point(canvas_app, desktop):
    # The pointer rests on the canvas; the window moves under it; a click at that same screen
    # pixel is at another canvas point now. KWin sends no motion to the pixel the pointer is at,
    # and none to a window moving under it: without deskhand's hover the app takes the press
    # at the old point.
    running, bound = canvas_app
    cx, cy, _w, _h = _canvas(bound)
    bound.ex.click(bound.app, point=bound.pixels(cx + 100, cy + 100))
    poll(lambda: running.events.of_type("release"), what="the first click")
    moved = key_rect(bound.ex, bound.app)
    assert moved is not None
    move_window(bound.ex, bound.app, int(moved.x) + 40, int(moved.y) + 30)
    bound.observe()
    nx, ny, _w, _h = _canvas(bound)
    dx, dy = round(nx - cx), round(ny - cy)  # the window manager may shift it by its frame
    assert dx >= 40 and dy >= 30, (dx, dy)
    since = time.monotonic()
    bound.ex.click(bound.app, point=bound.pixels(cx + 100, cy + 100))
    press = running.events.wait_for("press", since=since)
    assert (press["x"], press["y"]) == (100 - dx, 100 - dy), running.events.read()
    assert nothing_held(desktop, bound.ex) == ((), set())


@BOTH
def test_drag_outside_screenshot_is_refused_before_dispatch(canvas_app, desktop):
    running, bound = canvas_app
    t = transform_of(bound.ex, bound.app)
    with pytest.raises(NativeError) as info:
        bound.ex.drag(bound.app, (10, 10), (t.image_width + 5, 10))
    assert info.value.code == "bad_payload"
    assert running.events.of_type("press") == []


@BOTH
@pytest.mark.parametrize("toolkit", TOOLKITS)
def test_app_killed_mid_batch(launch, ex, desktop, toolkit):
    running = _start(launch, toolkit)
    bound = bind(ex, running.pid)
    cx, cy, _w, _h = _canvas(bound)
    a, b = bound.pixels(cx + 20, cy + 20), bound.pixels(cx + 200, cy + 150)
    errors: list[str] = []
    done = 0
    since = time.monotonic()
    for i in range(40):
        if i == 10:
            # the app has handled the ten drags it was sent, then dies; the next call comes after
            # its process is gone, so the gate's answer is exact
            running.events.wait_for(
                "release", predicate=lambda _e: len(running.events.of_type("release", since=since)) >= 10, since=since
            )
            os.kill(running.pid, signal.SIGKILL)
            running.app.popen.wait(timeout=5)
        try:
            bound.ex.drag(bound.app, a, b)
            done += 1
        except NativeError as e:
            errors.append(e.code)
            break
    assert done == 10
    assert errors == ["process_gone"]
    assert nothing_held(desktop, bound.ex) == ((), set())
    # nothing replayed: exactly one press and one release per drag that returned
    assert len(running.events.of_type("press", since=since)) == 10
    assert len(running.events.of_type("release", since=since)) == 10


@BOTH
@pytest.mark.parametrize("toolkit", TOOLKITS)
def test_window_closed_between_observation_and_action(launch, ex, desktop, toolkit):
    running = _start(launch, toolkit)
    bound = bind(ex, running.pid)
    assert running.app.stop() is not None  # ended and reaped: its pid no longer exists
    with pytest.raises(NativeError) as info:
        bound.ex.click(bound.app, point=(50, 50))
    assert info.value.code == "process_gone"
    assert nothing_held(desktop, bound.ex) == ((), set())


@BOTH
@pytest.mark.parametrize(("toolkit", "cover_toolkit"), [("gtk", "qt"), ("qt", "gtk")])
def test_covered_window_gets_the_click_not_the_cover(launch, ex, desktop, toolkit, cover_toolkit):
    target = _start(launch, toolkit)
    bound = bind(ex, target.pid)
    cx, cy, _w, _h = _canvas(bound)
    p = bound.pixels(cx + 50, cy + 50)
    cover = _start(launch, cover_toolkit)
    since = time.monotonic()
    bound.ex.click(bound.app, point=p)
    target.events.wait_for("release", since=since)
    assert cover.events.of_type("press", since=since) == []
    assert nothing_held(desktop, bound.ex) == ((), set())
