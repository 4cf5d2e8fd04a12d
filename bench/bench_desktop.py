"""Benchmark: virtual desktop start and stop, and an app's time to appear on the AT-SPI bus.

Compared with what a user would otherwise run: ``xvfb-run`` + ``dbus-run-session`` startup is not
scriptable to readiness, so the reference here is the bare ``Xvfb -displayfd`` start alone.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time

from deskhand.desktop import VirtualDesktop

RUNS = 5


def _bare_xvfb_ms() -> float:
    r, w = os.pipe()
    t0 = time.monotonic()
    proc = subprocess.Popen(
        ["Xvfb", "-screen", "0", "1920x1080x24", "-nolisten", "tcp", "-displayfd", str(w)],
        pass_fds=(w,), stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    os.close(w)
    with os.fdopen(r, "rb") as reader:
        reader.readline()
    elapsed = (time.monotonic() - t0) * 1000
    proc.terminate()
    proc.wait()
    return elapsed


def main() -> int:
    starts, stops, apps = [], [], []
    for _ in range(RUNS):
        t0 = time.monotonic()
        vd = VirtualDesktop().start()
        starts.append((time.monotonic() - t0) * 1000)
        app = vd.launch(["mousepad"])
        t1 = time.monotonic()
        with vd.a11y() as bus:
            bus.wait_for_pid(app.pid, timeout_s=20)
        apps.append((time.monotonic() - t1) * 1000)
        t2 = time.monotonic()
        vd.stop()
        stops.append((time.monotonic() - t2) * 1000)
    bare = statistics.median(_bare_xvfb_ms() for _ in range(RUNS))
    start = statistics.median(starts)
    print(f"desktop start (Xvfb+dbus+AT-SPI+openbox), median of {RUNS}: {start:.0f} ms "
          f"(min {min(starts):.0f}, max {max(starts):.0f})")  # fmt: skip
    print(f"bare Xvfb -displayfd start: {bare:.0f} ms; whole stack / bare Xvfb = {start / bare:.1f}x")
    print(f"mousepad spawn -> on AT-SPI bus, median: {statistics.median(apps):.0f} ms")
    print(f"desktop stop (with mousepad), median: {statistics.median(stops):.0f} ms")
    return 0
