"""Top-level windows on Linux (X11 + EWMH): a pid's windows, the key window, activation.

Which windows there are and who owns them is ``x11.ownership`` (``_NET_CLIENT_LIST``,
``_NET_WM_PID``, X-Resource). Geometry is in root coordinates: the client area from
``translate_coords`` and the frame from the window manager's frame window (the client's
ancestor that is a child of the root), which includes ``_NET_FRAME_EXTENTS``. The key window
is ``_NET_ACTIVE_WINDOW`` when it belongs to the pid, else the pid's topmost mapped window.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any

from Xlib import X, Xatom, Xutil
from Xlib.protocol import event, request

from deskhand.backends.linux.x11 import ownership
from deskhand.backends.linux.x11 import requests as wire
from deskhand.backends.linux.x11.connection import PROPERTY_WORDS, XConnection, XError
from deskhand.core import deadline as call_deadline
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

#: How long activation may take before it is reported as failed (openbox needs 6-10 ms).
ACTIVATE_TIMEOUT_S = 1.0
#: ``WM_HINTS`` is nine CARD32 words (ICCCM 4.1.2.4).
WM_HINTS_WORDS = 9


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
    #: ``WM_CLASS``: (instance, class), empty strings when unset.
    wm_class: tuple[str, str] = ("", "")
    #: ``_GTK_FRAME_EXTENTS`` (left, right, top, bottom): the margins a GTK window with
    #: client-side decorations keeps around its content (shadows, resize borders); None unset.
    gtk_margins: tuple[int, int, int, int] | None = None


def info(x: XConnection, wid: int, stacking: int = -1, *, pid: int | None = None) -> WindowInfo | None:
    """The window's current title, geometry and state, or None when it is gone.

    ``pid``: the owner when the caller already knows it (else it is read)."""
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
        if pid is None:
            pid = ownership.window_pid(x, wid) or 0
        name = ownership.title(x, win)
        hidden = x.atom("_NET_WM_STATE_HIDDEN") in (x.property(win, "_NET_WM_STATE") or ())
        margins = x.property(win, "_GTK_FRAME_EXTENTS")
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
        title=name,
        client=client,
        frame=frect,
        mapped=attrs.map_state == X.IsViewable and not hidden,
        stacking=stacking,
        wm_class=ownership.wm_class(x, wid),
        gtk_margins=(int(margins[0]), int(margins[1]), int(margins[2]), int(margins[3]))
        if margins is not None and len(margins) == 4
        else None,
    )


def _frame_window(x: XConnection, win: Any) -> Any:
    current = win
    while True:
        tree = current.query_tree()
        if tree.parent == 0 or int(tree.parent.id) == int(x.root.id):
            return current
        current = tree.parent


def windows_of(x: XConnection, pid: int) -> list[WindowInfo]:
    """The pid's top-level windows, bottom to top, with those of its child processes that are
    transient for one of them (``family``: a GIMP plug-in's dialog is GIMP's window)."""
    with x.lock:
        ids = ownership.client_ids(x)
        pids = ownership.window_pids(x, ids)
        mine = ownership.family(x, pid, ids, pids)
        out = []
        for i, wid in enumerate(ids):
            if wid not in mine:
                continue
            w = info(x, wid, stacking=i, pid=pids[wid])
            if w is not None:
                out.append(w)
    return out


def popups(x: XConnection, pid: int) -> list[tuple[int, int, int, int]]:
    """The pid's mapped override-redirect windows (its open menus, tooltips and popups, which no
    window manager lists) as root rectangles, bottom to top. The attributes and geometry of all
    the root's children go out together (one round trip), then the owners of the few mapped
    override-redirect ones."""
    with x.lock:
        children = x.root.query_tree().children
        d = x.display.display
        queued = [
            (
                child,
                request.GetWindowAttributes(display=d, defer=True, window=child),
                request.GetGeometry(display=d, defer=True, drawable=child),
            )
            for child in children
        ]
        shown = []
        for child, attrs, g in queued:
            try:
                attrs.reply()
                g.reply()
            except XError:
                continue  # destroyed since the listing
            if attrs.map_state == X.IsViewable and attrs.override_redirect and g.width > 1 and g.height > 1:
                shown.append((int(child.id), (int(g.x), int(g.y), int(g.width), int(g.height))))
        owners = ownership.window_pids(x, [w for w, _rect in shown]) if shown else {}
    return [rect for w, rect in shown if owners.get(w) == pid]


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
    """Frames of the mapped top-level windows stacked above ``target`` (bottom to top).

    The attribute and geometry requests for all of them go out together and are answered in
    one round trip (a desktop has dozens of unmapped top-level windows)."""
    with x.lock:
        children = x.root.query_tree().children
        ids = [int(c.id) for c in children]
        if target.frame_id not in ids:
            return []
        d = x.display.display
        queued = [
            (
                request.GetWindowAttributes(display=d, defer=True, window=child),
                request.GetGeometry(display=d, defer=True, drawable=child),
            )
            for child in children[ids.index(target.frame_id) + 1 :]
        ]
        out = []
        for attrs, g in queued:
            try:
                attrs.reply()
                g.reply()
            except XError:
                continue  # destroyed since the listing
            if attrs.map_state != X.IsViewable:
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


def accepts_focus(x: XConnection, wid: int) -> bool:
    """Whether the window takes keyboard focus (ICCCM 4.1.7): its ``WM_HINTS`` input flag is set
    or absent, or it lists ``WM_TAKE_FOCUS``. xeyes and xclock take none ("No Input").

    Both properties are asked in one round trip (every key and text call checks this)."""
    with x.lock:
        protocols_atom, take_focus = x.atom("WM_PROTOCOLS"), x.atom("WM_TAKE_FOCUS")
        try:
            hints_req = wire.get_property(x.display, wid, Xatom.WM_HINTS, Xatom.WM_HINTS, WM_HINTS_WORDS)
            protocols_req = wire.get_property(x.display, wid, protocols_atom, Xatom.ATOM, PROPERTY_WORDS)
            hints = wire.property_value(hints_req.raw())
            protocols = wire.property_value(protocols_req.raw())
        except XError:
            return True  # gone: the caller's own checks report it
    if protocols is not None and protocols[0] == 32 and take_focus in protocols[1]:
        return True
    # python-xlib's reading: hints count only as the full nine words of format 32
    if hints is None or hints[0] != 32 or len(hints[1]) != WM_HINTS_WORDS:
        return True
    flags, takes_input = hints[1][0], hints[1][1]
    return not flags & Xutil.InputHint or bool(takes_input)


def activate(x: XConnection, window: WindowInfo, *, timeout_s: float = ACTIVATE_TIMEOUT_S) -> None:
    """Ask the window manager to activate ``window`` and wait until it really has the focus.

    With no window manager, raise it and set the input focus directly. A window that takes no
    focus (``accepts_focus``) is active once it is raised: no other window covers it.

    Raises:
        NativeError: ``stale_window`` when the window is gone; ``user_interference``-free
            ``target_window_changed`` when the focus did not arrive within ``timeout_s``.
    """
    focusable = accepts_focus(x, window.id)
    if not focusable and not covered(x, window):
        return
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
            if not focusable:
                # a manager may not raise a window it cannot focus: ask for the restack too
                with contextlib.suppress(XError):
                    win.configure(stack_mode=X.Above)
        else:
            try:
                win.configure(stack_mode=X.Above)
                if focusable:
                    win.set_input_focus(X.RevertToParent, X.CurrentTime)
            except XError as e:
                raise NativeError("stale_window", f"The window {window.id:#x} is gone.") from e
        x.display.sync()
    deadline = time.monotonic() + call_deadline.bound(timeout_s)
    while True:
        if _has_focus(x, window) if focusable else not covered(x, window):
            return
        if time.monotonic() >= deadline:
            what = "become active" if focusable else "come to the front"
            raise NativeError(
                "target_window_changed",
                f'The window "{window.title}" did not {what} within {timeout_s:g} s.',
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
