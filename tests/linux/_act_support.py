"""Shared pieces of the acting tests: an executor bound to the test desktop and small probes, on
whichever display server the test runs (``tests/displays.py``; the per-server reads are in
``tests/display_support.py``)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from deskhand.backends.base import RunningApp
from deskhand.core.geometry import Rect
from display_support import (
    MatrixExecutor,
    executor_for,
    frame_of,
    is_wayland,
    key_rect,
    nothing_held,
    transform_of,
)

__all__ = ["Bound", "bind", "executor_for", "field_route", "mousepad_env", "named_rect", "nothing_held", "poll"]

T = TypeVar("T")


def poll(fn: Callable[[], T | None], timeout_s: float = 5.0, what: str = "condition") -> T:
    """Call ``fn`` until it returns something truthy; fail after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = fn()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} not reached within {timeout_s} s (last: {got!r})")
        time.sleep(0.01)


@dataclass
class Bound:
    """An app bound through a real executor, observed once."""

    ex: MatrixExecutor
    app: RunningApp
    text: str

    def observe(self) -> str:
        self.text = self.ex.get_app_state(self.app).text
        return self.text

    def handle(self, pattern: str) -> str:
        m = re.search(r"(g\d+:\d+) " + pattern, self.text)
        assert m, f"{pattern!r} not in\n{self.text}"
        return m.group(1)

    def frame(self, handle: str) -> Rect:
        frame = frame_of(self.ex, self.app, handle)
        assert frame is not None
        return frame

    def pixels(self, gx: float, gy: float) -> tuple[float, float]:
        """Global points back to screenshot pixels of the latest observation."""
        t = transform_of(self.ex, self.app)
        assert t is not None
        return ((gx - t.origin_x) * t.pixels_per_point, (gy - t.origin_y) * t.pixels_per_point)


def named_rect(ex: MatrixExecutor, pid: int, name: str) -> Rect:
    """The screen rectangle of the app's first accessible called ``name`` (read through AT-SPI;
    on Wayland placed by the window's origin as the executor's last observation found it)."""
    from deskhand.backends.linux.atspi.connection import Deadline  # noqa: PLC0415
    from deskhand.backends.linux.atspi.element import A11y, Ref  # noqa: PLC0415

    buses = ex.atspi.apps(Deadline(2.0))
    bus = next(b for b, p in ex.atspi.pids(buses, Deadline(2.0)).items() if p == pid)
    snap = ex.atspi.snapshot(bus, Deadline(3.0))
    node = next(n for n in snap.nodes.values() if n.name == name)
    ext = A11y(ex.atspi).extents(Ref(bus, node.path))
    assert ext is not None
    return Rect(*ext)


def mousepad_env(tmp: Path) -> dict[str, str]:
    """Private settings for a Mousepad run: in-memory GSettings and XDG dirs under ``tmp``.

    Without them Mousepad restores the last (killed) session and opens with a "restore data?"
    dialog instead of an empty document.
    """
    dirs = {
        name: tmp / name.lower() for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    return {"GSETTINGS_BACKEND": "memory", **{k: str(v) for k, v in dirs.items()}}


def bind(ex: MatrixExecutor, pid: int) -> Bound:
    """Resolve the app once its window is mapped (an app reaches the bus before its window), then
    observe it, as an agent's first get_app_state would."""
    app = poll(lambda: _resolve(ex, pid), what=f"pid {pid} resolvable")
    poll(lambda: key_rect(ex, app), what=f"a mapped window of pid {pid}")
    return Bound(ex, app, ex.get_app_state(app).text)


def _resolve(ex: MatrixExecutor, pid: int) -> RunningApp | None:
    try:
        return ex.resolve(str(pid))
    except Exception:
        return None


def field_route(ex: MatrixExecutor) -> str:
    """The route ``type_text`` takes into a focused text field: its accessible text on X11; on
    Wayland the keys of the session's virtual keyboard (then the field is read back)."""
    return "key_events" if is_wayland(ex) else "accessible_text"
