"""Window screenshots: a covered window's own pixels, and the core's fit for large windows."""

from __future__ import annotations

import subprocess
import time

import numpy as np
import pytest
import simplejpeg

from deskhand.backends.linux.x11 import windows
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
    while not (wins := windows.windows_of(executor.x, pad.pid)):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    target = windows.key_window(executor.x, fx.pid)
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
        above = windows.frames_above(executor.x, target)
        pad_win = windows.key_window(executor.x, pad.pid)
        if above and pad_win and pad_win.frame.x <= frame.x and pad_win.frame.y <= frame.y:
            break
        assert time.monotonic() < deadline
        time.sleep(0.02)
    cap = executor.shots.grabber.grab(target)
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
    win = windows.key_window(executor.x, fx.pid)
    subprocess.run(["xdotool", "windowsize", str(win.id), "1800", "1000"], env=desktop.app_env(), check=True)
    deadline = time.monotonic() + 5
    while (w := windows.key_window(executor.x, fx.pid)).client.width != 1800:
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


#: The luminance quantization table of ITU-T T.81 Annex K (K.1), in natural (row-major) order.
ANNEX_K_LUMINANCE = (
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
)  # fmt: skip
#: Zig-zag position -> natural position (a DQT segment stores its 64 values in zig-zag order).
ZIGZAG = (
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14,
    21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60,
    61, 54, 47, 55, 62, 63,
)  # fmt: skip


def luminance_table(jpeg: bytes) -> tuple[int, ...]:
    """Table 0 of the first DQT segment, in natural order."""
    pos = 2
    while pos < len(jpeg):
        marker, length = jpeg[pos + 1], int.from_bytes(jpeg[pos + 2 : pos + 4], "big")
        if marker == 0xDB:
            segment = jpeg[pos + 4 : pos + 2 + length]
            assert segment[0] == 0, "8-bit table 0 first"
            table = [0] * 64
            for i, value in enumerate(segment[1:65]):
                table[ZIGZAG[i]] = value
            return tuple(table)
        pos += 2 + length
    raise AssertionError("no DQT segment")


def test_a_real_capture_is_encoded_at_quality_80(launch, executor):
    """NativeScreenshotPolicyTests' 0.8, read from the JPEG the model receives, not from a constant.

    libjpeg's quality q scales Annex K's table by 200 - 2q percent (q >= 50): 40 % at quality 80.
    """
    fx = launch.gtk_fixture()
    fx.events.wait_for("ready")
    app = executor.resolve(str(fx.pid))
    state = executor.get_app_state(app, disable_diff=True)
    assert state.image is not None and state.image.data[:2] == b"\xff\xd8"
    expected = tuple(min(255, max(1, (v * 40 + 50) // 100)) for v in ANNEX_K_LUMINANCE)
    assert luminance_table(state.image.data) == expected
