"""``LinuxExecutor``: the Executor protocol on X11 + AT-SPI (observing here, acting in ``act/actor.py``).

It owns the shared native connections (one X display, one AT-SPI bus connection), the core's
``Observer`` (handle generations, reconciliation, diffs) and the settle clock, and answers
``list_apps``, ``resolve`` (finding apps in ``observe.discovery``) and ``get_app_state`` itself. Every
action method is delegated to ``deskhand.backends.linux.act.actor.LinuxActor``, which uses the
public helpers documented below (``verify_identity``, ``key_window``, ``activate``, ``element``,
``to_global``, ``mark_mutation``, ``atspi``, ``x``).

An observation puts together the app's tree (``observe.tree``: bounded by ``observe_timeout_s``),
its key window's capture (``observe.shot``: made on a worker thread while the tree is read) and
the settle before it (``observe.settle``). What an observation leaves behind (the snapshot and
its handles, the diff baseline, the key window keys go to, the screenshot transform, the settle
clock) belongs to one view: one session's view of one process (``RunningApp.view``), so two processes of
one app, or two sessions observing one app, never invalidate each other. An app missing from the accessibility bus whose
toolkit has no accessibility (Tk, SDL, Xt/Xaw, plain Xlib) is observed without a tree: the
``App=`` and ``Window:`` lines, ``notices.NO_ACCESSIBILITY`` and the screenshot, never diffed.
Keys, typing and paste are refused before dispatch for a key window that takes no focus (xeyes,
xclock).
"""

from __future__ import annotations

from concurrent import futures
from typing import TYPE_CHECKING, Final

from deskhand.backends.base import (
    ActionResult,
    AppEntry,
    AppState,
    Direction,
    Handle,
    MouseButton,
    PasteFormat,
    Platform,
    ProcessIdentity,
    RunningApp,
    SelectionType,
    WindowEntry,
)
from deskhand.backends.linux import inventory, procfs
from deskhand.backends.linux.atspi.connection import AtspiConnection
from deskhand.backends.linux.lost import guard
from deskhand.backends.linux.observe.discovery import Discovery
from deskhand.backends.linux.observe.handles import checked_element
from deskhand.backends.linux.observe.settle import Settling
from deskhand.backends.linux.observe.shot import Shots
from deskhand.backends.linux.observe.tree import TreeObserver
from deskhand.backends.linux.reconnect import Reconnects
from deskhand.backends.linux.x11 import windows
from deskhand.backends.linux.x11.connection import XConnection
from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core import screenshot
from deskhand.core.axtree.model import AppTree, Element
from deskhand.core.axtree.observer import Observer
from deskhand.core.axtree.render import full_text
from deskhand.core.axtree.text import display_window_title, sanitize
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point

if TYPE_CHECKING:
    from deskhand.backends.linux.act.actor import LinuxActor

#: The whole AT-SPI read of one observation (per call: 2 s, the AX messaging timeout).
OBSERVE_TIMEOUT_S: Final = 3.0


class LinuxExecutor(Reconnects):
    """The Linux backend. Not thread-safe per app; the host serializes calls per session."""

    platform: Platform = "linux"

    def __init__(
        self,
        *,
        display: str | None = None,
        a11y_address: str | None = None,
        observe_timeout_s: float = OBSERVE_TIMEOUT_S,
    ) -> None:
        #: The shared X connection (python-xlib); hold ``x.lock`` while using it.
        self.x = XConnection(display)
        #: The shared AT-SPI bus connection; hold ``atspi.lock`` for multi-call exchanges.
        self.atspi = AtspiConnection(a11y_address)
        self.observer = Observer()
        #: Running apps and installed entries (``observe.discovery``).
        self.discovery = Discovery(self.x, self.atspi)
        #: The observation's parts: the tree, the capture, the settle.
        self.trees = TreeObserver(self.atspi, observe_timeout_s, self.popups)
        self.shots = Shots(self.x, self._desktop_ids)
        self.settling = Settling(str(self.atspi.address), self.x.name)
        self._actor: LinuxActor | None = None
        #: the X server or the accessibility bus went away (``lost``): the next call reconnects
        self.x_lost = False
        self.a11y_lost = False
        #: the registry's return the actor and the settle registered with (``lost.guard``)
        self.registry_epoch = 0

    # -- inventory ---------------------------------------------------------------------------

    def installed(self) -> list[inventory.DesktopApp]:
        return self.discovery.installed()

    def _desktop_ids(self) -> dict[str, str]:
        return self.discovery.program_ids()

    def running(self) -> list[inventory.RunningProcess]:
        """Running apps: AT-SPI registry processes and the owners of top-level X windows."""
        return [f.process for f in self.discovery.found()]

    @guard(acting=False)
    def list_apps(self) -> list[AppEntry]:
        installed = self.installed()
        return inventory.merge(self.running(), installed, inventory.recent_usage(installed))

    @guard(acting=False)
    def resolve(self, selector: str) -> RunningApp:
        return self.discovery.resolve(selector)

    def list_windows(self, pid: int | None = None) -> list[WindowEntry]:
        return self.discovery.window_entries(pid)

    # -- helpers for the actor (public) ------------------------------------------------------

    def verify_identity(self, app: RunningApp) -> ProcessIdentity:
        """Re-read the app's identity from /proc and compare it exactly.

        Raises:
            NativeError: ``process_gone`` or ``stale_process``.
        """
        return procfs.verify(app.identity, self._desktop_ids())

    def key_window(self, app: RunningApp, wins: list[WindowInfo] | None = None) -> WindowInfo | None:
        """The app's key window: ``_NET_ACTIVE_WINDOW`` if it is the app's, else its topmost
        (``wins``: the app's windows as ``windows`` just returned them)."""
        return windows.key_window(self.x, app.pid, wins)

    def popups(self, pid: int) -> list[tuple[int, int, int, int]]:
        """The pid's mapped popup windows (open menus: ``atspi.popups``), root rectangles."""
        return windows.popups(self.x, pid)

    def windows(self, app: RunningApp) -> list[WindowInfo]:
        """The app's top-level windows, bottom to top."""
        return windows.windows_of(self.x, app.pid)

    def activate(self, app: RunningApp, window: WindowInfo | None = None) -> WindowInfo:
        """Activate ``window`` (default: the key window) and verify that the focus arrived.

        Raises:
            NativeError: ``stale_window`` when the app has no window, ``target_window_changed``
                when the focus did not arrive in time.
        """
        target = window or self.key_window(app)
        if target is None:
            raise NativeError("stale_window", f"{app.display_name} has no mapped window to activate.")
        windows.activate(self.x, target)
        return target

    def element(self, app: RunningApp, handle: Handle) -> Element:
        """The element behind a ``gN:id`` handle; ``element.ref`` is its ``atspi.mapping.AtspiRef``.

        The element is fetched again from the app and must still be the one observed
        (``observe.handles``), so an action never lands on what replaced it.

        Raises:
            NativeError: ``stale_snapshot``, ``stale_process``, ``bad_index`` (checked in the
                contract's order), ``process_gone`` when the process has exited, then
                ``stale_element`` when the element is gone or changed (``ax_failed`` when the
                app does not answer).
        """
        return checked_element(self.observer, self.atspi, app, handle, self._desktop_ids())

    def observed_key_window(self, app: RunningApp) -> int | None:
        """The key window of the app's last observation (keyboard and paste go only there).

        Raises:
            NativeError: ``stale_snapshot`` before any observation, ``stale_process``.
        """
        current = procfs.read_identity(app.pid, self._desktop_ids())
        return self.observer.key_window(app.view, identity=current)

    def to_global(self, app: RunningApp, x: float, y: float) -> Point:
        """Screenshot pixels of the latest ``get_app_state`` → root coordinates (section 6.2)."""
        kw = self.key_window(app)
        current = procfs.read_identity(app.pid, self._desktop_ids())
        try:
            return screenshot.to_global(
                self.shots.transforms.get(app.view), x, y, identity=current, key_window_id=kw.id if kw else None
            )
        except NativeError as e:
            if e.details.get("drop_transform"):
                self.shots.transforms.pop(app.view, None)
            raise

    def transform(self, app: RunningApp) -> screenshot.ShotTransform | None:
        return self.shots.transforms.get(app.view)

    def bus_of(self, app: RunningApp) -> str | None:
        """The app's bus name on the accessibility bus (remembered per pid, checked before use)."""
        return self.trees.bus_of(app.pid)

    def mark_mutation(self, app: RunningApp) -> None:
        """Record that an action changed the app: its next capture waits by the settle rule."""
        self.settling.mark_mutation(app.view)

    def _seen(self, app: RunningApp) -> tuple[str | None, int | None]:
        """The app's bus name and the window of its last capture (None when unknown)."""
        shot = self.shots.transforms.get(app.view)
        return self.trees.buses.get(app.pid), shot.window_id if shot is not None else None

    # -- observation -------------------------------------------------------------------------

    @guard(acting=False)
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
        app_key = app.view
        bus, window = self._seen(app)  # as the last observation left them
        waited = (
            self.settling.wait_for_change(app_key, bus, window, wait_for_change_s) if wait_for_change_s > 0 else None
        )
        acted = self.settling.clock.pending(app_key)
        self.settling.settle(app_key, bus, window)
        self.shots.transforms.pop(app.view, None)
        reacted = acted is not None and (self.settling.activity().last(bus, window) or 0.0) >= acted
        unchanged = self.settling.quiet_since if image_only else None
        (tree, notices, key), shot = self.shots.look(
            app, lambda seen: self.trees.read(app, identity, seen, unchanged_since=unchanged), capture=not text_only
        )
        try:
            accessible = tree is not None
            if tree is None:
                tree = AppTree(app_label=app.identity.app_id, app_name=app.display_name, pid=app.pid, windows=[])
            obs = self.observer.observe(
                tree,
                app_key=app_key,
                identity=identity,
                key_window_id=key.id if key else None,
                disable_diff=disable_diff or not accessible,
                unchanged=accessible,  # the reader hands out a tree once mapped, never modified
            )
        except BaseException:
            if not shot.cancel():
                futures.wait([shot])  # the X connection is shared: the capture ends before anything else uses it
            raise
        if key is not None:
            self.settling.activity().watch(key.id)  # damage on it counts as activity from now on
        image = None
        if key is not None and text_only:
            futures.wait([shot])  # the look is done (no capture): nothing else uses the connection
            self.shots.place(app, key, identity)
        elif key is not None:
            image = self.shots.finish(app, key, identity, shot)
        notices += self.shots.advice(
            app_key,
            identity,
            key,
            image,
            obs.full_text,
            complete=not tree.timed_out,
            accessible=accessible,
            toolkit=None if accessible else procfs.toolkit_of(identity),
            acted=acted is not None,
            reacted=reacted,
            captured=not text_only,
        )
        text = obs.text.rstrip()
        if not accessible:
            # No tree: the state is the App= and Window: lines with the key window's own title.
            title = sanitize(display_window_title(key.title if key else None, app.display_name))
            text = full_text(tree, title, [], [])
        if waited is not None:
            notices.append(waited)
        self.settling.observed(app_key)  # what this observation has seen
        if notices:
            text += "\n\n" + "\n".join(notices)
        title = key.title if key else (tree.windows[0].title if tree.windows else "")
        return AppState(text=text, image=image, window_title=title)

    # -- actions: delegated to the actor -----------------------------------------------------

    @property
    def actor(self) -> LinuxActor:
        if self._actor is None:
            try:
                from deskhand.backends.linux.act.actor import LinuxActor  # noqa: PLC0415
            except ImportError as e:
                raise NativeError("feature_unavailable", "Linux actions are not available yet.") from e
            self._actor = LinuxActor(self)
        return self._actor

    @guard(acting=True)
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

    @guard(acting=True)
    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        return self.actor.drag(app, start, end, button=button)

    @guard(acting=True)
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

    @guard(acting=True)
    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        self._check_keyboard(app)
        return self.actor.press_key(app, key)

    @guard(acting=True)
    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        if text:
            self._check_keyboard(app)
        return self.actor.type_text(app, text)

    @guard(acting=True)
    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        self._check_keyboard(app)
        return self.actor.paste(app, text, fmt)

    def _check_keyboard(self, app: RunningApp) -> None:
        """Keys reach only the focused window: refuse them, before anything is posted, for a key
        window that takes no focus (xeyes, xclock), or they would go to another app's window.
        The window checked is the observed key window, the only one keys may go to (the actor
        refuses any other), without listing the app's windows; before any observation, the
        key window now."""
        try:
            observed = self.observed_key_window(app)
        except NativeError:
            observed = None  # not observed: the actor refuses the keys; the check stays as it was
        if observed is not None and windows.accepts_focus(self.x, observed):
            return
        key = self.key_window(app)
        if key is not None and (observed is None or key.id == observed) and not windows.accepts_focus(self.x, key.id):
            raise NativeError(
                "feature_unavailable",
                f'The window "{key.title}" of {app.display_name} takes no keyboard input (ICCCM input '
                "hint false, no WM_TAKE_FOCUS); keys and typing cannot reach it. Use pointer actions.",
                dispatched=False,
            )

    @guard(acting=True)
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

    @guard(acting=True)
    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        return self.actor.set_value(app, element, value)

    @guard(acting=True)
    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        return self.actor.perform_secondary_action(app, element, action)

    def close(self) -> None:
        if self._actor is not None:
            self._actor.close()
        self.settling.close()
        self.shots.close()
        self.atspi.close()
        self.x.close()
