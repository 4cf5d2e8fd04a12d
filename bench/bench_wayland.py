"""Benchmark: the Wayland desktop (headless sway) and its seam, side by side with ``grim`` and
``wtype`` as users call them.

* start: ``VirtualDesktop(wayland=True)`` to ready (sway, session bus, AT-SPI);
* screenshot: a screencopy of the output and of a 400x300 region into raw pixels (and then JPEG,
  as an observation sends it) against ``grim out.png`` / ``grim -g "x,y wxh" out.png``;
* typing: 20 characters from dispatch until the GTK fixture's entry logs the whole text, through
  the session's virtual keyboard against ``wtype TEXT`` (a new keyboard per call). The fixture's
  event log stamps ``time.monotonic()``, the same clock as ours;
* the executor's actions (paste against ``wl-copy`` + ``wtype``, setValue, selectText, scroll,
  drag), each until the fixture logs its effect (``bench/_wayland_act.py``).

Skipped (with the reason) where sway, grim or wtype is not installed.
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

from bench import _wayland_act
from bench._poll import poll
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.backends.linux.wayland.wlroots.devices import Devices
from deskhand.backends.linux.wayland.wlroots.screencopy import capture
from deskhand.backends.linux.x11.capture import encode
from deskhand.backends.linux.x11.shm import Pixels
from deskhand.core import screenshot
from deskhand.desktop import VirtualDesktop

RUNS = 10
STARTS = 3
SIZE = (1280, 800, 24)
REGION = (100, 100, 400, 300)
TEXT = "wayland bench 0123456"[:20]
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


def _text_logged(log: Path, text: str, since: float) -> float | None:
    for line in log.read_text().splitlines():
        e = json.loads(line)
        if e.get("type") == "text" and e.get("text") == text and e["t"] >= since:
            return float(e["t"])
    return None


def _last_text(log: Path) -> str:
    texts = [e for e in map(json.loads, log.read_text().splitlines()) if e.get("type") == "text"]
    return str(texts[-1]["text"]) if texts else ""


def main() -> int:
    missing = [tool for tool in ("sway", "grim", "wtype") if shutil.which(tool) is None]
    if missing:
        print(f"skipped: {', '.join(missing)} not installed (apt-get install sway grim wtype)")
        return 0
    starts = []
    for _ in range(STARTS):
        t0 = time.monotonic()
        VirtualDesktop(wayland=True, size=SIZE).start().stop()
        starts.append((time.monotonic() - t0) * 1000)
    print(f"  Wayland desktop start+stop (sway+dbus+AT-SPI), median of {STARTS}: {statistics.median(starts):.0f} ms")
    with VirtualDesktop(wayland=True, size=SIZE) as vd, tempfile.TemporaryDirectory() as tmp:
        env = vd.app_env()
        log = Path(tmp) / "events.jsonl"
        app = vd.launch(["/usr/bin/python3", str(FIXTURE)], env={"DESKHAND_EVENT_LOG": str(log)})
        poll(lambda: log.exists() and '"ready"' in log.read_text(), what="the fixture's window")
        with Client(vd.env) as client:
            devices = Devices(client)
            out = str(Path(tmp) / "out.png")
            x, y, w, h = REGION
            print("screenshot")
            _row("deskhand screencopy, output 1280x800 (raw)", _ms(lambda: capture(client)))
            _row("grim out.png, output 1280x800", _ms(lambda: subprocess.run(["grim", out], env=env, check=True)))
            _row("deskhand screencopy, region 400x300 (raw)", _ms(lambda: capture(client, REGION)))
            geometry = f"{x},{y} {w}x{h}"
            _row(
                "grim -g region out.png",
                _ms(lambda: subprocess.run(["grim", "-g", geometry, out], env=env, check=True)),
            )

            def shot_jpeg() -> bytes:
                frame = capture(client)
                fitted = screenshot.fitted_size(frame.width, frame.height)
                return encode(Pixels(frame.data, frame.width, frame.height), fitted.width, fitted.height)

            _row("deskhand screencopy + fit + JPEG (an observation's image)", _ms(shot_jpeg))
            with SwayIPC(env=vd.env) as ipc:
                view = next(v for v in ipc.views() if v.pid == app.pid)
            # the Name entry of the fixture (tests/apps/README.md): click it, then type
            devices.click(view.rect[0] + 200, view.rect[1] + 78)
            devices.flush()
            print(f"typing {len(TEXT)} characters until the app logs the text")
            for name, send in (
                ("deskhand virtual keyboard (one for the session)", lambda: devices.type_text(TEXT)),
                ("wtype TEXT", lambda: subprocess.run(["wtype", TEXT], env=env, check=True)),
            ):
                times, wrong = [], []
                for _ in range(RUNS):
                    cleared = time.monotonic()
                    devices.type_text("x")  # so that clearing always logs an empty text
                    devices.chord(["ctrl"], "a")
                    devices.chord([], "backspace")
                    devices.flush()
                    poll(lambda c=cleared: _text_logged(log, "", c), what="an empty entry")
                    t0 = time.monotonic()
                    send()
                    devices.flush()
                    try:
                        seen = poll(lambda t0=t0: _text_logged(log, TEXT, t0), timeout_s=3, what="the typed text")
                    except TimeoutError:
                        wrong.append(_last_text(log))
                        continue
                    times.append((seen - t0) * 1000)
                if times:
                    _row(name, (statistics.median(times), min(times), max(times)))
                if wrong:
                    print(f"  {name}: {len(wrong)} of {RUNS} runs typed something else, e.g. {wrong[0]!r}")
            devices.close()
        _wayland_act.run(vd.env, env, log, app.pid)
    return 0
