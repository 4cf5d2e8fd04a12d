"""The processes connected to a desktop's X server, by the X-Resource extension's client ids.

The marker sweep (``_procs.marked_pids``) finds a desktop's processes by their environment, but a
process may overwrite the memory ``/proc/<pid>/environ`` shows: Chromium reuses it for its process
title. Every GUI app connects to the X server, and the server knows the pid of each local client,
so teardown asks it before ending it.
"""

from __future__ import annotations

import contextlib

from deskhand.desktop import _xauth

#: Xlib's ``LocalClientPIDMask``: identify a client by the pid of its local connection.
_LOCAL_PID = 1 << 1
_ALL_CLIENTS = 0


def client_pids(display_name: str, xauthority: str | None) -> list[int]:
    """Pids of the local clients of ``display_name`` (empty when the server is gone or lacks XRes)."""
    from Xlib import display as xdisplay  # noqa: PLC0415 - keep `import deskhand.desktop` light
    from Xlib import error  # noqa: PLC0415

    try:
        with _xauth.authority(xauthority):
            d = xdisplay.Display(display_name)
    except (error.DisplayError, error.ConnectionClosedError, OSError, ValueError):
        return []
    try:
        if not d.has_extension("X-Resource"):
            return []
        reply = d.res_query_client_ids([{"client": _ALL_CLIENTS, "mask": _LOCAL_PID}])
        return sorted({int(item.value[0]) for item in reply.ids if item.value and int(item.value[0]) > 0})
    except (error.XError, error.ConnectionClosedError, OSError, AttributeError, IndexError):
        return []
    finally:
        with contextlib.suppress(Exception):
            d.close()
