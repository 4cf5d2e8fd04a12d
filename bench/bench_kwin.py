"""Benchmark: the KWin desktop (``kwin_wayland --virtual``) and the compositor seam on it.

* start: ``VirtualDesktop(compositor="kwin")`` to ready (session bus, KWin, AT-SPI), then stop;
* inventory: ``views()`` (a KWin script over D-Bus per query) and ``focus`` + read back;
* screenshot: ScreenShot2 of the output and of the fixture's window (raw pixels, then JPEG as an
  observation sends it);
* click and typing through fake input, each until the GTK fixture logs its effect (the log
  stamps ``time.monotonic()``, our clock).

What users would call instead is not here: ``spectacle`` is not installed, ``ydotool`` is not
packaged, and ``wtype`` needs ``zwp_virtual_keyboard_manager_v1``, which KWin 5.27 does not offer
(its run below says so). Skipped when KWin is not installed.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench._poll import poll
from deskhand.backends.linux.wayland.kwin.compositor import KWin
from deskhand.backends.linux.x11.capture import encode
from deskhand.backends.linux.x11.shm import Pixels
from deskhand.core import screenshot
from deskhand.desktop import VirtualDesktop

RUNS = 10
STARTS = 3
SIZE = (1280, 800, 24)
TEXT = "kwin bench 012345678"[:20]
FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "apps" / "gtk_fixture.py"


def _ms(fn: Callable[[], object], runs: int = RUNS) -> tuple[float, float, float]:
    times = []
    for _ in range(runs):
        t0 = time.monotonic()
        fn()
        times.append((time.monotonic() - t0) * 1000)
    return statistics.median(times), min(times), max(times)


def _row(name: str, stats: tuple[float, float, float]) -> None:
    med, lo, hi = stats
    print(f"  {name:<52} median {med:7.1f} ms  (min {lo:.1f}, max {hi:.1f})")


def _logged(log: Path, since: float, kind: str, **match: object) -> float | None:
    for e in map(json.loads, log.read_text().splitlines()):
        if e.get("type") == kind and e["t"] >= since and all(e.get(k) == v for k, v in match.items()):
            return float(e["t"])
    return None


def _until_logged(log: Path, send: Callable[[], None], kind: str, **match: object) -> tuple[float, float, float]:
    times = []
    for _ in range(RUNS):
        t0 = time.monotonic()
        send()
        seen = poll(lambda t0=t0: _logged(log, t0, kind, **match), timeout_s=3, what=kind)
        times.append((seen - t0) * 1000)
    return statistics.median(times), min(times), max(times)


def main() -> int:
    if shutil.which("kwin_wayland") is None:
        print("skipped: kwin_wayland not installed (apt-get install kwin-wayland)")
        return 0
    starts = []
    for _ in range(STARTS):
        t0 = time.monotonic()
        VirtualDesktop(compositor="kwin", size=SIZE).start().stop()
        starts.append((time.monotonic() - t0) * 1000)
    print(f"  KWin desktop start+stop (dbus+KWin+AT-SPI), median of {STARTS}: {statistics.median(starts):.0f} ms")
    with VirtualDesktop(compositor="kwin", size=SIZE) as vd, tempfile.TemporaryDirectory() as tmp:
        env = vd.app_env()
        log = Path(tmp) / "events.jsonl"
        app = vd.launch(["/usr/bin/python3", str(FIXTURE)], env={"DESKHAND_EVENT_LOG": str(log)})
        poll(lambda: log.exists() and '"ready"' in log.read_text(), what="the fixture's window")
        kwin = KWin(vd.env)
        try:
            view = poll(lambda: next((v for v in kwin.views() if v.pid == app.pid), None), what="the view")
            print("windows")
            _row("views() (a KWin script over D-Bus)", _ms(kwin.views))
            _row("focus + views() (activate, read back)", _ms(lambda: (kwin.focus(view.id), kwin.views())))
            print("screenshot")
            _row("ScreenShot2 CaptureArea, output 1280x800 (raw)", _ms(kwin.capture))
            _row(
                f"ScreenShot2 CaptureWindow, {view.rect[2]}x{view.rect[3]} (raw)",
                _ms(lambda: kwin.capture_view([], view)),
            )

            def shot_jpeg() -> bytes:
                frame = kwin.capture()
                fitted = screenshot.fitted_size(frame.width, frame.height)
                return encode(Pixels(frame.data, frame.width, frame.height), fitted.width, fitted.height)

            _row("CaptureArea + fit + JPEG (an observation's image)", _ms(shot_jpeg))
            d = kwin.input
            x, y = view.rect[0], view.rect[1]
            print("fake input, until the app logs the effect")
            _row(
                "click Apply", _until_logged(log, lambda: (d.click(x + 49, y + 28), d.flush()), "clicked", name="Apply")
            )
            d.click(x + 200, y + 78)  # the Name entry (tests/apps/README.md)
            d.flush()

            def typed() -> None:
                d.chord(["ctrl"], "a")
                d.chord([], "backspace")
                d.type_text(TEXT)
                d.flush()

            _row(f"select all, delete, type {len(TEXT)} characters", _until_logged(log, typed, "text", text=TEXT))
            if shutil.which("wtype"):
                done = subprocess.run(["wtype", "x"], env=env, capture_output=True, text=True, timeout=10, check=False)
                print(f"  wtype x: exit {done.returncode}: {(done.stderr or done.stdout).strip()[:100]}")
        finally:
            kwin.close()
    return 0
