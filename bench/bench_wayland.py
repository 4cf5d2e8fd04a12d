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
import subprocess
import time
from pathlib import Path

from bench import _wayland_act
from bench._poll import poll
from bench._wl_bench import RUNS, fixture_desktop, installed, jpeg, logged, row, start_stop, timed
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.backends.linux.wayland.wlroots.devices import Devices
from deskhand.backends.linux.wayland.wlroots.screencopy import capture

REGION = (100, 100, 400, 300)
TEXT = "wayland bench 0123456"[:20]


def _last_text(log: Path) -> str:
    texts = [e for e in map(json.loads, log.read_text().splitlines()) if e.get("type") == "text"]
    return str(texts[-1]["text"]) if texts else ""


def main() -> int:
    if not installed("sway", "grim", "wtype", fix="apt-get install sway grim wtype"):
        return 0
    start_stop("sway", "Wayland (sway+dbus+AT-SPI)")
    with fixture_desktop("sway") as (vd, app, log, tmp):
        env = vd.app_env()
        with Client(vd.env) as client:
            devices = Devices(client)
            out = str(Path(tmp) / "out.png")
            x, y, w, h = REGION
            print("screenshot")
            row("deskhand screencopy, output 1280x800 (raw)", timed(lambda: capture(client)))
            row("grim out.png, output 1280x800", timed(lambda: subprocess.run(["grim", out], env=env, check=True)))
            row("deskhand screencopy, region 400x300 (raw)", timed(lambda: capture(client, REGION)))
            geometry = f"{x},{y} {w}x{h}"
            row(
                "grim -g region out.png",
                timed(lambda: subprocess.run(["grim", "-g", geometry, out], env=env, check=True)),
            )
            row("deskhand screencopy + fit + JPEG (an observation's image)", timed(lambda: jpeg(capture(client))))
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
                    poll(lambda c=cleared: logged(log, c, "text", text=""), what="an empty entry")
                    t0 = time.monotonic()
                    send()
                    devices.flush()
                    try:
                        seen = poll(
                            lambda t0=t0: logged(log, t0, "text", text=TEXT), timeout_s=3, what="the typed text"
                        )
                    except TimeoutError:
                        wrong.append(_last_text(log))
                        continue
                    times.append((seen - t0) * 1000)
                if times:
                    row(name, times)
                if wrong:
                    print(f"  {name}: {len(wrong)} of {RUNS} runs typed something else, e.g. {wrong[0]!r}")
            devices.close()
        _wayland_act.run(vd.env, env, log, app.pid)
    return 0
