"""Helpers of the Wayland tests (a module name of its own: ``tests/linux`` has a ``conftest`` too).

Every test here runs on each compositor of ``COMPOSITORS`` (the ``wl_desktop`` fixture's
parameter) through the compositor seam (``wayland.compositor.Compositor``), one per desktop
(:func:`comp_of`).
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Mapping

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._dataclip import DataClipboard
from deskhand.backends.linux.wayland.compositor import Compositor, View
from deskhand.backends.linux.wayland.gnome._clipboard import Selection
from deskhand.backends.linux.wayland.registry import open_compositor
from deskhand.desktop import A11yApp, LaunchedApp, VirtualDesktop
from deskhand.desktop.compositors import COMPOSITORS as DESKTOP_COMPOSITORS
from desktop_support import POLL_S, Launcher

#: The compositors every Wayland test runs on.
COMPOSITORS = ("sway", "kwin", "gnome")
_OPEN: dict[str, Compositor] = {}


def compositor_missing(name: str = "sway") -> str | None:
    kind = DESKTOP_COMPOSITORS[name]
    if shutil.which(kind.program) is None:
        return f"{kind.label} is not installed ({kind.fix}, or `make apt`, which installs it)"
    return None


def sway_missing() -> str | None:
    return compositor_missing("sway")


def comp_of(desktop: VirtualDesktop) -> Compositor:
    """The test session's one compositor connection to ``desktop`` (closed by :func:`close_comp`)."""
    if desktop.id not in _OPEN:
        _OPEN[desktop.id] = open_compositor(desktop.env)
    return _OPEN[desktop.id]


def close_comp(desktop: VirtualDesktop) -> None:
    comp = _OPEN.pop(desktop.id, None)
    if comp is not None:
        comp.close()


def is_gnome(desktop: VirtualDesktop) -> bool:
    return desktop.compositor is not None and desktop.compositor.name == "gnome"


def wide_text(comp: Compositor, wide: str, narrow: str) -> str:
    """``wide`` where typing is layout-independent (sway: deskhand writes the keymap; GNOME: text
    the layout lacks is committed through the shell's input method), else ``narrow`` (KWin's fake
    input types with the session's layout, us here)."""
    return narrow if comp.name == "KWin" else wide


def atspi_origin(view: View) -> tuple[int, int]:
    """Where a Wayland client's AT-SPI coordinates start: its surface (GNOME: the frame and the
    client-side shadow around it), else its rect."""
    return (view.surface or view.rect)[:2]


def wait_view(desktop: VirtualDesktop, pid: int, timeout_s: float = 10.0) -> View:
    """Poll the compositor until ``pid`` has a view it shows (an app is on the AT-SPI bus before it
    maps; Mutter moves a new window once between mapping and showing it)."""
    deadline = time.monotonic() + timeout_s
    comp = comp_of(desktop)
    while True:
        found = next((v for v in comp.views() if v.pid == pid and v.visible), None)
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            raise TimeoutError(f"pid {pid} has no view within {timeout_s} s")
        time.sleep(POLL_S)


class WaylandLauncher(Launcher):
    """The X11 launcher, with the compositor's windows instead of the X client list as the
    mapped-window check."""

    def wait_ready(self, app: LaunchedApp, timeout_s: float) -> A11yApp:
        found = self.wait_on_bus(app, timeout_s)
        assert found.pid is not None
        wait_view(self.desktop, found.pid, timeout_s)
        return found


def place_view(comp: Compositor, view: View, rect: tuple[int, int, int, int], timeout_s: float = 5.0) -> View:
    """``view``'s content given ``rect`` (x, y, width, height), polled until the compositor shows it
    there. KWin keeps a window at least its minimum size (sway does not): there the size may be
    larger than asked."""
    comp.place(view.id, *rect)
    start = time.monotonic()
    deadline, asked = start + timeout_s, start
    while True:
        now = next(v for v in comp.views() if v.id == view.id)
        if now.rect == rect or (
            comp.name != "sway" and now.rect[:2] == rect[:2] and now.rect[2] >= rect[2] and now.rect[3] >= rect[3]
        ):
            return now
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{comp.name} did not give {view.app_id} the rect {rect}: {now.rect}")
        if time.monotonic() - asked >= 1.0:  # KWin once kept a new window where it had put it: asked again
            comp.place(view.id, *rect)
            asked = time.monotonic()
        time.sleep(POLL_S)


def placed(desktop: VirtualDesktop, pid: int, rect: tuple[int, int, int, int]) -> View:
    """The app's window (waited for) given ``rect``."""
    view = wait_view(desktop, pid)
    return place_view(comp_of(desktop), view, rect)


def focused_pid(desktop: VirtualDesktop) -> int | None:
    return next((v.pid for v in comp_of(desktop).views() if v.focused), None)


def stacking(desktop: VirtualDesktop) -> list[int]:
    """The views' ids bottom to top."""
    return [v.id for v in comp_of(desktop).views()]


class OtherClient:
    """The clipboard as another client sees it: wlr-data-control on sway and KWin, a RemoteDesktop
    session of its own on GNOME (which has no data control). Serve it with :meth:`serve`."""

    def __init__(self, desktop: VirtualDesktop) -> None:
        self.selection: Selection | None = None
        self.client: Client | None = None
        if is_gnome(desktop):
            self.selection = Selection(desktop.env["DBUS_SESSION_BUS_ADDRESS"])
        else:
            self.client = Client(desktop.env)
            self.clip = DataClipboard(self.client)

    @property
    def sent(self) -> list[str]:
        """The types read from our selection since we set it."""
        return self.selection.sent if self.selection is not None else self.clip.sent

    @property
    def owner(self) -> bool:
        """Whether our selection is still the clipboard."""
        if self.selection is not None:
            return self.selection.owned
        return not self.clip.cancelled

    def types(self) -> list[str]:
        if self.selection is not None:
            self.selection.pump(0.0)
            return list(self.selection.data or {}) if self.selection.owned else list(self.selection.offered)
        return self.clip.types()

    def read_all(self) -> dict[str, bytes]:
        return self.selection.read_all() if self.selection is not None else self.clip.read_all()

    def set(self, data: Mapping[str, bytes]) -> None:
        if self.selection is not None:
            self.selection.set(data)
        else:
            self.clip.set(data)

    def serve_once(self, timeout_s: float) -> None:
        if self.selection is not None:
            self.selection.pump(timeout_s)
        else:
            self.clip.serve_once(timeout_s)

    def serve(self, until: Callable[[], bool], timeout_s: float) -> bool:
        """Serve our selection until ``until()`` (True) or the timeout (False)."""
        deadline = time.monotonic() + timeout_s
        while not until():
            if time.monotonic() >= deadline:
                return False
            self.serve_once(0.02)
        return True

    def clear(self) -> None:
        """An empty clipboard (GNOME: a selection taken with no copy kept by Mutter's clipboard
        manager, then given up)."""
        if self.selection is not None:
            self.selection.set({"text/plain": b"-"}, transient=True)
            self.selection.set({})
        else:
            self.clip.clear()

    def close(self) -> None:
        if self.selection is not None:
            self.selection.close()
        elif self.client is not None:
            self.client.close()


class UserClipboard:
    """The user's clipboard: another client owns it with several types and serves it from a thread."""

    def __init__(self, desktop: VirtualDesktop, data: dict[str, bytes]) -> None:
        self.other = OtherClient(desktop)
        self.other.set(data)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set() and self.other.owner:
            self.other.serve_once(0.02)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        self.other.close()


def clipboard_now(desktop: VirtualDesktop) -> dict[str, bytes]:
    """Every type of the clipboard now, as another client reads it."""
    other = OtherClient(desktop)
    try:
        return other.read_all()
    finally:
        other.close()


def clear_clipboard(desktop: VirtualDesktop) -> None:
    other = OtherClient(desktop)
    try:
        other.clear()
    finally:
        other.close()
