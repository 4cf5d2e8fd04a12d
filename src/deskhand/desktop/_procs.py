"""Process helpers for the virtual desktop (Linux /proc): identity, liveness, group kill, marker sweep.

Standard library only, so the watchdog process can import it cheaply.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from collections.abc import Iterable
from pathlib import Path

#: Every process started for a desktop carries this variable, so a sweep finds the ones that
#: left their process group (D-Bus activated services, double-forking apps).
MARKER_ENV = "DESKHAND_DESKTOP_ID"


def start_ticks(pid: int) -> int | None:
    """Process start time in clock ticks since boot (field 22 of /proc/PID/stat), None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[19])


def _state_letter(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2]


def alive(pid: int, ticks: int | None = None) -> bool:
    """True when ``pid`` runs (zombies count as gone) and, if given, started at ``ticks``."""
    letter = _state_letter(pid)
    if letter is None or letter in "ZX":
        return False
    return ticks is None or start_ticks(pid) == ticks


def group_members(pgid: int) -> list[int]:
    """Live pids whose process group is ``pgid``."""
    out: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in "ZX":
            out.append(int(entry.name))
    return out


def _ancestors() -> set[int]:
    pids = {os.getpid()}
    pid = os.getpid()
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat[stat.rindex(")") + 2 :].split()[1])
        pids.add(pid)
    return pids


def marked_pids(desktop_id: str) -> list[int]:
    """Live pids (not us, not our ancestors) whose environment says they belong to ``desktop_id``."""
    needle = f"{MARKER_ENV}={desktop_id}".encode()
    mine = _ancestors()
    out: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        try:
            env = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in env.split(b"\0") and alive(int(entry.name)):
            out.append(int(entry.name))
    return out


def _signal_groups(pgids: Iterable[int], sig: signal.Signals) -> None:
    for pgid in pgids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)


def _signal_pids(pids: Iterable[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def wait_gone(pids: Iterable[int], deadline: float) -> list[int]:
    """Poll until every pid has exited or ``deadline`` (monotonic) passes; return the survivors.

    A zombie counts as exited: its parent (for our own children, the Popen object) reaps it.
    """
    left = list(pids)
    while True:
        left = [pid for pid in left if alive(pid)]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.005)


def terminate(
    pgids: Iterable[int], desktop_id: str | None, *, also: Iterable[int] = (), grace_s: float = 2.0
) -> list[int]:
    """End the process groups, the pids ``also`` (never us or our ancestors) and (with a
    ``desktop_id``) every marked process: SIGTERM, then SIGKILL.

    Returns the pids that still ran after SIGKILL (normally empty).
    """
    groups = [g for g in pgids if g > 1]
    _signal_groups(groups, signal.SIGTERM)
    members = {pid for g in groups for pid in group_members(g)} | set(groups)
    members |= {pid for pid in also if pid > 1 and alive(pid)} - _ancestors()
    if desktop_id is not None:
        members |= set(marked_pids(desktop_id))
    _signal_pids(members, signal.SIGTERM)
    left = wait_gone(members, time.monotonic() + grace_s)
    if left:
        _signal_groups(groups, signal.SIGKILL)
        _signal_pids(left, signal.SIGKILL)
        left = wait_gone(left, time.monotonic() + grace_s)
    # A second sweep catches what was spawned while we were stopping the rest.
    late = marked_pids(desktop_id) if desktop_id is not None else []
    if late:
        _signal_pids(late, signal.SIGKILL)
        left += wait_gone(late, time.monotonic() + grace_s)
    return left


def x_lock(display: int) -> Path:
    """The X server's lock file of ``display`` (X11's fixed path)."""
    return Path(f"/tmp/.X{display}-lock")  # noqa: S108


def x_socket(display: int) -> Path:
    """The X server's local socket of ``display`` (X11's fixed path)."""
    return Path(f"/tmp/.X11-unix/X{display}")  # noqa: S108


def remove_x_lock(display: int, server_pid: int) -> None:
    """Remove the X lock file and socket of ``display`` once its server ``server_pid`` is dead.

    Xvfb started with ``-displayfd`` writes no lock file, and a killed one leaves its socket; a
    lock naming another process, or a socket that still accepts connections, is left alone.
    """
    if alive(server_pid):
        return
    lock = x_lock(display)
    with contextlib.suppress(OSError, ValueError):
        if int(lock.read_text().strip()) != server_pid:
            return
        lock.unlink()
    sock_path = x_socket(display)
    if not sock_path.exists():
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(str(sock_path))
        except OSError:
            sock_path.unlink(missing_ok=True)
