"""``WaylandExecutor``: the Executor protocol on a Wayland compositor + AT-SPI.

The accessibility layer is the X11 backend's own (the AT-SPI connection and reads, the mapping to
the core's tree, the core's observer, the handle check in ``observe.handles``); the display server
is Wayland's, through the compositor seam (``wayland.compositor``; sway's IPC and the wlroots
protocols on sway): windows, capture, and input through the session's one pointer and keyboard.
Every action goes to ``act.wl_actor.WaylandActor``, which runs the
X11 actor's AT-SPI modules on a Wayland session (``act.seam``).

* Coordinates: a Wayland client does not know where its window is, so its AT-SPI bounds are
  relative to the window; global = the window's rect from the compositor + those bounds. Every observed
  window is placed so, as GTK 4 windows are on X11, and its origin is kept on the bus connection
  (``AtspiConnection.origins``), so the actor's hit tests and bounds are global too.
* Gates (``act.wl_session``): the identity is proven from the pid the compositor reports and ``/proc``
  before every burst; keys go only to the observed key window, which must hold the keyboard
  focus when they are sent (it is focused through the compositor and the focus read back first); pointer
  input goes only inside the observed key window, which is raised first.
* Capture: an observation never changes the stacking or the focus. wlroots has no per-window
  capture, so there the key window is captured as its rect on the screen when nothing lies over
  it; a covered window's state comes without a screenshot and says so (``COVERED_NOTICE``), and a
  screenshot alone (``image_only``) is refused (``capture_failed``, ``Compositor.capture_view``).
  An action that sends input (keys, a pointer click) raises the window, after which it can be
  captured; one done through the app's accessibility (an element's action, a value) does not.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import Future
from pathlib import Path
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
from deskhand.backends.inventory import RunningProcess
from deskhand.backends.linux import inventory, procfs
from deskhand.backends.linux.act.wl_actor import WaylandActor
from deskhand.backends.linux.atspi.connection import AtspiConnection, Deadline
from deskhand.backends.linux.atspi.transients import overlapped
from deskhand.backends.linux.observe.discovery import argv0_of
from deskhand.backends.linux.observe.handles import checked_element
from deskhand.backends.linux.observe.settle import Settling
from deskhand.backends.linux.observe.tree import Seen, TreeObserver
from deskhand.backends.linux.wayland.compositor import Compositor, View
from deskhand.backends.linux.wayland.registry import open_compositor
from deskhand.backends.linux.x11.capture import encode
from deskhand.backends.linux.x11.shm import Pixels
from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.backends.linux.x11_only import x11_only_note
from deskhand.core import screenshot
from deskhand.core.axtree.model import Element
from deskhand.core.axtree.notices import COVERED
from deskhand.core.axtree.observer import Observer
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect

__all__ = ["WaylandExecutor"]

OBSERVE_TIMEOUT_S: Final = 3.0
#: A display name no X server answers: the settle watch's damage half stops at once.
NO_X_DISPLAY: Final = ":none"
#: The state's notice when the key window is covered: no screenshot, and why.
COVERED_NOTICE: Final = (
    "No screenshot: {reason}. Observing never raises a window; an action that sends input to the app "
    "(keys, a pointer click) raises it, and the next observation captures it."
)


def _covered(views: list[View], key: View) -> bool:
    """Whether a window on the screen above ``key`` (``views`` are bottom to top) lies over part
    of it."""
    ids = [v.id for v in views]
    above = views[ids.index(key.id) + 1 :] if key.id in ids else []
    return overlapped(Rect(*key.rect), [Rect(*v.rect) for v in above if v.visible])


#: After the ``waitForChangeMs`` notice: what a change is on Wayland.
WAITED_NOTE: Final = " (On Wayland only the app's accessibility events count: its drawing is not seen.)"


def window_info(view: View, stacking: int) -> WindowInfo:
    """A compositor's view as the X11 mapping code expects a window (no decorations: client =
    frame). Surface margins (shadows): where the compositor gives the whole surface (GNOME), client
    = the surface with the margins around the frame as ``_GTK_FRAME_EXTENTS`` would say; where it
    gives the margins (KWin), negative ones; else ``observe.placement.content_origin`` finds
    them from the app's own bounds (sway)."""
    rect = Rect(*view.rect)
    client, margins = rect, (_outside(view.margins) if any(view.margins) else None)
    if view.surface is not None:
        sx, sy, sw, sh = view.surface
        fx, fy, fw, fh = view.rect
        client, margins = Rect(*view.surface), (fx - sx, sx + sw - fx - fw, fy - sy, sy + sh - fy - fh)
    return WindowInfo(
        id=view.id, frame_id=view.id, pid=view.pid, title=view.title, client=client, frame=rect,
        mapped=view.visible, stacking=stacking, wm_class=(view.app_id, view.app_id), gtk_margins=margins,
    )  # fmt: skip


def _outside(margins: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """A view's surface margins as ``observe.placement.content_origin`` reads them: negative, since the
    surface holds them around the content rect (an X window holds them inside its client area)."""
    left, right, top, bottom = margins
    return -left, -right, -top, -bottom


class WaylandExecutor:
    """The Wayland backend. Not thread-safe; the host serializes calls per session."""

    platform: Platform = "linux"

    def __init__(self, env: Mapping[str, str], *, observe_timeout_s: float = OBSERVE_TIMEOUT_S) -> None:
        self.env = dict(env)
        #: the compositor: windows, capture and the session's one pointer and keyboard
        self.compositor: Compositor = open_compositor(self.env)
        try:
            self.atspi = AtspiConnection(self.env.get("AT_SPI_BUS_ADDRESS"))
        except BaseException:
            self.compositor.close()
            raise
        self.trees = TreeObserver(self.atspi, observe_timeout_s)
        self.observer = Observer()
        #: the settle rule after an action, from AT-SPI activity alone (no X server: no damage watch)
        self.settling = Settling(str(self.atspi.address), NO_X_DISPLAY)
        #: per view (``RunningApp.view``): the last screenshot's mapping to global coordinates
        self.transforms: dict[object, screenshot.ShotTransform] = {}
        self.actor = WaylandActor(self, self.compositor)
        self._apps: list[inventory.DesktopApp] | None = None
        self._program_ids: dict[str, str] | None = None

    def close(self) -> None:
        try:
            self.actor.close()
            self.settling.close()
        finally:
            self.atspi.close()
            self.compositor.close()

    # -- windows and identity ----------------------------------------------------------------
    def views(self) -> list[View]:
        return self.compositor.views()

    @staticmethod
    def _key_view(pid: int, views: list[View]) -> View | None:
        mine = [v for v in views if v.pid == pid]
        return next((v for v in mine if v.focused), mine[-1] if mine else None)

    def _desktop_ids(self) -> dict[str, str]:
        """Executable -> ``.desktop`` id (``inventory.program_ids``), read once: the same app ids
        as X11's (``org.xfce.mousepad``, not ``mousepad``)."""
        if self._program_ids is None:
            self._program_ids = inventory.program_ids(self._installed())
        return self._program_ids

    def _installed(self) -> list[inventory.DesktopApp]:
        if self._apps is None:
            self._apps = inventory.installed_apps()
        return self._apps

    def _found(self) -> list[inventory.Found]:
        """The apps with a view, under every name they can be bound by, as X11's discovery
        finds them (``observe.discovery``; a view's app_id stands for a window class)."""
        names: dict[int, str] = {}
        buses = self.atspi.apps(Deadline(2.0))
        for bus, pid in self.atspi.pids(buses, Deadline(2.0)).items():
            name = self.atspi.app_name(bus, Deadline(2.0))
            if name:
                names.setdefault(pid, name)
        views = self.views()
        ids, installed = self._desktop_ids(), self._installed()
        out: list[inventory.Found] = []
        for pid in dict.fromkeys(v.pid for v in views):
            ident = procfs.read_identity(pid, ids)
            if ident is None or pid == os.getpid():
                continue
            mine = tuple((v.app_id, v.app_id) for v in reversed(views) if v.pid == pid)
            proc = RunningProcess(
                ident, inventory.display_name(installed, ident.app_id, mine) or names.get(pid) or ident.app_id
            )
            argv0 = argv0_of(pid)
            programs = procfs.java_names(pid, ident.executable)
            known = inventory.names_of(proc, installed, mine)
            known.update(n.lower() for n in (Path(argv0).name, names.get(pid, ""), *programs) if n)
            titles = frozenset(v.title.lower() for v in views if v.pid == pid) - {""}
            out.append(inventory.Found(proc, frozenset(known), titles, argv0, mine, programs))
        return out

    def list_apps(self) -> list[AppEntry]:
        installed = self._installed()
        running = [f.process for f in self._found()]
        return inventory.merge(running, installed, inventory.recent_usage(installed))

    def list_windows(self, pid: int | None = None) -> list[WindowEntry]:
        views = self.views()
        out = []
        for z, v in enumerate(views):
            if pid is None or v.pid == pid:
                x, y, w, h = (float(n) for n in v.rect)
                key = self._key_view(v.pid, views) == v
                out.append(WindowEntry(v.id, v.pid, v.app_id, v.title, (x, y, w, h), z, v.visible, key))
        return out

    def resolve(self, selector: str) -> RunningApp:
        try:
            return inventory.resolve(selector, self._found())
        except NativeError as err:  # an app that cannot run natively here: say why, and where it runs
            if err.code != "target_not_running":
                raise
            note = x11_only_note(selector)
            if note is None:
                raise
            raise NativeError(err.code, f"{err.message} {note}", dispatched=False) from err

    # -- helpers for the actor (public, ``act.wl_session.WlObserved``) -------------------------
    def verify_identity(self, app: RunningApp) -> ProcessIdentity:
        """The pid's identity read again from /proc, exactly the resolved one (before every burst)."""
        return procfs.verify(app.identity, self._desktop_ids())

    def element(self, app: RunningApp, handle: Handle) -> Element:
        """The element behind a handle, checked against the app now (``observe.handles``)."""
        return checked_element(self.observer, self.atspi, app, handle, self._desktop_ids())

    def window_of(self, app: RunningApp, element: Element) -> int | None:
        """The view that holds ``element`` in the app's last observation (None when unknown)."""
        return self.observer.window_of(app.view, element)

    def observed_key_window(self, app: RunningApp) -> int | None:
        """The key window of the app's last observation (``stale_snapshot`` before any)."""
        return self.observer.key_window(app.view, identity=procfs.read_identity(app.pid, self._desktop_ids()))

    def to_global(self, app: RunningApp, x: float, y: float) -> Point:
        """Screenshot pixels of the latest observation -> global coordinates (section 6.2)."""
        return screenshot.to_global(
            self.transforms.get(app.view), x, y, identity=procfs.read_identity(app.pid, self._desktop_ids()),
            key_window_id=self.observed_key_window(app),
        )  # fmt: skip

    def bus_of(self, app: RunningApp) -> str | None:
        return self.trees.bus_of(app.pid)

    def mark_mutation(self, app: RunningApp) -> None:
        self.settling.mark_mutation(app.view)

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
        identity = self.verify_identity(app)
        bus = self.trees.bus_of(app.pid)
        waited = None
        if wait_for_change_s > 0:  # the app's AT-SPI events only: no client sees another's drawing
            waited = self.settling.wait_for_change(app.view, bus, None, wait_for_change_s) + WAITED_NOTE
        self.settling.settle(app.view, bus, None)  # after an action: the settle rule
        views = self.views()  # after the settle: a dialog the action opened is mapped and focused by then
        key = self._key_view(app.pid, views)
        if key is None:
            raise NativeError("stale_window", f"{app.display_name} has no window on the screen.")
        wins = [window_info(v, z) for z, v in enumerate(views) if v.pid == app.pid]
        key_info = next(w for w in wins if w.id == key.id)
        seen: Seen = Future()
        seen.set_result((wins, key_info))
        # an image-only look takes the last read again while the app provably did not change
        unchanged = self.settling.quiet_since if image_only else None
        tree, notices, _key = self.trees.read(app, identity, seen, window_relative=True, unchanged_since=unchanged)
        if tree is None:
            raise NativeError("ax_failed", f"{app.display_name} (pid {app.pid}) is not on the accessibility bus.")
        obs = self.observer.observe(
            tree, app_key=app.view, identity=identity, key_window_id=key.id, disable_diff=disable_diff
        )
        image = None
        self.transforms.pop(app.view, None)
        if text_only:  # the transform a capture would have recorded: coordinates keep their meaning
            self._place(app, identity, key, screenshot.fitted_size(key.rect[2], key.rect[3]))
        else:
            try:
                image = self._shot(app, identity, key, views)
            except NativeError as err:
                if image_only or err.code != "capture_failed":
                    raise
                notices.append(COVERED_NOTICE.format(reason=err.message.removeprefix("wayland: ")))
            else:
                if _covered(views, key):  # captured by itself (KWin, GNOME): the X11 notice
                    notices.append(COVERED)
        text = obs.text.rstrip()
        if waited is not None:
            notices.append(waited)
        self.settling.observed(app.view)  # what this observation has seen (``waitForChangeMs``)
        if notices:
            text += "\n\n" + "\n".join(notices)
        return AppState(text=text, image=image, window_title=key.title)

    def _shot(self, app: RunningApp, identity: ProcessIdentity, key: View, views: list[View]) -> Image:
        """The key window's pixels as they are on the screen, with no change to the stacking;
        refused while something covers it (``capture_view``)."""
        frame = self.compositor.capture_view(views, key)
        fitted = screenshot.fitted_size(frame.width, frame.height)
        data = encode(Pixels(frame.data, frame.width, frame.height), fitted.width, fitted.height)
        if self.verify_identity(app) != identity:
            raise NativeError("stale_process", screenshot.STALE_PROCESS_MESSAGE)
        self._place(app, identity, key, fitted)
        return Image(data, screenshot.MIME_TYPE, fitted.width, fitted.height)

    def _place(self, app: RunningApp, identity: ProcessIdentity, key: View, fitted: screenshot.FittedSize) -> None:
        self.transforms[app.view] = screenshot.ShotTransform(
            origin_x=key.rect[0], origin_y=key.rect[1], point_width=key.rect[2], point_height=key.rect[3],
            pixels_per_point=fitted.pixels_per_point, image_width=fitted.width, image_height=fitted.height,
            window_id=key.id, identity=identity,
        )  # fmt: skip

    # -- actions: delegated to the actor -------------------------------------------------------
    def click(
        self,
        app: RunningApp,
        *,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
        button: MouseButton = "left",
        count: int = 1,
    ) -> ActionResult:
        return self.actor.click(app, element=element, point=point, button=button, count=count)

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        return self.actor.type_text(app, text)

    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        return self.actor.press_key(app, key)

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        return self.actor.drag(app, start, end, button=button)

    def scroll(
        self,
        app: RunningApp,
        *,
        direction: Direction,
        pages: float,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult:
        return self.actor.scroll(app, direction=direction, pages=pages, element=element, point=point)

    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        return self.actor.paste(app, text, fmt)

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
        return self.actor.select_text(app, element, text, prefix=prefix, suffix=suffix, selection_type=selection_type)

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        return self.actor.set_value(app, element, value)

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        return self.actor.perform_secondary_action(app, element, action)
