"""``WaylandExecutor``: the Executor protocol on a wlroots compositor (sway) + AT-SPI, first cut.

The accessibility layer is the X11 backend's own (the AT-SPI connection and reads, the mapping to
the core's tree, the core's observer); the display server is Wayland's: windows from sway's IPC,
capture by screencopy, input through the session's one virtual pointer and keyboard.

* Coordinates: a Wayland client does not know where its window is, so its AT-SPI bounds are
  relative to the window; global = the window's rect from IPC + those bounds (every observed
  window is placed so, as GTK 4 windows are on X11).
* Gates: the identity is proven from the pid sway reports and ``/proc`` before every burst;
  keys go only to the observed key window, which must hold the keyboard focus when they are sent
  (it is focused through IPC and the focus read back first); a click goes only inside the
  observed key window, which is raised first and must be the top window under the point.
* Capture: the key window's rect after it is raised; a window still covered is refused
  (``_screencopy.capture_view``).
* Effects are ``unverifiable`` (no witness yet on Wayland); drags, scrolls, paste, text selection,
  values and secondary actions are refused before dispatch (``unsupported_platform``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Final

from deskhand.backends.base import (
    ActionResult,
    AppEntry,
    AppState,
    Direction,
    Handle,
    Image,
    MouseButton,
    PasteFormat,
    Platform,
    ProcessIdentity,
    RunningApp,
    SelectionType,
    WindowEntry,
)
from deskhand.backends.inventory import RunningProcess, resolve, running_entries
from deskhand.backends.linux import procfs
from deskhand.backends.linux.atspi.connection import AtspiConnection, Deadline, Snapshot
from deskhand.backends.linux.observe.settle import Settling
from deskhand.backends.linux.observe.tree import TreeObserver, app_tree
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._devices import Devices
from deskhand.backends.linux.wayland._ipc import SwayIPC, View
from deskhand.backends.linux.wayland._screencopy import capture_view
from deskhand.backends.linux.x11.capture import encode
from deskhand.backends.linux.x11.shm import Pixels
from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core import screenshot
from deskhand.core.axtree.observer import Observer
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect
from deskhand.core.keys import parse_keys

__all__ = ["WaylandExecutor"]

OBSERVE_TIMEOUT_S: Final = 3.0
#: A display name no X server answers: the settle watch's damage half stops at once.
NO_X_DISPLAY: Final = ":none"
FOCUS_TIMEOUT_S: Final = 1.0
_BUTTONS: Final = {"left": 1, "middle": 2, "right": 3}
_POLL_S: Final = 0.005


def _unsupported(what: str) -> NativeError:
    return NativeError(
        "unsupported_platform", f"{what} is not available on Wayland yet; nothing was sent.", dispatched=False
    )


def window_info(view: View, stacking: int) -> WindowInfo:
    """A sway view as the X11 mapping code expects a window (no decorations: client = frame)."""
    rect = Rect(*view.rect)
    return WindowInfo(
        id=view.con_id, frame_id=view.con_id, pid=view.pid, title=view.title, client=rect, frame=rect,
        mapped=view.visible, stacking=stacking, wm_class=(view.app_id, view.app_id), gtk_margins=(0, 0, 0, 0),
    )  # fmt: skip


class WaylandExecutor:
    """The Wayland backend. Not thread-safe; the host serializes calls per session."""

    platform: Platform = "linux"

    def __init__(self, env: Mapping[str, str], *, observe_timeout_s: float = OBSERVE_TIMEOUT_S) -> None:
        self.env = dict(env)
        self.client = Client(self.env)
        try:
            self.devices = Devices(self.client)  # the session's one pointer and keyboard
            self.atspi = AtspiConnection(self.env.get("AT_SPI_BUS_ADDRESS"))
        except BaseException:
            self.client.close()
            raise
        self.trees = TreeObserver(self.atspi, observe_timeout_s)
        self.observer = Observer()
        #: the settle rule after an action, from AT-SPI activity alone (no X server: no damage watch)
        self.settling = Settling(str(self.atspi.address), NO_X_DISPLAY)
        self.transforms: dict[int, screenshot.ShotTransform] = {}

    def close(self) -> None:
        try:
            self.devices.close()
            self.settling.close()
        finally:
            self.atspi.close()
            self.client.close()

    # -- windows and identity ----------------------------------------------------------------
    def views(self) -> list[View]:
        with SwayIPC(env=self.env) as ipc:
            return ipc.views()

    def _key_view(self, pid: int, views: list[View]) -> View | None:
        mine = [v for v in views if v.pid == pid]
        return next((v for v in mine if v.focused), mine[-1] if mine else None)

    def _running(self) -> list[RunningProcess]:
        names: dict[int, str] = {}
        buses = self.atspi.apps(Deadline(2.0))
        for bus, pid in self.atspi.pids(buses, Deadline(2.0)).items():
            name = self.atspi.app_name(bus, Deadline(2.0))
            if name:
                names[pid] = name
        out: list[RunningProcess] = []
        for pid in dict.fromkeys(v.pid for v in self.views()):
            identity = procfs.read_identity(pid, {})
            if identity is not None:
                out.append(RunningProcess(identity, names.get(pid) or identity.app_id))
        return out

    def list_apps(self) -> list[AppEntry]:
        return running_entries(self._running(), {})

    def list_windows(self, pid: int | None = None) -> list[WindowEntry]:
        views = self.views()
        out = []
        for z, v in enumerate(views):
            if pid is None or v.pid == pid:
                x, y, w, h = (float(n) for n in v.rect)
                key = self._key_view(v.pid, views) == v
                out.append(WindowEntry(v.con_id, v.pid, v.app_id, v.title, (x, y, w, h), z, v.visible, key))
        return out

    def resolve(self, selector: str) -> RunningApp:
        return resolve(selector, self._running())

    def verify_identity(self, app: RunningApp) -> ProcessIdentity:
        """The pid's identity read again from /proc, exactly the resolved one (before every burst)."""
        return procfs.verify(app.identity, {})

    # -- observation -------------------------------------------------------------------------
    def get_app_state(
        self,
        app: RunningApp,
        *,
        disable_diff: bool = False,
        wait_for_change_s: float = 0.0,
        image_only: bool = False,
        text_only: bool = False,
    ) -> AppState:
        del wait_for_change_s, image_only  # the settle rules are X11's for now
        identity = self.verify_identity(app)
        bus = self.trees.bus_of(app.pid)
        if bus is None:
            raise NativeError("ax_failed", f"{app.display_name} (pid {app.pid}) is not on the accessibility bus.")
        self.settling.settle(app.view, bus, None)  # after an action: the settle rule
        views, key, snap, image = self._observe_once(app, identity, bus, text_only)
        if key is None:  # a window of the app took the focus while it was read: observe that one
            views, key, snap, image = self._observe_once(app, identity, bus, text_only)
            if key is None:
                raise NativeError("stale_window", "The app's key window changed while it was observed.")
        wins = [window_info(v, z) for z, v in enumerate(views) if v.pid == app.pid]
        key_info = next(w for w in wins if w.id == key.con_id)
        tree = app_tree(app, snap, key_info, wins)
        obs = self.observer.observe(
            tree, app_key=app.view, identity=identity, key_window_id=key.con_id, disable_diff=disable_diff
        )
        return AppState(text=obs.text.rstrip(), image=image, window_title=key.title)

    def _observe_once(
        self, app: RunningApp, identity: ProcessIdentity, bus: str, text_only: bool
    ) -> tuple[list[View], View | None, Snapshot, Image | None]:
        """Sway's views, the app's key view, its accessibility snapshot and the view's pixels; no
        key view when another window of the app took the focus before the capture."""
        views = self.views()  # after the settle: a dialog the action opened is mapped by then
        key = self._key_view(app.pid, views)
        if key is None:
            raise NativeError("stale_window", f"{app.display_name} has no window on the screen.")
        snap = self.atspi.snapshot(bus, Deadline(self.trees.timeout_s))
        snap.window_relative = True  # Wayland clients know no global position (module docstring)
        self.transforms.pop(app.pid, None)
        if text_only:
            return views, key, snap, None
        image = self._shot(app, identity, key)
        return views, key if image is not None else None, snap, image

    def _shot(self, app: RunningApp, identity: ProcessIdentity, key: View) -> Image | None:
        """The key window's pixels after raising it; refused when something still covers it, and
        None when another window of the app took the focus since ``key`` was read (a dialog that
        mapped meanwhile, which covers it: observe that one instead)."""
        with SwayIPC(env=self.env) as ipc:
            views = ipc.views()
            now_key = self._key_view(app.pid, views)
            if now_key is not None and now_key.con_id != key.con_id and now_key.focused:
                return None
            if not key.focused:  # a focused floating view is on top already
                ipc.focus(key.con_id)
                views = ipc.views()
        now = next((v for v in views if v.con_id == key.con_id), None)
        if now is None:
            raise NativeError("stale_window", "The window closed while it was captured.")
        frame = capture_view(self.client, views, now)
        fitted = screenshot.fitted_size(frame.width, frame.height)
        data = encode(Pixels(frame.data, frame.width, frame.height), fitted.width, fitted.height)
        if self.verify_identity(app) != identity:
            raise NativeError("stale_process", screenshot.STALE_PROCESS_MESSAGE)
        self.transforms[app.pid] = screenshot.ShotTransform(
            origin_x=now.rect[0], origin_y=now.rect[1], point_width=now.rect[2], point_height=now.rect[3],
            pixels_per_point=fitted.pixels_per_point, image_width=fitted.width, image_height=fitted.height,
            window_id=now.con_id, identity=identity,
        )  # fmt: skip
        return Image(data, screenshot.MIME_TYPE, fitted.width, fitted.height)

    # -- gates ---------------------------------------------------------------------------------
    def _observed_key(self, app: RunningApp, identity: ProcessIdentity) -> int:
        key = self.observer.key_window(app.view, identity=identity)
        if key is None:
            raise NativeError("window_not_key", "The observed app has no key window.", dispatched=False)
        return key

    def _focus(self, app: RunningApp, con_id: int) -> View:
        """Focus the observed key window through IPC and read the focus back; the view now."""
        deadline = time.monotonic() + FOCUS_TIMEOUT_S
        with SwayIPC(env=self.env) as ipc:
            ipc.focus(con_id)
            while True:
                views = ipc.views()
                view = next((v for v in views if v.con_id == con_id), None)
                if view is None or view.pid != app.pid:
                    raise NativeError("stale_window", "The observed window is gone.", dispatched=False)
                if view.focused:
                    return view
                if time.monotonic() >= deadline:
                    raise NativeError(
                        "target_window_changed", "The observed window did not take the focus.", dispatched=False
                    )
                time.sleep(_POLL_S)

    def _keys_gate(self, app: RunningApp) -> None:
        identity = self.verify_identity(app)
        self._focus(app, self._observed_key(app, identity))
        self.verify_identity(app)  # proven again right before the burst

    # -- actions -------------------------------------------------------------------------------
    def click(
        self,
        app: RunningApp,
        *,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
        button: MouseButton = "left",
        count: int = 1,
    ) -> ActionResult:
        code = _BUTTONS.get(button)
        if code is None:
            raise _unsupported(f"the {button} button")
        identity = self.verify_identity(app)
        key = self._observed_key(app, identity)
        if element is not None:
            found = self.observer.element(app.view, element, identity=identity)
            if found.frame is None:
                raise NativeError("stale_element", "The element has no bounds on the screen.", dispatched=False)
            x, y = found.frame.x + found.frame.width / 2, found.frame.y + found.frame.height / 2
        elif point is not None:
            p = screenshot.to_global(self.transforms.get(app.pid), *point, identity=identity, key_window_id=key)
            x, y = p.x, p.y
        else:
            raise NativeError("bad_payload", "click needs an element or a point.", dispatched=False)
        view = self._focus(app, key)  # raised: the top window, so the point is the app's
        vx, vy, vw, vh = view.rect
        if not (vx <= x < vx + vw and vy <= y < vy + vh):
            raise NativeError(
                "point_outside_target_window", "The point is outside the observed window.", dispatched=False
            )
        self.verify_identity(app)
        try:
            self.devices.click(x, y, code, count)
            self.devices.flush()
        finally:
            self.devices.release_all()
            self.settling.mark_mutation(app.view)
        return ActionResult(structured={"x": x, "y": y})

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        if not text:
            return ActionResult()
        self._keys_gate(app)
        try:
            self.devices.type_text(text)
            self.devices.flush()
        finally:
            self.devices.release_all()
            self.settling.mark_mutation(app.view)
        return ActionResult(structured={"length": len(text)})

    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        chords = parse_keys(key)
        self._keys_gate(app)
        try:
            for chord in chords:
                self.devices.chord(chord.ordered_modifiers(), chord.key)
            self.devices.flush()
        finally:
            self.devices.release_all()
            self.settling.mark_mutation(app.view)
        return ActionResult()

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        raise _unsupported("drag")

    def scroll(
        self,
        app: RunningApp,
        *,
        direction: Direction,
        pages: float,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult:
        raise _unsupported("scroll")

    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        raise _unsupported("paste")

    def select_text(
        self,
        app: RunningApp,
        element: Handle,
        text: str,
        *,
        prefix: str | None = None,
        suffix: str | None = None,
        selection_type: SelectionType = "text",
    ) -> ActionResult:
        raise _unsupported("select_text")

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        raise _unsupported("set_value")

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        raise _unsupported("perform_secondary_action")
