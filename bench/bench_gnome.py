"""Benchmark: the GNOME desktop (headless GNOME Shell 43) and the compositor seam on it.

* start: ``VirtualDesktop(compositor="gnome")`` to ready (session and AT-SPI buses, a private
  system bus, PipeWire, WirePlumber, GNOME Shell with deskhand's extension answering), then stop;
* windows: the extension's ``Windows`` and an activation read back;
* screenshot: one window's own pixels (the extension's PNG, decoded and cut to the frame), then
  fitted and JPEG-encoded as an observation sends it;
* input through Mutter's RemoteDesktop, each until the GTK fixture logs its effect (the log
  stamps ``time.monotonic()``, our clock): a click, keys, text committed through the input method,
  and the clipboard's snapshot.

What users would call instead: ``org.gnome.Shell.Screenshot`` answers only allow-listed callers
("ScreenshotArea is not allowed", run below), ``gnome-screenshot`` is not installed here, and
``ydotool`` is not packaged. Skipped when GNOME Shell is not installed.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench._poll import poll
from deskhand.backends.linux.wayland.gnome.compositor import Gnome
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.backends.linux.x11.capture import encode
from deskhand.backends.linux.x11.shm import Pixels
from deskhand.core import screenshot
from deskhand.desktop import VirtualDesktop

RUNS = 10
STARTS = 3
SIZE = (1280, 800, 24)
TEXT = "gnome bench 01234567"
FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "apps" / "gtk_fixture.py"


def _stats(times: list[float]) -> str:
    return f"median {statistics.median(times):7.1f} ms  (min {min(times):.1f}, max {max(times):.1f})"


def _timed(fn: Callable[[], object], runs: int = RUNS) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.monotonic()
        fn()
        times.append((time.monotonic() - t0) * 1000)
    return times


def _logged(log: Path, since: float, kind: str, **match: object) -> float | None:
    for e in map(json.loads, log.read_text().splitlines()):
        if e.get("type") == kind and e["t"] >= since and all(e.get(k) == v for k, v in match.items()):
            return float(e["t"])
    return None


def _until(log: Path, send: Callable[[], None], kind: str, **match: object) -> list[float]:
    """Milliseconds from sending to the fixture logging the effect, ``RUNS`` times."""
    times = []
    for _ in range(RUNS):
        t0 = time.monotonic()
        send()
        seen = poll(lambda t0=t0: _logged(log, t0, kind, **match), timeout_s=3, what=kind)
        times.append((seen - t0) * 1000)
    return times


def _centers(vd: VirtualDesktop, pid: int, patterns: list[str]) -> list[tuple[float, float]]:
    """The screen centers of the fixture's elements matching ``patterns`` (one observation)."""
    ex = WaylandExecutor(vd.env)
    try:
        app = ex.resolve(str(pid))
        text = ex.get_app_state(app, text_only=True).text
        out = []
        for pattern in patterns:
            found = re.search(r"(g\d+:\d+) " + pattern, text)
            assert found, (pattern, text)
            frame = ex.element(app, found.group(1)).frame
            assert frame is not None
            out.append((frame.center.x, frame.center.y))
        return out
    finally:
        ex.close()


def main() -> int:
    if shutil.which("gnome-shell") is None:
        print("skipped: gnome-shell not installed (apt-get install --no-install-recommends gnome-shell pipewire)")
        return 0
    starts = _timed(lambda: VirtualDesktop(compositor="gnome", size=SIZE).start().stop(), STARTS)
    print(f"  GNOME desktop start+stop (buses, system bus, PipeWire, GNOME Shell, extension): {_stats(starts)}")
    with VirtualDesktop(compositor="gnome", size=SIZE) as vd, tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "events.jsonl"
        app = vd.launch(["/usr/bin/python3", str(FIXTURE)], env={"DESKHAND_EVENT_LOG": str(log)})
        poll(lambda: log.exists() and '"ready"' in log.read_text(), what="the fixture's window")
        gnome = Gnome(vd.env)
        try:
            view = poll(
                lambda: next((v for v in gnome.views() if v.pid == app.pid and v.visible), None), what="the view"
            )
            print("windows (deskhand's extension over the session bus)")
            print(f"  {'views()':<52} {_stats(_timed(gnome.views))}")
            focused = _timed(lambda: (gnome.focus(view.id), gnome.views()))
            print(f"  {'focus + views() (activate, read back)':<52} {_stats(focused)}")
            print("screenshot (the window's own pixels)")
            label = f"capture_view {view.rect[2]}x{view.rect[3]} (PNG, decoded, cut)"
            print(f"  {label:<52} {_stats(_timed(lambda: gnome.capture_view([], view)))}")

            def shot_jpeg() -> bytes:
                frame = gnome.capture_view([], view)
                fitted = screenshot.fitted_size(frame.width, frame.height)
                return encode(Pixels(frame.data, frame.width, frame.height), fitted.width, fitted.height)

            print(f"  {'capture_view + fit + JPEG (an observation image)':<52} {_stats(_timed(shot_jpeg))}")
            d = gnome.input
            apply, name = _centers(vd, app.pid, ["push button Apply", "text \\(settable, string\\) Name"])
            print("input through RemoteDesktop, until the app logs the effect")

            def click_apply() -> None:
                d.click(*apply)
                d.flush()

            print(f"  {'click Apply':<52} {_stats(_until(log, click_apply, 'clicked', name='Apply'))}")
            d.click(*name)
            d.flush()

            def typed(text: str) -> Callable[[], None]:
                def send() -> None:
                    d.chord(["ctrl"], "a")
                    d.chord([], "backspace")
                    d.flush()
                    d.type_text(text)
                    d.flush()

                return send

            label = f"select all, delete, type {len(TEXT)} characters"
            print(f"  {label:<52} {_stats(_until(log, typed(TEXT), 'text', text=TEXT))}")
            committed = "Grüße ✓ 0123456789"
            label = f"select all, delete, commit {len(committed)} characters (IM)"
            print(f"  {label:<52} {_stats(_until(log, typed(committed), 'text', text=committed))}")
            d.chord(["ctrl"], "a")
            d.chord(["ctrl"], "c")  # the fixture's text is the clipboard now
            d.flush()
            clip = gnome.clipboard()
            try:
                poll(lambda: clip.snapshot() or None, timeout_s=3, what="the fixture's copy")
                print(f"  {'clipboard snapshot, every type (SelectionRead)':<52} {_stats(_timed(clip.snapshot))}")
            finally:
                clip.close(hand_off=False)
            peer = subprocess.run(
                ["gdbus", "call", "--session", "-d", "org.gnome.Shell.Screenshot", "-o", "/org/gnome/Shell/Screenshot",
                 "-m", "org.gnome.Shell.Screenshot.ScreenshotArea", "0", "0", "100", "100", "false", f"{tmp}/peer.png"],
                env={**vd.env, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=10, check=False,
            )  # fmt: skip
            print(f"  gdbus Shell.Screenshot ScreenshotArea: exit {peer.returncode}: {peer.stderr.strip()[:100]}")
        finally:
            gnome.close()
    return 0
