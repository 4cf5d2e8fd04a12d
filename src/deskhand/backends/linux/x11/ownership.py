"""Top-level client windows on X11 and the processes that own them.

Windows come from ``_NET_CLIENT_LIST`` (or, with no window manager, the viewable children of
the root that are not override-redirect). Every such window is a target, whether or not its app
has accessibility: its pid is ``_NET_WM_PID``, else the X-Resource client pid
(``XConnection.client_pids``). A pid's windows include those of its child processes that are
transient for one of them (``family``). ``x11.windows`` reads their geometry and state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from Xlib import X

from deskhand.backends.linux import procfs
from deskhand.backends.linux.x11.connection import XConnection, XError


@dataclass(frozen=True, slots=True)
class TopLevel:
    """A top-level window as discovery sees it: id, owner, title and class (no geometry)."""

    id: int
    pid: int
    title: str
    wm_class: tuple[str, str]


def client_ids(x: XConnection) -> list[int]:
    """Managed client windows, bottom to top when the WM tells the stacking order."""
    for name in ("_NET_CLIENT_LIST_STACKING", "_NET_CLIENT_LIST"):
        value = x.property(x.root, name)
        if value is not None:
            return [int(w) for w in value]
    # No window manager: the viewable children of the root an app made as its windows.
    with x.lock:
        out = []
        for child in x.root.query_tree().children:
            try:
                attrs = child.get_attributes()
            except XError:
                continue
            if attrs.map_state == X.IsViewable and not attrs.override_redirect:
                out.append(int(child.id))
    return out


def window_pid(x: XConnection, wid: int) -> int | None:
    """The window's ``_NET_WM_PID``, else its client's pid from X-Resource; None when unknown."""
    return window_pids(x, [wid]).get(wid)


def window_pids(x: XConnection, wids: list[int]) -> dict[int, int]:
    """The owning pid of each window that has one (``_NET_WM_PID`` first, then X-Resource)."""
    out: dict[int, int] = {}
    with x.lock:
        for wid in wids:
            value = x.property(x.window(wid), "_NET_WM_PID")
            if value is not None and len(value) and int(value[0]) > 0:
                out[wid] = int(value[0])
        out.update(x.client_pids([w for w in wids if w not in out]))
    return out


def toplevels(x: XConnection) -> list[TopLevel]:
    """Every top-level client window with a known pid, bottom to top."""
    with x.lock:
        ids = client_ids(x)
        pids = window_pids(x, ids)
        out = []
        for wid in ids:
            pid = pids.get(wid)
            if pid is None:
                continue
            win = x.window(wid)
            out.append(TopLevel(wid, pid, title(x, win), _wm_class(x, win)))
    return out


def title(x: XConnection, win: Any) -> str:
    """The window's ``_NET_WM_NAME``, else ``WM_NAME``; empty when unset."""
    return x.text_property(win, "_NET_WM_NAME") or x.text_property(win, "WM_NAME") or ""


def wm_class(x: XConnection, wid: int) -> tuple[str, str]:
    """The window's ``WM_CLASS`` as (instance, class); empty strings when unset or gone."""
    return _wm_class(x, x.window(wid))


def _wm_class(x: XConnection, win: Any) -> tuple[str, str]:
    """``WM_CLASS`` as (instance, class): two NUL-terminated strings."""
    raw = x.property(win, "WM_CLASS")
    if not isinstance(raw, bytes | str):
        return ("", "")
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    parts = text.split("\0")
    return (parts[0], parts[1] if len(parts) > 1 else "")


def family(x: XConnection, pid: int, ids: list[int], pids: dict[int, int]) -> set[int]:
    """The windows of ``pid`` among ``ids``, and of the processes it started that are transient
    for one of those (``WM_TRANSIENT_FOR``, followed from window to window): a plug-in of GIMP
    runs in a child process, and its dialog (Export Image as PNG) is transient for GIMP's
    Export Image dialog. A child process's own main windows (an app another app launched)
    are transient for nothing and stay its own."""
    mine = {w for w in ids if pids.get(w) == pid}
    others = {w: p for w in ids if (p := pids.get(w)) is not None and p != pid}
    if not mine or not others:
        return mine
    owners: dict[int, bool] = {}
    grew = True
    while grew:
        grew = False
        for wid, owner in list(others.items()):
            parent = x.property(x.window(wid), "WM_TRANSIENT_FOR")
            if parent is None or not len(parent) or int(parent[0]) not in mine:
                continue
            if owner not in owners:
                owners[owner] = procfs.descends_from(owner, pid)
            del others[wid]
            if owners[owner]:
                mine.add(wid)
                grew = True
    return mine
