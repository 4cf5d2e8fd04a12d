"""What the Wayland desktop benches share (``bench_wayland``, ``bench_kwin``, ``bench_gnome``): their
sizes, the GTK fixture launched with its event log, timings printed as one row each, the time
until the fixture logs an effect (its log stamps ``time.monotonic()``, our clock), and an
observation's image from a captured frame."""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bench._poll import poll
from deskhand.backends.linux.wayland.compositor import Frame
from deskhand.backends.linux.x11.capture import encode
from deskhand.backends.linux.x11.shm import Pixels
from deskhand.core import screenshot
from deskhand.desktop import VirtualDesktop
from deskhand.desktop.virtual import LaunchedApp

RUNS = 10
STARTS = 3
SIZE = (1280, 800, 24)
FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "apps" / "gtk_fixture.py"


def timed(fn: Callable[[], object], runs: int = RUNS) -> list[float]:
    """Milliseconds of ``runs`` calls of ``fn``."""
    times = []
    for _ in range(runs):
        t0 = time.monotonic()
        fn()
        times.append((time.monotonic() - t0) * 1000)
    return times


def stats(times: list[float]) -> str:
    return f"median {statistics.median(times):7.1f} ms  (min {min(times):.1f}, max {max(times):.1f})"


def row(name: str, times: list[float]) -> None:
    print(f"  {name:<52} {stats(times)}")


def logged(log: Path, since: float, kind: str, **match: object) -> float | None:
    """When the fixture logged an event of ``kind`` with ``match``'s fields since ``since`` (None: not yet)."""
    for e in map(json.loads, log.read_text().splitlines()):
        if e.get("type") == kind and e["t"] >= since and all(e.get(k) == v for k, v in match.items()):
            return float(e["t"])
    return None


def until_logged(log: Path, send: Callable[[], object], kind: str, **match: object) -> list[float]:
    """Milliseconds from ``send()`` until the fixture logs the effect, ``RUNS`` times."""
    times = []
    for _ in range(RUNS):
        t0 = time.monotonic()
        send()
        seen = poll(lambda t0=t0: logged(log, t0, kind, **match), timeout_s=3, what=kind)
        times.append((seen - t0) * 1000)
    return times


def installed(*programs: str, fix: str) -> bool:
    """Whether every one of ``programs`` is installed; if not, the bench says it is skipped and why."""
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        print(f"skipped: {', '.join(missing)} not installed ({fix})")
    return not missing


def start_stop(compositor: str, label: str) -> None:
    """Print how long a desktop with ``compositor`` takes to start and stop, ``STARTS`` times."""
    starts = timed(lambda: VirtualDesktop(compositor=compositor, size=SIZE).start().stop(), STARTS)
    print(f"  {label} desktop start+stop, {STARTS} runs: {stats(starts)}")


@contextmanager
def fixture_desktop(compositor: str) -> Iterator[tuple[VirtualDesktop, LaunchedApp, Path, str]]:
    """A desktop with ``compositor`` and the GTK fixture (``tests/apps/gtk_fixture.py``) in it, once
    the fixture logs that it is ready; the fixture's event log, and a scratch dir."""
    with VirtualDesktop(compositor=compositor, size=SIZE) as vd, tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "events.jsonl"
        app = vd.launch(["/usr/bin/python3", str(FIXTURE)], env={"DESKHAND_EVENT_LOG": str(log)})
        poll(lambda: log.exists() and '"ready"' in log.read_text(), what="the fixture's window")
        yield vd, app, log, tmp


def jpeg(frame: Frame) -> bytes:
    """``frame`` fitted and encoded as an observation sends its image."""
    fitted = screenshot.fitted_size(frame.width, frame.height)
    return encode(Pixels(frame.data, frame.width, frame.height), fitted.width, fitted.height)
