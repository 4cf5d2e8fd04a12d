"""Helpers of the Wayland tests (a module name of its own: ``tests/linux`` has a ``conftest`` too)."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._dataclip import DataClipboard
from deskhand.backends.linux.wayland.compositor import View
from deskhand.backends.linux.wayland.gnome._clipboard import Selection
from deskhand.backends.linux.wayland.registry import open_compositor
from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.desktop import A11yApp, LaunchedApp, VirtualDesktop
from deskhand.desktop.compositors import COMPOSITORS
from desktop_support import POLL_S, Launcher


def sway_missing() -> str | None:
    return compositor_missing("sway")


def compositor_missing(name: str) -> str | None:
    """Why the compositor ``name`` cannot run here (a skip reason), or None."""
    kind = COMPOSITORS[name]
    if shutil.which(kind.program) is None:
        return f"{kind.label} is not installed ({kind.fix}, or `make deps`, which installs it)"
    return None


def views_of(desktop: VirtualDesktop) -> list[View]:
    """The compositor's views now (bottom to top; sway's by IPC, no devices made)."""
    if desktop.compositor is None or desktop.compositor.name == "sway":
        with SwayIPC(env=desktop.env) as ipc:
            return ipc.views()
    compositor = open_compositor(desktop.env)
    try:
        return compositor.views()
    finally:
        compositor.close()


def focused_pid(desktop: VirtualDesktop) -> int | None:
    return next((v.pid for v in views_of(desktop) if v.focused), None)


def wait_view(desktop: VirtualDesktop, pid: int, timeout_s: float = 10.0) -> View:
    """Poll the compositor until ``pid`` has a view (an app is on the AT-SPI bus before it maps)."""
    if desktop.compositor is not None and desktop.compositor.name != "sway":
        desktop.wait_for_window(pid, timeout_s)
        return next(v for v in views_of(desktop) if v.pid == pid)
    deadline = time.monotonic() + timeout_s
    with SwayIPC(env=desktop.env) as ipc:
        while True:
            found = next((v for v in ipc.views() if v.pid == pid), None)
            if found is not None:
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(f"pid {pid} has no sway view within {timeout_s} s")
            time.sleep(POLL_S)


class WaylandLauncher(Launcher):
    """The X11 launcher, with sway's tree instead of the X client list as the mapped-window check."""

    def wait_ready(self, app: LaunchedApp, timeout_s: float) -> A11yApp:
        found = self.wait_on_bus(app, timeout_s)
        assert found.pid is not None
        wait_view(self.desktop, found.pid, timeout_s)
        return found


def place_view(ipc: SwayIPC, view: View, rect: tuple[int, int, int, int], timeout_s: float = 5.0) -> View:
    """``view`` floated at ``rect`` (content x, y, width, height), polled until sway shows it there."""
    ipc.place(view.id, *rect)
    deadline = time.monotonic() + timeout_s
    while True:
        now = next(v for v in ipc.views() if v.id == view.id)
        if now.rect == rect:
            return now
        if time.monotonic() >= deadline:
            raise TimeoutError(f"sway did not give {view.app_id} the rect {rect}: {now.rect}")
        time.sleep(POLL_S)


def is_sway(desktop: VirtualDesktop) -> bool:
    return desktop.compositor is None or desktop.compositor.name == "sway"


def _placed_at(view: View, rect: tuple[int, int, int, int]) -> bool:
    """At ``rect``'s position, with its size or larger (Mutter keeps a client's minimum size)."""
    x, y, w, h = view.rect
    return (x, y) == rect[:2] and ((w, h) == rect[2:] or (w >= rect[2] and h >= rect[3]))


def placed(desktop: VirtualDesktop, pid: int, rect: tuple[int, int, int, int], timeout_s: float = 5.0) -> View:
    """The app's window (waited for) floated at ``rect`` (sway: its content; GNOME: its frame,
    no smaller than the client's minimum size)."""
    view = wait_view(desktop, pid)
    if is_sway(desktop):
        with SwayIPC(env=desktop.env) as ipc:
            return place_view(ipc, view, rect)
    compositor = open_compositor(desktop.env)
    try:
        compositor.place(view.id, *rect)
        deadline = time.monotonic() + timeout_s
        while not _placed_at(now := next(v for v in compositor.views() if v.id == view.id), rect):
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{compositor.name} did not give {view.app_id} the rect {rect}: {now.rect}")
            time.sleep(POLL_S)
        return now
    finally:
        compositor.close()


def focus_view(desktop: VirtualDesktop, pid: int) -> None:
    """Focus (and raise) ``pid``'s window by the compositor's own means."""
    if is_sway(desktop):
        with SwayIPC(env=desktop.env) as ipc:
            ipc.focus(next(v.id for v in ipc.views() if v.pid == pid))
        return
    compositor = open_compositor(desktop.env)
    try:
        compositor.focus(next(v.id for v in compositor.views() if v.pid == pid))
    finally:
        compositor.close()


def stacking(desktop: VirtualDesktop) -> list[int]:
    """The views' ids bottom to top (sway's tree order of floating windows, GNOME's stacking)."""
    return [v.id for v in views_of(desktop)]


class UserClipboard:
    """The user's clipboard: another client owns it with several types and serves it from a
    thread (sway: wlr-data-control; GNOME: a RemoteDesktop session of its own)."""

    def __init__(self, desktop: VirtualDesktop, data: dict[str, bytes]) -> None:
        self._stop = threading.Event()
        if is_sway(desktop):
            self.client: Client | None = Client(desktop.env)
            clip = DataClipboard(self.client)
            clip.set(data)
            self._serve_once, self._done = lambda: clip.serve_once(0.02), lambda: clip.cancelled
            self._close: Callable[[], None] = self.client.close
        else:
            selection = Selection(desktop.env["DBUS_SESSION_BUS_ADDRESS"])
            selection.set(data)
            self._serve_once, self._done = lambda: selection.pump(0.02), lambda: not selection.owned
            self._close = selection.close
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set() and not self._done():
            self._serve_once()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        self._close()


def clipboard_now(desktop: VirtualDesktop) -> dict[str, bytes]:
    """Every type of the clipboard now, as another client reads it."""
    if is_sway(desktop):
        with Client(desktop.env) as client:
            return DataClipboard(client).read_all()
    selection = Selection(desktop.env["DBUS_SESSION_BUS_ADDRESS"])
    try:
        return selection.read_all()
    finally:
        selection.close()


def clear_clipboard(desktop: VirtualDesktop) -> None:
    """An empty clipboard (GNOME: a selection taken and given up, with no copy kept by Mutter)."""
    if is_sway(desktop):
        with Client(desktop.env) as client:
            DataClipboard(client).clear()
        return
    selection = Selection(desktop.env["DBUS_SESSION_BUS_ADDRESS"])
    try:
        selection.set({"text/plain": b"-"}, transient=True)
        selection.set({})
    finally:
        selection.close()


def copy_text(desktop: VirtualDesktop, data: dict[str, bytes]) -> dict[str, bytes]:
    """Another client copies ``data`` and reads it back; what it read (then the clipboard is
    cleared)."""
    if is_sway(desktop):
        with Client(desktop.env) as client:
            clip = DataClipboard(client)
            clip.set(data)
            got = {t: clip.read(t) for t in data}
            clip.clear()
            return got
    user = UserClipboard(desktop, data)
    try:
        return {t: v for t, v in clipboard_now(desktop).items() if t in data}
    finally:
        user.close()
