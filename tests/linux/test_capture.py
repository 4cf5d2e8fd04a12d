"""Window screenshots: a covered window's own pixels, and the core's fit for large windows."""

from __future__ import annotations

import subprocess
import time

import numpy as np
import pytest
import simplejpeg

from deskhand.backends.linux import _windows
from deskhand.core import screenshot

pytestmark = pytest.mark.desktop

QUADRANTS = {
    "top_left": (220, 30, 30),
    "top_right": (30, 170, 60),
    "bottom_left": (30, 70, 220),
    "bottom_right": (240, 200, 20),
}


def canvas_frame(executor, app):
    state = executor.get_app_state(app, disable_diff=True)
    for line in state.text.splitlines():
        if line.strip().endswith("container Canvas"):
            handle = line.strip().split()[0]
            return executor.element(app, handle).frame, state
    raise AssertionError(state.text)


def test_covered_window_is_captured_from_its_own_pixels(launch, executor, desktop):
    fx = launch.gtk_fixture()
    fx.events.wait_for("ready")
    app = executor.resolve(str(fx.pid))
    frame, _ = canvas_frame(executor, app)
    pad = launch(["mousepad"])
    env = desktop.app_env()
    deadline = time.monotonic() + 10
    while not (wins := _windows.windows_of(executor.x, pad.pid)):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    target = _windows.key_window(executor.x, fx.pid)
    # Put Mousepad over the fixture's canvas and make it active.
    subprocess.run(
        [
            "xdotool",
            "windowsize",
            str(wins[0].id),
            "900",
            "700",
            "windowmove",
            str(wins[0].id),
            str(int(frame.x) - 100),
            str(int(frame.y) - 100),
        ],
        env=env,
        check=True,
    )
    executor.activate(executor.resolve(str(pad.pid)))
    deadline = time.monotonic() + 5
    while True:
        above = _windows.frames_above(executor.x, target)
        pad_win = _windows.key_window(executor.x, pad.pid)
        if above and pad_win and pad_win.frame.x <= frame.x and pad_win.frame.y <= frame.y:
            break
        assert time.monotonic() < deadline
        time.sleep(0.02)
    cap = executor._grabber.grab(target)
    assert cap.source == "composite"
    state = executor.get_app_state(app)
    img = simplejpeg.decode_jpeg(state.image.data, colorspace="RGB")
    t = executor.transform(app)
    qw, qh = frame.width / 4, frame.height / 4
    points = {
        "top_left": (qw, qh),
        "top_right": (3 * qw, qh),
        "bottom_left": (qw, 3 * qh),
        "bottom_right": (3 * qw, 3 * qh),
    }
    for name, (dx, dy) in points.items():
        px = int((frame.x + dx - t.origin_x) * t.pixels_per_point)
        py = int((frame.y + dy - t.origin_y) * t.pixels_per_point)
        got = img[py, px].astype(int)
        assert np.abs(got - np.array(QUADRANTS[name])).max() <= 12, (name, got)


def test_large_window_follows_the_fit(launch, executor, desktop):
    fx = launch.gtk_fixture()
    fx.events.wait_for("ready")
    app = executor.resolve(str(fx.pid))
    win = _windows.key_window(executor.x, fx.pid)
    subprocess.run(["xdotool", "windowsize", str(win.id), "1800", "1000"], env=desktop.app_env(), check=True)
    deadline = time.monotonic() + 5
    while (w := _windows.key_window(executor.x, fx.pid)).client.width != 1800:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    state = executor.get_app_state(app)
    expected = screenshot.fitted_size(w.frame.width, w.frame.height)
    assert max(w.frame.width, w.frame.height) > 768 and w.frame.width * w.frame.height > 2048 * 768 / 2
    assert (state.image.width, state.image.height) == (expected.width, expected.height)
    assert expected.height == 768
    dims = simplejpeg.decode_jpeg_header(state.image.data)[:2]
    assert dims == (expected.height, expected.width)
    t = executor.transform(app)
    assert t.window_id == w.id and t.pixels_per_point == expected.pixels_per_point
