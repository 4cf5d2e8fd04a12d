"""Processes as the tests see them from outside, read from ``/proc`` (Linux).

A process that ends while it is read is skipped, never an error: the tests list processes that
are exiting on purpose.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state first), None when gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def alive(pid: int) -> bool:
    """Running: it exists and is neither a zombie nor dead."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def started(pid: int) -> int:
    """When it started, in clock ticks since boot (0 when it is gone)."""
    fields = _stat(pid)
    return int(fields[19]) if fields else 0


def cpu_s(pid: int) -> float:
    """The CPU time it used, user and system (0 when it is gone)."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def processes() -> dict[int, tuple[int, bytes]]:
    """Every process: pid -> (parent pid, command line, its arguments NUL-separated)."""
    found: dict[int, tuple[int, bytes]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(int(entry.name))
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if fields is not None:
            found[int(entry.name)] = (int(fields[1]), cmdline)
    return found


def children(pid: int, needle: bytes = b"") -> list[int]:
    """The processes whose parent is ``pid`` and whose command line holds ``needle``."""
    return [p for p, (ppid, cmd) in processes().items() if ppid == pid and needle in cmd]


def descendants(pid: int) -> set[int]:
    """``pid`` and every process below it (from ``/proc/<pid>/task/*/children``)."""
    found = {pid}
    todo = [pid]
    while todo:
        try:
            tasks = list(Path(f"/proc/{todo.pop()}/task").iterdir())
        except OSError:  # the process ended while we looked (LibreOffice's launcher hands over and exits)
            continue
        for task in tasks:
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
            todo.extend(k for k in kids if k not in found)
            found.update(kids)
    return found


@contextlib.contextmanager
def cpu_hogs(on: bool) -> Iterator[None]:
    """Two child processes spinning for the duration (``on``), ended by the test itself: the app
    is slow, and what the test checks must still hold."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 if on else 0)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait(5)
