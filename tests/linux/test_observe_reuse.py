"""An image-only observation (``getScreenshot``) takes the app's last tree read again only while
the app provably did not change (no AT-SPI event from it since that read began); the capture is
always new. Checked on the GTK fixture: its own event log says when it changed; on X11 and on sway."""

from __future__ import annotations

import hashlib
import time
from typing import Any

import pytest
from _act_support import Bound, bind, executor_for, named_rect, poll

from display_support import is_wayland, pointer_to, transform_of

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin")]


def _reusing(bound: Bound) -> None:
    """Observe until an image-only observation takes the last read again (the watcher must have
    been hearing the app's events for a while before that read began)."""
    ex, app = bound.ex, bound.app

    def reused() -> bool:
        ex.get_app_state(app)
        before = ex.trees.reused
        ex.get_app_state(app, image_only=True)
        return ex.trees.reused > before

    poll(reused, 10.0, "an image-only observation taking the last read")


def _digest(ex: Any, app: Any) -> str:
    image = ex.get_app_state(app, image_only=True).image
    assert image is not None
    return hashlib.sha256(image.data).hexdigest()


def test_a_change_the_app_announced_is_read_again(launch: Any, ex: Any, desktop: Any) -> None:
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    bound = bind(ex, running.pid)
    _reusing(bound)
    # another client changes the entry: this executor marks no mutation, only the app's events tell
    activity = ex.settling.activity()
    bus = ex.trees.buses[running.pid]
    t0 = time.monotonic()
    other = executor_for(desktop)
    try:
        theirs = bind(other, running.pid)
        other.set_value(theirs.app, theirs.handle(r"text \(settable, string\) Name"), "changed by another client")
    finally:
        other.close()
    running.events.wait_for("text", lambda e: e["text"] == "changed by another client")
    poll(lambda: (activity.last(bus, None) or 0.0) >= t0, 10.0, "the app's events heard")
    before = ex.trees.reused
    state = ex.get_app_state(bound.app, image_only=True)
    assert ex.trees.reused == before  # read again
    assert "changed by another client" in state.text


def test_a_silent_app_keeps_its_read_and_the_capture_is_new(launch: Any, ex: Any, desktop: Any) -> None:
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    bound = bind(ex, running.pid)
    _reusing(bound)
    first = _digest(ex, bound.app)
    # the pointer over a button: GTK draws it highlighted, and its accessible tree does not change
    f = named_rect(ex, running.pid, "Options")
    try:
        pointer_to(desktop, f.center.x, f.center.y)

        def new_capture_of_the_same_read() -> bool:
            before = ex.trees.reused
            return _digest(ex, bound.app) != first and ex.trees.reused > before

        # (the pointer's entry may itself be an event: on sway GTK emits one, then is silent)
        poll(new_capture_of_the_same_read, 10.0, "the highlighted button in a new capture, the read taken again")
    finally:
        pointer_to(desktop, 1, 1)


def _captures(ex: Any, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The windows captured from now on (the X11 grabber's, or Wayland's screencopy of a view)."""
    grabs: list[object] = []
    if is_wayland(ex):
        real = ex.compositor.capture_view
        monkeypatch.setattr(ex.compositor, "capture_view", lambda v, key: grabs.append(key) or real(v, key))
    else:
        real_grab = ex.shots.grabber.grab
        monkeypatch.setattr(ex.shots.grabber, "grab", lambda window: grabs.append(window) or real_grab(window))
    return grabs


def test_a_text_only_observation_takes_no_capture_and_keeps_coordinates(
    launch: Any, ex: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    bound = bind(ex, running.pid)
    full = ex.get_app_state(bound.app)
    assert full.image is not None
    placed = transform_of(ex, bound.app)
    grabs = _captures(ex, monkeypatch)
    state = ex.get_app_state(bound.app, text_only=True, disable_diff=True)
    monkeypatch.undo()
    assert state.image is None and grabs == []
    assert "Options" in state.text
    # the coordinates of the last screenshot still map as they did: the window did not move
    assert transform_of(ex, bound.app) == placed
    # and a click at a screenshot point lands on that button (the app's log says which)
    f = named_rect(ex, running.pid, "Options")
    point = (
        (f.center.x - placed.origin_x) * placed.pixels_per_point,
        (f.center.y - placed.origin_y) * placed.pixels_per_point,
    )
    ex.click(bound.app, point=point)
    running.events.wait_for("clicked", lambda e: e.get("name") == "Options")
