"""Waiting for an app's window on a desktop (python-xlib; ``$XAUTHORITY`` gives the cookie)."""

from __future__ import annotations

import time


def _window_of(d: object, wid: int, wm_pid: int) -> int | None:
    """The pid of a mapped client window from ``_NET_WM_PID``; 0 for a mapped window without
    one (Tk, SDL and Xt apps set none); None when unmapped or already destroyed."""
    from Xlib import X, Xatom  # noqa: PLC0415
    from Xlib.error import XError  # noqa: PLC0415

    win = d.create_resource_object("window", wid)  # type: ignore[attr-defined]
    try:
        prop = win.get_full_property(wm_pid, Xatom.CARDINAL)
        viewable = win.get_attributes().map_state == X.IsViewable
    except XError:  # the client list can name a window that is being destroyed
        return None
    if not viewable:
        return None
    return int(prop.value[0]) if prop is not None and len(prop.value) else 0


def _client_pids(d: object, wids: list[int]) -> dict[int, int]:
    """The local pid of each window's X client from the X-Resource extension (one round trip);
    windows of remote clients, or a server without the extension, give nothing."""
    from Xlib.error import XError  # noqa: PLC0415
    from Xlib.ext import res  # noqa: PLC0415

    if not wids or not d.has_extension("X-Resource"):  # type: ignore[attr-defined]
        return {}
    client_bits = ~int(d.display.info.resource_id_mask)  # type: ignore[attr-defined]
    try:
        reply = d.res_query_client_ids([{"client": w, "mask": res.LocalClientPIDMask} for w in wids])  # type: ignore[attr-defined]
    except XError:
        return {}
    by_client = {
        int(v.spec.client) & client_bits: int(v.value[0])
        for v in reply.ids
        if v.spec.mask & res.LocalClientPIDMask and len(v.value)
    }
    return {w: by_client[w & client_bits] for w in wids if by_client.get(w & client_bits)}


def wait_for_window(display: str, pid: int, timeout_s: float = 10.0) -> int:
    """Poll ``display``'s ``_NET_CLIENT_LIST`` until ``pid`` has a mapped window; return its id.

    A window's pid is its ``_NET_WM_PID``, else its X client's pid from X-Resource (Tk, SDL and
    Xt apps set no ``_NET_WM_PID``)."""
    from Xlib import Xatom  # noqa: PLC0415 - keep importing the desktop light
    from Xlib import display as xdisplay  # noqa: PLC0415

    deadline = time.monotonic() + timeout_s
    d = xdisplay.Display(display)
    try:
        clients, wm_pid = d.intern_atom("_NET_CLIENT_LIST"), d.intern_atom("_NET_WM_PID")
        root = d.screen().root
        while True:
            listed = root.get_full_property(clients, Xatom.WINDOW)
            unnamed = []
            for wid in [int(w) for w in listed.value] if listed is not None else []:
                owner = _window_of(d, wid, wm_pid)
                if owner == pid:
                    return wid
                if owner == 0:
                    unnamed.append(wid)
            for wid, owner in _client_pids(d, unnamed).items():
                if owner == pid:
                    return wid
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no mapped window of pid {pid} within {timeout_s} s")
            time.sleep(0.01)  # polling the client list with a deadline
    finally:
        d.close()
