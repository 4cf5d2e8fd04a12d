"""Top-level windows on Linux (X11 + EWMH): a pid's windows, the key window, activation.

Windows come from ``_NET_CLIENT_LIST`` (or, with no window manager, the viewable children of
the root that carry ``_NET_WM_PID``). Geometry is in root coordinates: the client area from
``translate_coords`` and the frame from the window manager's frame window (the client's
ancestor that is a child of the root), which includes ``_NET_FRAME_EXTENTS``. The key window
is ``_NET_ACTIVE_WINDOW`` when it belongs to the pid, else the pid's topmost mapped window.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from Xlib import X
from Xlib.protocol import event

from deskhand.backends.linux._x11 import XConnection, XError
from deskhand.core import deadline as call_deadline
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

#: How long activation may take before it is reported as failed (openbox needs 6-10 ms).
ACTIVATE_TIMEOUT_S = 1.0


@dataclass(frozen=True, slots=True)
class WindowInfo:
    """One top-level window as the X server and the window manager see it now."""

    id: int  # the client window
    frame_id: int  # the window manager's frame (a child of the root); ``id`` without a WM
    pid: int
    title: str
    client: Rect  # client area, root coordinates
    frame: Rect  # whole window with decorations, root coordinates
    mapped: bool
    #: Position in the stacking order, bottom to top (higher is in front).
    stacking: int


def client_ids(x: XConnection) -> list[int]:
    """Managed client windows, bottom to top when the WM tells the stacking order."""
    for name in ("_NET_CLIENT_LIST_STACKING", "_NET_CLIENT_LIST"):
        value = x.property(x.root, name)
        if value is not None:
            return [int(w) for w in value]
    # No window manager: viewable children of the root that say which process they belong to.
    children = x.root.query_tree().children
    return [int(c.id) for c in children if x.property(c, "_NET_WM_PID") is not None]


def window_pid(x: XConnection, wid: int) -> int | None:
    value = x.property(x.window(wid), "_NET_WM_PID")
    return int(value[0]) if value is not None and len(value) else None


def info(x: XConnection, wid: int, stacking: int = -1) -> WindowInfo | None:
    """The window's current title, geometry and state, or None when it is gone."""
    with x.lock:
        win = x.window(wid)
        try:
            attrs = win.get_attributes()
            geo = win.get_geometry()
            origin = win.translate_coords(x.root, 0, 0)
            frame = _frame_window(x, win)
            fgeo = frame.get_geometry() if frame.id != wid else geo
        except XError:
            return None
        pid = window_pid(x, wid) or 0
        title = x.text_property(win, "_NET_WM_NAME") or x.text_property(win, "WM_NAME") or ""
        hidden = x.atom("_NET_WM_STATE_HIDDEN") in (x.property(win, "_NET_WM_STATE") or ())
    # translate_coords gives the root position of the client's origin, negated.
    client = Rect(float(-origin.x), float(-origin.y), float(geo.width), float(geo.height))
    if frame.id == wid:
        frect = client
    else:
        bw = fgeo.border_width
        frect = Rect(float(fgeo.x + bw), float(fgeo.y + bw), float(fgeo.width), float(fgeo.height))
    return WindowInfo(
        id=wid,
        frame_id=int(frame.id),
        pid=pid,
        title=title,
        client=client,
        frame=frect,
        mapped=attrs.map_state == X.IsViewable and not hidden,
        stacking=stacking,
    )


def _frame_window(x: XConnection, win: Any) -> Any:
    current = win
    while True:
        tree = current.query_tree()
        if tree.parent == 0 or int(tree.parent.id) == int(x.root.id):
            return current
        current = tree.parent


def windows_of(x: XConnection, pid: int) -> list[WindowInfo]:
    """The pid's top-level windows, bottom to top."""
    with x.lock:
        ids = client_ids(x)
        out = []
        for i, wid in enumerate(ids):
            if window_pid(x, wid) != pid:
                continue
            w = info(x, wid, stacking=i)
            if w is not None:
                out.append(w)
    return out


def active_window(x: XConnection) -> int | None:
    value = x.property(x.root, "_NET_ACTIVE_WINDOW")
    if value is None or not len(value) or int(value[0]) == 0:
        return None
    return int(value[0])


def key_window(x: XConnection, pid: int, windows: list[WindowInfo] | None = None) -> WindowInfo | None:
    """``_NET_ACTIVE_WINDOW`` when it belongs to ``pid``, else the pid's topmost mapped window.

    ``windows``: the pid's windows as ``windows_of`` just read them (saves reading them again)."""
    if windows is None:
        windows = windows_of(x, pid)
    windows = [w for w in windows if w.mapped and w.frame.width > 1 and w.frame.height > 1]
    active = active_window(x)
    for w in windows:
        if w.id == active:
            return w
    return windows[-1] if windows else None


def frames_above(x: XConnection, target: WindowInfo) -> list[Rect]:
    """Frames of the mapped top-level windows stacked above ``target`` (bottom to top)."""
    with x.lock:
        children = x.root.query_tree().children
        ids = [int(c.id) for c in children]
        if target.frame_id not in ids:
            return []
        out = []
        for child in children[ids.index(target.frame_id) + 1 :]:
            try:
                if child.get_attributes().map_state != X.IsViewable:
                    continue
                g = child.get_geometry()
            except XError:
                continue
            out.append(
                Rect(float(g.x), float(g.y), float(g.width + 2 * g.border_width), float(g.height + 2 * g.border_width))
            )
    return out


def covered(x: XConnection, target: WindowInfo) -> bool:
    """Whether a mapped top-level window stacked above ``target`` overlaps its frame."""
    f = target.frame
    return any(
        f.x < a.x + a.width and a.x < f.x + f.width and f.y < a.y + a.height and a.y < f.y + f.height
        for a in frames_above(x, target)
    )


def activate(x: XConnection, window: WindowInfo, *, timeout_s: float = ACTIVATE_TIMEOUT_S) -> None:
    """Ask the window manager to activate ``window`` and wait until it really has the focus.

    With no window manager, raise it and set the input focus directly.

    Raises:
        NativeError: ``stale_window`` when the window is gone; ``user_interference``-free
            ``target_window_changed`` when the focus did not arrive within ``timeout_s``.
    """
    with x.lock:
        win = x.window(window.id)
        if x.property(x.root, "_NET_SUPPORTING_WM_CHECK") is not None:
            msg = event.ClientMessage(
                window=win,
                client_type=x.atom("_NET_ACTIVE_WINDOW"),
                # source 2 = a pager/tool acting for the user, so the WM does not refuse it.
                data=(32, [2, X.CurrentTime, 0, 0, 0]),
            )
            x.root.send_event(msg, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
        else:
            try:
                win.configure(stack_mode=X.Above)
                win.set_input_focus(X.RevertToParent, X.CurrentTime)
            except XError as e:
                raise NativeError("stale_window", f"The window {window.id:#x} is gone.") from e
        x.display.sync()
    deadline = time.monotonic() + call_deadline.bound(timeout_s)
    while True:
        if _has_focus(x, window):
            return
        if time.monotonic() >= deadline:
            raise NativeError(
                "target_window_changed",
                f'The window "{window.title}" did not become active within {timeout_s:g} s.',
            )
        time.sleep(0.002)  # polling the server with a deadline, not a fixed wait


def _has_focus(x: XConnection, window: WindowInfo) -> bool:
    with x.lock:
        active = active_window(x)
        if active is not None:
            return active == window.id
        focus = x.display.get_input_focus().focus
    if isinstance(focus, int):
        return False
    fid = int(focus.id)
    return fid in (window.id, window.frame_id)
