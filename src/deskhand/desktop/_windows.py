"""Waiting for an app's window on a desktop (python-xlib; ``$XAUTHORITY`` gives the cookie)."""

from __future__ import annotations

import time


def _window_of(d: object, wid: int, wm_pid: int) -> int | None:
    """The pid of a mapped client window, or None (unmapped, no pid, or already destroyed)."""
    from Xlib import X, Xatom  # noqa: PLC0415
    from Xlib.error import XError  # noqa: PLC0415

    win = d.create_resource_object("window", wid)  # type: ignore[attr-defined]
    try:
        prop = win.get_full_property(wm_pid, Xatom.CARDINAL)
        viewable = win.get_attributes().map_state == X.IsViewable
    except XError:  # the client list can name a window that is being destroyed
        return None
    return int(prop.value[0]) if prop is not None and viewable else None


def wait_for_window(display: str, pid: int, timeout_s: float = 10.0) -> int:
    """Poll ``display``'s ``_NET_CLIENT_LIST`` until ``pid`` has a mapped window; return its id."""
    from Xlib import Xatom  # noqa: PLC0415 - keep importing the desktop light
    from Xlib import display as xdisplay  # noqa: PLC0415

    deadline = time.monotonic() + timeout_s
    d = xdisplay.Display(display)
    try:
        clients, wm_pid = d.intern_atom("_NET_CLIENT_LIST"), d.intern_atom("_NET_WM_PID")
        root = d.screen().root
        while True:
            listed = root.get_full_property(clients, Xatom.WINDOW)
            for wid in listed.value if listed is not None else []:
                if _window_of(d, int(wid), wm_pid) == pid:
                    return int(wid)
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no mapped window of pid {pid} within {timeout_s} s")
            time.sleep(0.01)  # polling the client list with a deadline
    finally:
        d.close()
