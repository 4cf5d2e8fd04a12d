"""The processes connected to a desktop's X server, by the X-Resource extension's client ids.

The marker sweep (``_procs.marked_pids``) finds a desktop's processes by their environment, but a
process may overwrite the memory ``/proc/<pid>/environ`` shows: Chromium reuses it for its process
title. Every GUI app connects to the X server, and the server knows the pid of each local client,
so teardown asks it before ending it.
"""

from __future__ import annotations

import contextlib

from deskhand.desktop import _procs, _xauth

#: Xlib's ``LocalClientPIDMask``: identify a client by the pid of its local connection.
_LOCAL_PID = 1 << 1
_ALL_CLIENTS = 0


def client_pids(display_name: str, xauthority: str | None) -> list[int]:
    """Pids of the local clients of ``display_name`` (empty when the server is gone or lacks XRes)."""
    try:
        from Xlib import display as xdisplay  # noqa: PLC0415 - keep `import deskhand.desktop` light
    except ImportError:  # a process without the site packages: teardown goes on without this sweep
        return []
    number = display_name.removeprefix(":").split(".")[0]
    if not number.isdigit() or not _procs.x_socket(int(number)).exists():
        return []  # only a local server (python-xlib would try TCP next, even for a bogus number)
    # A desktop of this process needs no swap of the process-wide XAUTHORITY (which other threads'
    # connections would read meanwhile: the fleet tears desktops down while others are in use).
    own = _xauth.registered(int(number))
    try:
        with _xauth.authority(None if own else xauthority):
            d = xdisplay.Display(display_name)
    except Exception:  # teardown goes on without this sweep, whatever the cause
        return []
    try:
        if not d.has_extension("X-Resource"):
            return []
        reply = d.res_query_client_ids([{"client": _ALL_CLIENTS, "mask": _LOCAL_PID}])
        return sorted({int(item.value[0]) for item in reply.ids if item.value and int(item.value[0]) > 0})
    except Exception:  # the server went away meanwhile, or answered oddly: no sweep
        return []
    finally:
        with contextlib.suppress(Exception):
            d.close()
