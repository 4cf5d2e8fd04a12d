"""What every Wayland compositor's starter (``_sway``, ``_kwin``, ``_gnome``) shares: the record of
a started compositor and the environment its clients get (``Started``), the compositor's own
environment (``own_env``), its private directory (``private_dir``), and the polls for its start
(``poll_ready``) and for an app's window (``wait_for_window``). Standard library only.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final, TypeVar

from deskhand.core.errors import BackendUnavailable
from deskhand.desktop._procs import MARKER_ENV
from deskhand.desktop._spawn import Child
from deskhand.desktop._startup import tail as log_tail

__all__ = ("NATIVE", "Started", "own_env", "poll_ready", "private_dir", "wait_for_window")

#: Every client of a private Wayland desktop runs natively on it (apps find no X display).
NATIVE: Final[Mapping[str, str]] = MappingProxyType(
    {"XDG_SESSION_TYPE": "wayland", "GDK_BACKEND": "wayland", "QT_QPA_PLATFORM": "wayland"}
)
#: The compositor's environment: nothing of the caller's but PATH and the locale.
KEEP_ENV: Final = ("PATH", "LANG", "LC_ALL")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Started:
    """A started compositor: its process, its own runtime dir (removed on teardown), its Wayland
    socket, and the variables of its own a client needs too (sway's IPC socket, the desktop's name)."""

    proc: Child
    runtime_dir: Path
    display: Path
    exports: Mapping[str, str] = field(default_factory=dict)

    def client_env(self) -> dict[str, str]:
        """What a client needs to reach it: the Wayland socket by absolute path, native Wayland
        toolkits, and the compositor's own variables."""
        return {"WAYLAND_DISPLAY": str(self.display), **NATIVE, **self.exports}


def own_env(base_env: Mapping[str, str], desktop_id: str, keep: tuple[str, ...] = KEEP_ENV) -> dict[str, str]:
    """The compositor's environment to build on: ``keep`` of ``base_env``, and the desktop's marker
    (``_procs.MARKER_ENV``, by which a stop finds its processes)."""
    env = {k: base_env[k] for k in keep if k in base_env}
    env[MARKER_ENV] = desktop_id
    return env


@contextmanager
def private_dir(prefix: str) -> Iterator[Path]:
    """A fresh 0700 directory in the temporary dir, removed again when the start in it fails."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


def poll_ready(
    ready: Callable[[], T | None],
    *,
    alive: Callable[[], bool],
    deadline: float,
    failure: str,
    log: Path,
    step_s: float = 0.02,
) -> T:
    """Poll ``ready`` until it gives something, and return that; ``BackendUnavailable`` with
    ``failure`` and the tail of the compositor's ``log`` once it exited or the deadline passed."""
    while True:
        found = ready()
        if found is not None:
            return found
        if not alive() or time.monotonic() >= deadline:
            raise BackendUnavailable(f"{failure}{log_tail(log)}")
        time.sleep(step_s)


def wait_for_window(
    pids: Callable[[], Collection[int]], pid: int, timeout_s: float, *, on: str, step_s: float = 0.01
) -> int:
    """Poll ``pids`` (those with a window on the compositor now) until ``pid`` is among them; the pid
    (an app is on the accessibility bus before it maps). ``TimeoutError`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while pid not in pids():
        if time.monotonic() >= deadline:
            raise TimeoutError(f"pid {pid} has no window on {on} within {timeout_s} s")
        time.sleep(step_s)
    return pid
