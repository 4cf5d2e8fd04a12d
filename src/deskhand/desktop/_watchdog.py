"""Watchdog of an embedded desktop: tears it down when the owning process dies.

Started by :class:`VirtualDesktop` as ``python -m deskhand.desktop._watchdog STATE_PATH`` with the
read end of a pipe as stdin. The owner holds the write end; when the owner exits, crashes or is
killed, the kernel closes it, the read returns EOF, and if the state file still exists (the owner
did not stop the desktop itself) the watchdog ends the desktop.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from deskhand.desktop.registry import DesktopState, teardown


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    path = Path(argv[1])
    while sys.stdin.buffer.read(4096):
        pass
    try:
        state = DesktopState.load(path)
    except (OSError, ValueError, TypeError, KeyError):
        return 0
    teardown(state)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
