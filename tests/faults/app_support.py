"""The GTK fixture app as the fault tests drive it: bound with a point on its canvas, and settled
(a ping round trip: whatever the app was sent before is in its log by then)."""

from __future__ import annotations

from dataclasses import dataclass

from _act_support import Bound, bind, named_rect

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.executor import LinuxExecutor
from desktop_support import Running


@dataclass
class Canvas:
    """The GTK fixture, bound through an executor (observed once), and a point 40 px into its canvas
    in pixels of that observation's screenshot (what ``click`` and a cell's ``app.click`` take)."""

    running: Running
    bound: Bound
    x: float
    y: float


def on_canvas(ex: LinuxExecutor, running: Running) -> Canvas:
    bound = bind(ex, running.pid)
    r = named_rect(ex, bound.app.pid, "Canvas")
    x, y = bound.pixels(r.x + 40, r.y + 40)
    return Canvas(running, bound, x, y)


def settled(ex: LinuxExecutor, app: RunningApp, timeout_s: float = 5.0) -> bool:
    """Whether the app answered a ping sent to its key window within ``timeout_s``: it has handled
    every event sent before it (the app processes its input in order)."""
    ping = ex.actor.session.pinger()
    return ping.answered(ping.send(ex.actor.session.key_window(app)), timeout_s)
