"""Watchdog of an embedded desktop: tears it down when the owning process dies.

Started by :class:`VirtualDesktop` as ``python -m deskhand.desktop._watchdog STATE_PATH OWNER_PID``
with the read end of a pipe as stdin and a second pipe as stdout. It forks at once and the first
process exits, so the watchdog is no child of the owner: a process manager that kills the owner
together with its direct children (Ray does, on worker exit) does not kill it. It then starts a
session of its own, writes its pid to stdout (the owner waits for that line before its desktop
counts as started) and reads stdin. The owner holds the pipe's write end; when the owner exits,
crashes or is killed, the kernel closes it and the read returns EOF. If the state file still
exists (the owner did not stop the desktop itself) the watchdog ends the desktop; in any case it
sweeps processes marked with the desktop's id and removes its runtime directory, and a dead
owner's per-process X authority file.
"""

from __future__ import annotations

import os
import signal
import sys

# Only what waiting needs is imported before the pipe closes; the teardown code loads after, so
# the watchdog costs the desktop's start little more than an interpreter.


def _detach() -> None:
    if os.fork():
        os._exit(0)
    try:  # noqa: SIM105 - contextlib is one import more before the pipe closes
        os.setsid()
    except OSError:
        pass
    os.write(1, f"{os.getpid()}\n".encode())
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


def main(argv: list[str]) -> int:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    owner = int(argv[2])
    _detach()
    while os.read(0, 4096):
        pass
    import site  # noqa: PLC0415

    site.main()  # started with -S (a fast start); the teardown asks the X server through python-xlib
    import shutil  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    from deskhand.desktop import _procs, _xauth  # noqa: PLC0415
    from deskhand.desktop.registry import DesktopState, teardown  # noqa: PLC0415

    path = Path(argv[1])
    state: DesktopState | None
    try:
        state = DesktopState.load(path)
    except (OSError, ValueError, TypeError, KeyError):
        state = None
    if state is not None:
        teardown(state)
    else:  # stopped by its owner, or the owner died before the state was written
        _procs.terminate([], path.stem)
        shutil.rmtree(path.with_suffix(""), ignore_errors=True)
    if not _procs.alive(owner):
        _xauth.process_file(path.parent, owner).unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
