"""The X server of an X11 desktop: Xvfb on a free display, with access control on.

The display is found with ``-displayfd`` starting from a random number, so parallel starts spread
out; a display another server took is skipped.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Final

from deskhand.core.errors import BackendUnavailable
from deskhand.desktop import _procs, _xauth
from deskhand.desktop._buses import Spawn
from deskhand.desktop._spawn import Child
from deskhand.desktop._startup import display_in_use, display_taken, read_line
from deskhand.desktop._startup import tail as log_tail

_FIRST_DISPLAY: Final = 100
_LAST_DISPLAY: Final = 1000


def start_xvfb(spawn: Spawn, runtime_dir: Path, geometry: str, cookie: bytes, deadline: float) -> tuple[int, Child]:
    """Start Xvfb on a free display (access control on, ``cookie`` as its key); (display, process)."""
    server_auth = runtime_dir / "xserver.auth"
    _xauth.write_private(server_auth, _xauth.entry(_xauth.FAMILY_WILD, b"", None, cookie))
    first = random.randrange(_FIRST_DISPLAY, _LAST_DISPLAY)  # noqa: S311 - spreads parallel starts
    span = _LAST_DISPLAY - _FIRST_DISPLAY
    for i in range(span):
        n = _FIRST_DISPLAY + (first - _FIRST_DISPLAY + i) % span
        if display_in_use(n):
            continue
        log = runtime_dir / "xvfb.log"
        log.unlink(missing_ok=True)  # the error shows the last attempt's log
        r, w = os.pipe()
        argv = [
            "Xvfb",
            f":{n}",
            "-screen",
            "0",
            geometry,
            "-nolisten",
            "tcp",
            "-auth",
            str(server_auth),
            "-noreset",
        ]
        try:
            proc = spawn("xvfb", [*argv, "-displayfd", str(w)], pass_fds=(w,))
        finally:
            os.close(w)
        try:
            line = read_line(r, deadline)
        finally:
            os.close(r)
        if line.strip().isdigit():
            return int(line.strip()), proc
        _procs.terminate([proc.pid], None, grace_s=1.0)
        proc.poll()
        if time.monotonic() >= deadline or not display_taken(log):
            break
    raise BackendUnavailable(f"desktop: Xvfb did not start{log_tail(runtime_dir / 'xvfb.log')}")
