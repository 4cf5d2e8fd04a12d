"""Pieces of a desktop's start: free displays, child output with a deadline, log tails, the watchdog.

Standard library only.
"""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path
from typing import Final

from deskhand.desktop import _procs, _spawn
from deskhand.desktop._spawn import Child

_LOG_TAIL: Final = 1500


def display_in_use(n: int) -> bool:
    return _procs.x_lock(n).exists() or _procs.x_socket(n).exists()


def display_taken(log: Path) -> bool:
    """Whether Xvfb failed because another server took the display (worth trying the next one)."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return False
    return "already active" in text or "listening sockets" in text or "lock" in text.lower()


def read_line(fd: int, deadline: float) -> bytes:
    """Read what a child writes to ``fd`` up to a newline or EOF, or until ``deadline``."""
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            break
        chunk = os.read(fd, 256)
        if not chunk:
            break
        data += chunk
    return data


def parse_size(text: str) -> tuple[int, int, int]:
    """``"1920x1080x24"`` or ``"1920x1080"`` -> (width, height, depth)."""
    parts = text.lower().split("x")
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        nums = []
    if len(nums) not in (2, 3) or min(nums) <= 0:
        raise ValueError(f"screen size must look like 1920x1080x24, got {text!r}")
    return nums[0], nums[1], nums[2] if len(nums) == 3 else 24


def tail(path: Path) -> str:
    """The end of a log, for an error message (empty when there is none)."""
    try:
        text = path.read_bytes()[-_LOG_TAIL:].decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f"; its log ends:\n{text}" if text else ""


def start_watchdog(state_path: Path) -> tuple[Child, int, int]:
    """Start the watchdog of the desktop whose state is ``state_path`` (``_watchdog``).

    Returns the first process (it exits once it has forked the watchdog), the write end of the
    pipe whose read end the watchdog holds (only this process has it: closing it, or dying, ends
    the desktop unless it was stopped), and the pipe on which the watchdog reports its pid.
    """
    r, w = os.pipe()
    ready_r, ready_w = os.pipe()
    env = {k: v for k, v in os.environ.items() if k != _procs.MARKER_ENV}
    src = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    argv = [sys.executable, "-S", "-m", "deskhand.desktop._watchdog", str(state_path), str(os.getpid())]
    try:
        first = _spawn.spawn(argv, env=env, stdin=r, stdout=ready_w)
    except BaseException:
        os.close(w)
        os.close(ready_r)
        raise
    finally:
        os.close(r)
        os.close(ready_w)
    return first, w, ready_r


def wait_watchdog(ready: int, deadline: float) -> int:
    """The watchdog's pid, once it has left our process tree."""
    line = read_line(ready, max(deadline, time.monotonic() + 5.0))
    if not line.strip().isdigit():
        from deskhand.core.errors import BackendUnavailable  # noqa: PLC0415 - keep this module stdlib-only

        raise BackendUnavailable("desktop: the watchdog process did not start")
    return int(line)
