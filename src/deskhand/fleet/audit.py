"""The leak audit of a closed desktop (Linux): what of it survived its teardown.

A pooled desktop is never reused: each lease gets a fresh one and the old one is torn down. The
audit proves the teardown: no process carrying the desktop's marker, no X socket or lock of its
display (a socket that answers, or a lock naming a live server, belongs to a desktop that took the
number since: this one's processes are gone), no registry entry and no runtime directory.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from deskhand.desktop import _procs
from deskhand.desktop.registry import registry_dir

#: How long a torn-down desktop's processes may take to be reaped before they count as leaks.
SETTLE_S: Final = 5.0


@dataclass(frozen=True, slots=True)
class Audit:
    """What survived one desktop's teardown; :attr:`leaks` is 0 for a clean one."""

    desktop_id: str
    #: pids still carrying the desktop's marker.
    processes: tuple[int, ...] = ()
    x_socket: bool = False
    x_lock: bool = False
    registry_entry: bool = False
    runtime_dir: bool = False
    #: seconds the teardown took.
    teardown_s: float = 0.0
    notes: tuple[str, ...] = field(default=())

    @property
    def leaks(self) -> int:
        return len(self.processes) + sum((self.x_socket, self.x_lock, self.registry_entry, self.runtime_dir))

    def as_dict(self) -> dict[str, object]:
        return {
            "desktop_id": self.desktop_id,
            "leaks": self.leaks,
            "processes": list(self.processes),
            "x_socket": self.x_socket,
            "x_lock": self.x_lock,
            "registry_entry": self.registry_entry,
            "runtime_dir": self.runtime_dir,
            "teardown_s": round(self.teardown_s, 3),
        }


def audit(desktop_id: str, display: int | None, runtime_dir: Path, *, teardown_s: float = 0.0) -> Audit:
    """Look for what ``desktop_id`` left, waiting up to :data:`SETTLE_S` for processes to be reaped."""
    deadline = time.monotonic() + SETTLE_S
    while (pids := _procs.marked_pids(desktop_id)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return Audit(
        desktop_id=desktop_id,
        processes=tuple(pids),
        x_socket=display is not None and _stale_socket(display),
        x_lock=display is not None and _stale_lock(display),
        registry_entry=(registry_dir() / f"{desktop_id}.json").exists(),
        runtime_dir=runtime_dir.exists(),
        teardown_s=teardown_s,
    )


def _stale_socket(display: int) -> bool:
    """The display's socket exists and nothing listens on it (a live one is another desktop's now)."""
    path = _procs.x_socket(display)
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(str(path))
        except OSError:
            return True
    return False


def _stale_lock(display: int) -> bool:
    """The display's lock exists and names no live process (a live one is another desktop's server)."""
    try:
        pid = int(_procs.x_lock(display).read_text().strip())
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True
    return not _procs.alive(pid)
