"""Waiting in the benchmarks: poll a condition with a deadline (never a bare sleep), and wait for
an app's state text to show something (an app reaches the bus before its window)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.errors import DeskhandError

T = TypeVar("T")


def poll(
    fn: Callable[[], T],
    timeout_s: float = 20.0,
    what: str = "condition",
    *,
    every_s: float = 0.05,
    ignore: tuple[type[Exception], ...] = (),
) -> T:
    """``fn()`` once it returns something truthy, called every ``every_s`` (0: at once again).
    An exception in ``ignore`` counts as not yet, and the last one is raised at the deadline;
    otherwise ``TimeoutError`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            got = fn()
        except ignore:
            if time.monotonic() > deadline:
                raise
        else:
            if got:
                return got
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} not reached within {timeout_s} s (last: {got!r})")
        if every_s:
            time.sleep(every_s)


def app_showing(ex: LinuxExecutor, pid: int, needle: str, timeout_s: float = 60.0) -> RunningApp:
    """The app of ``pid`` (``ex.resolve``) once its whole state text holds ``needle``."""

    def shown() -> RunningApp | None:
        app = ex.resolve(str(pid))
        return app if needle in ex.get_app_state(app, disable_diff=True).text else None

    return poll(shown, timeout_s, f"{needle!r} in the state of pid {pid}", every_s=0.2, ignore=(DeskhandError,))
