"""``LinuxExecutor``: the Executor protocol on X11 + AT-SPI (observing here, acting in ``acting.py``).

It owns the shared native connections (one X display, one AT-SPI bus connection), the core's
``Observer`` (handle generations, reconciliation, diffs) and the settle clock, and answers
``list_apps``, ``resolve`` (finding apps in ``_discovery``) and ``get_app_state`` itself. Every
action method is delegated to ``deskhand.backends.linux.acting.LinuxActor``, which uses the
public helpers documented below (``verify_identity``, ``key_window``, ``activate``, ``element``,
``to_global``, ``mark_mutation``, ``atspi``, ``x``).

An app missing from the accessibility bus whose toolkit has no accessibility (Tk, SDL, Xt/Xaw,
plain Xlib; ``_identity.toolkit``) is observed without a tree: the ``App=`` and ``Window:`` lines,
``notices.NO_ACCESSIBILITY`` and the screenshot, never diffed. One whose toolkit has accessibility
is ``ax_failed`` with the fix for that toolkit (``notices.accessibility_off``). Keys, typing and
paste are refused before dispatch for a key window that takes no focus (xeyes, xclock).

An observation is bounded: the AT-SPI read has ``observe_timeout_s`` in total and 2 s per call,
so a hung app yields a truncated state (with a notice) or an ``ax_failed`` error by then.

The app's windows are read and the key window captured (MIT-SHM read, fit, JPEG) on a worker
thread while the tree is read: the read mostly waits for the app, and the capture's native
work releases the GIL. The worker reads the key window again right after the capture; the
identity is compared once both have finished.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import time
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

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
from deskhand.backends.linux import _identity, _inventory, _mapping, _transients
from deskhand.backends.linux import _windows as windows
from deskhand.backends.linux import _xlost as xlost
from deskhand.backends.linux._atspi import (
    AtspiConnection,
    Deadline,
    Snapshot,
)
from deskhand.backends.linux._capture import Capture, Grabber, encode
from deskhand.backends.linux._discovery import Discovery
from deskhand.backends.linux._quiet import Activity
from deskhand.backends.linux._windows import WindowInfo
from deskhand.backends.linux._x11 import XConnection
from deskhand.backends.linux._xlost import guard, lost_text
from deskhand.core import screenshot
from deskhand.core.axtree import notices as advisory
from deskhand.core.axtree.handles import Fingerprint, check_fingerprint
from deskhand.core.axtree.model import AppTree, Element, WindowTree, detach
from deskhand.core.axtree.observer import Observer
from deskhand.core.axtree.render import full_text
from deskhand.core.axtree.settle import SettleClock
from deskhand.core.axtree.text import display_window_title, sanitize
from deskhand.core.errors import BackendUnavailable, NativeError
from deskhand.core.geometry import Point, Rect

if TYPE_CHECKING:
    from deskhand.backends.linux.acting import LinuxActor

#: The whole AT-SPI read of one observation (per call: 2 s, the AX messaging timeout).
OBSERVE_TIMEOUT_S: Final = 3.0
#: Bus names remembered per pid (then the memo starts over).
MAX_KNOWN_BUSES: Final = 1024
_WINDOW_ROLES: Final = frozenset({2, 16, 23, 28, 69})
_ROLE_FRAME: Final = 23


class LinuxExecutor:
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
        self.settle = SettleClock()
        self.observe_timeout_s = observe_timeout_s
        self._grabber = Grabber(self.x)
        self._capture_worker: ThreadPoolExecutor | None = None
        #: pid -> the bus name it had on the accessibility bus (checked again before each use).
        self._buses: dict[int, str] = {}
        self._transforms: dict[int, screenshot.ShotTransform] = {}
        #: app key -> (identity, hash) of its last capture, for the identical-capture notice.
        self._captures: dict[str, tuple[ProcessIdentity, str]] = {}
        #: Running apps and installed entries (``_discovery``).
        self.discovery = Discovery(self.x, self.atspi)
        #: identity -> its toolkit (``_identity.toolkit``), for apps missing from the bus.
        self._toolkits: dict[ProcessIdentity, str | None] = {}
        self._actor: LinuxActor | None = None
        self._activity_watch: Activity | None = None
        #: app key -> when its last observation was complete (what ``wait_for_change`` waits past)
        self._observed_at: dict[str, float] = {}
        #: the X server went away (``_xlost``): the next call reconnects first
        self.x_lost = False

    # -- a lost X server (``_xlost``) ----------------------------------------------------------

    def drop_x(self) -> str:
        """Forget every X-side piece after the X server went away; returns the display's name."""
        self.x_lost = True
        actor, self._actor = self._actor, None
        watch, self._activity_watch = self._activity_watch, None
        for close in (actor.close if actor else None, watch.close if watch else None, self._grabber.close):
            if close is not None:
                with contextlib.suppress(Exception):
                    close()
        self._transforms.clear()
        return self.x.name

    def reconnect_x(self) -> None:
        """Open the display again (a new X server there); the plain error while it is still gone."""
        try:
            if not xlost.answers(self.x.name):
                raise BackendUnavailable(lost_text(self.x.name))
            x = XConnection(self.x.name)
        except BackendUnavailable:
            raise BackendUnavailable(lost_text(self.x.name)) from None
        with contextlib.suppress(Exception):
            self.x.close()
        self.x = x
        self._grabber = Grabber(x)
        self.discovery = Discovery(x, self.atspi)
        self.x_lost = False

    # -- inventory ---------------------------------------------------------------------------

    def installed(self) -> list[_inventory.DesktopApp]:
        return self.discovery.installed()

    def _desktop_ids(self) -> dict[str, str]:
        return self.discovery.program_ids()

    def running(self) -> list[_inventory.RunningProcess]:
        """Running apps: AT-SPI registry processes and the owners of top-level X windows."""
        return [f.process for f in self.discovery.found()]

    @guard(acting=False)
    def list_apps(self) -> list[AppEntry]:
        installed = self.installed()
        return _inventory.merge(self.running(), installed, _inventory.recent_usage(installed))

    @guard(acting=False)
    def resolve(self, selector: str) -> RunningApp:
        return self.discovery.resolve(selector)

    def list_windows(self, pid: int | None = None) -> list[WindowEntry]:
        """Every top-level X11 window with a known owner (of ``pid`` when given), bottom to top.

        ``app`` is the owner's app id as ``/proc`` proves it now (empty when it cannot be read);
        ``is_key`` marks the window ``get_app_state`` observes and coordinate actions map into.
        """
        ids = self._desktop_ids()
        with self.x.lock:
            clients = windows.client_ids(self.x)
            owners = windows.window_pids(self.x, clients)
            found = [
                w
                for i, wid in enumerate(clients)
                if (owner := owners.get(wid)) is not None and (pid is None or owner == pid)
                if (w := windows.info(self.x, wid, stacking=i, pid=owner)) is not None
            ]
        apps: dict[int, str] = {}
        keys: dict[int, int | None] = {}
        for w in found:
            if w.pid not in apps:
                identity = _identity.read_identity(w.pid, ids)
                apps[w.pid] = identity.app_id if identity is not None else ""
                key = windows.key_window(self.x, w.pid, [v for v in found if v.pid == w.pid])
                keys[w.pid] = key.id if key is not None else None
        return [
            WindowEntry(
                window_id=w.id,
                pid=w.pid,
                app=apps[w.pid],
                title=w.title,
                bounds=(w.frame.x, w.frame.y, w.frame.width, w.frame.height),
                z_index=w.stacking,
                is_on_screen=w.mapped,
                is_key=keys[w.pid] == w.id,
            )
            for w in found
        ]

    # -- helpers for the actor (public) ------------------------------------------------------

    def verify_identity(self, app: RunningApp) -> ProcessIdentity:
        """Re-read the app's identity from /proc and compare it exactly.

        Raises:
            NativeError: ``process_gone`` or ``stale_process``.
        """
        return _identity.verify(app.identity, self._desktop_ids())

    def key_window(self, app: RunningApp, wins: list[WindowInfo] | None = None) -> WindowInfo | None:
        """The app's key window: ``_NET_ACTIVE_WINDOW`` if it is the app's, else its topmost
        (``wins``: the app's windows as ``windows`` just returned them)."""
        return windows.key_window(self.x, app.pid, wins)

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
        """The element behind a ``gN:id`` handle; ``element.ref`` is its ``_mapping.AtspiRef``.

        The element is fetched again from the app and must still be the one observed (same
        role and name, still on screen; section 3.3 step 6), so an action never lands on what
        replaced it; one that moved is returned with its bounds now.

        Raises:
            NativeError: ``stale_snapshot``, ``stale_process``, ``bad_index`` (checked in the
                contract's order), ``process_gone`` when the process has exited, then
                ``stale_element`` when the element is gone or changed (``ax_failed`` when the
                app does not answer).
        """
        current = _identity.read_identity(app.pid, self._desktop_ids())
        found = self.observer.element(_app_key(app), handle, identity=current or app.identity)
        if current is None:
            raise NativeError("process_gone", f"{app.display_name} (pid {app.pid}) is no longer running.")
        if isinstance(found.ref, _mapping.AtspiRef):
            observed = Fingerprint(found.ref.role, found.title or "", found.frame)
            now = check_fingerprint(handle, observed, _transients.refetch(self.atspi, app, found.ref))
            if now is not found.frame:
                found = dataclasses.replace(found, frame=now)  # it moved: act where it is now
        return found

    def observed_key_window(self, app: RunningApp) -> int | None:
        """The key window of the app's last observation (keyboard and paste go only there).

        Raises:
            NativeError: ``stale_snapshot`` before any observation, ``stale_process``.
        """
        current = _identity.read_identity(app.pid, self._desktop_ids())
        return self.observer.key_window(_app_key(app), identity=current)

    def to_global(self, app: RunningApp, x: float, y: float) -> Point:
        """Screenshot pixels of the latest ``get_app_state`` → root coordinates (section 6.2)."""
        kw = self.key_window(app)
        current = _identity.read_identity(app.pid, self._desktop_ids())
        try:
            return screenshot.to_global(
                self._transforms.get(app.pid), x, y, identity=current, key_window_id=kw.id if kw else None
            )
        except NativeError as e:
            if e.details.get("drop_transform"):
                self._transforms.pop(app.pid, None)
            raise

    def transform(self, app: RunningApp) -> screenshot.ShotTransform | None:
        return self._transforms.get(app.pid)

    def mark_mutation(self, app: RunningApp) -> None:
        """Record that an action changed the app: its next capture waits by the settle rule."""
        self.settle.mark_mutation(_app_key(app), time.monotonic())

    def _settle(self, app: RunningApp) -> None:
        """The UI settle before a capture after a mutation: the seed's fixed window (6.12), then,
        while the app is still changing, until it has been quiet (``_quiet``)."""
        key = _app_key(app)
        since = self.settle.pending(key)
        floor = self.settle.take(key, time.monotonic())
        if since is None:
            return
        shot = self._transforms.get(app.pid)
        window = shot.window_id if shot is not None else None
        self._activity().wait_quiet(self._buses.get(app.pid), window, since=since, floor_s=floor)

    def _wait_for_change(self, app: RunningApp, timeout_s: float) -> str:
        """Wait up to ``timeout_s`` for the app to do something after its last observation (an
        AT-SPI event, drawing in its window), then for it to go quiet; the notice says which."""
        start = time.monotonic()
        shot = self._transforms.get(app.pid)
        bus, window = self._buses.get(app.pid), shot.window_id if shot is not None else None
        activity = self._activity()
        after = self._observed_at.get(_app_key(app), start)
        last = activity.wait_for_activity(bus, window, after=after, timeout_s=timeout_s)
        if last is not None:
            activity.wait_quiet(bus, window, since=last, floor_s=0.0)
        return advisory.waited_for_change((time.monotonic() - start) * 1000, changed=last is not None)

    def _activity(self) -> Activity:
        if self._activity_watch is None:
            self._activity_watch = Activity(str(self.atspi.address), self.x.name)
        return self._activity_watch

    # -- observation -------------------------------------------------------------------------

    @guard(acting=False)
    def get_app_state(self, app: RunningApp, *, disable_diff: bool = False, wait_for_change_s: float = 0.0) -> AppState:
        identity = self.verify_identity(app)
        waited = self._wait_for_change(app, wait_for_change_s) if wait_for_change_s > 0 else None
        acted = self.settle.pending(_app_key(app))
        self._settle(app)
        before = self._transforms.pop(app.pid, None)
        window = before.window_id if before is not None else None
        reacted = acted is not None and (self._activity().last(self._buses.get(app.pid), window) or 0.0) >= acted
        seen: Future[tuple[list[WindowInfo], WindowInfo | None]] = Future()
        shot = self._capture_pool().submit(self._look, app, seen)
        try:
            tree, notices, key = self._read_tree(app, identity, seen)
            accessible = tree is not None
            if tree is None:
                tree = AppTree(app_label=app.identity.app_id, app_name=app.display_name, pid=app.pid, windows=[])
            obs = self.observer.observe(
                tree,
                app_key=_app_key(app),
                identity=identity,
                key_window_id=key.id if key else None,
                disable_diff=disable_diff or not accessible,
            )
        except BaseException:
            if not shot.cancel():
                futures.wait([shot])  # the X connection is shared: the capture ends before anything else uses it
            raise
        if key is not None:
            self._activity().watch(key.id)  # damage on it counts as activity from now on
        image = self._shoot(app, key, identity, shot) if key is not None else None
        notices += self._advice(
            app,
            identity,
            key,
            image,
            obs.full_text,
            complete=not tree.timed_out,
            accessible=accessible,
            acted=acted is not None,
            reacted=reacted,
        )
        text = obs.text.rstrip()
        if not accessible:
            # No tree: the state is the App= and Window: lines with the key window's own title.
            title = sanitize(display_window_title(key.title if key else None, app.display_name))
            text = full_text(tree, title, [], [])
        if waited is not None:
            notices.append(waited)
        self._observed_at[_app_key(app)] = time.monotonic()  # what this observation has seen
        if notices:
            text += "\n\n" + "\n".join(notices)
        title = key.title if key else (tree.windows[0].title if tree.windows else "")
        return AppState(text=text, image=image, window_title=title)

    def _advice(
        self,
        app: RunningApp,
        identity: ProcessIdentity,
        key: WindowInfo | None,
        image: Image | None,
        full_text: str,
        *,
        complete: bool,
        accessible: bool = True,
        acted: bool = False,
        reacted: bool = False,
    ) -> list[str]:
        """The advisory notices of section 3.2 (shell tree, off screen, covered, identical
        capture) from this observation's facts; remembers the capture's hash for the next one."""
        digest = None
        if key is not None and image is not None:
            digest = f"{key.id:x}:{hashlib.blake2b(image.data, digest_size=16).hexdigest()}"
        previous = self._captures.pop(_app_key(app), None)
        if digest is not None:
            self._captures[_app_key(app)] = (identity, digest)
        screen = self.x.display.screen()
        return advisory.notices(
            advisory.Facts(
                lines=full_text.split("\n"),
                window=key.frame if key is not None else None,
                screen=Rect(0.0, 0.0, float(screen.width_in_pixels), float(screen.height_in_pixels)),
                covered=key is not None and _transients.overlapped(key.frame, self._grabber.covers(key)),
                capture_hash=digest,
                previous_capture_hash=previous[1] if previous is not None and previous[0] == identity else None,
                tree_complete=complete,
                accessible=accessible,
                acted=acted,
                reacted=reacted,
            )
        )

    def _read_tree(
        self, app: RunningApp, identity: ProcessIdentity, seen: Future[tuple[list[WindowInfo], WindowInfo | None]]
    ) -> tuple[AppTree | None, list[str], WindowInfo | None]:
        """The app's tree (None: its toolkit has no accessibility), notices about it, and its key
        window (``seen``: the app's windows and key window, read by the capture worker while the
        tree is read).

        Raises:
            NativeError: ``ax_failed`` when the app's toolkit has accessibility but the app is not
                on the bus (with the fix for that toolkit), or it did not answer in time.
        """
        bus = self._bus_of(app.pid)
        notices: list[str] = []
        if bus is None:
            kit = self._toolkit(identity)
            if advisory.has_accessibility(kit):
                raise NativeError("ax_failed", advisory.accessibility_off(app.display_name, app.pid, kit))
            return None, notices, seen.result()[1]
        t0 = time.monotonic()
        snap = self.atspi.snapshot(bus, Deadline(self.observe_timeout_s))
        # the seconds it really waited (a call's own cap or the cell's deadline may come first)
        waited = f"{time.monotonic() - t0:.1f}"
        if snap.timed_out and not snap.nodes:
            raise NativeError(
                "ax_failed",
                f"{app.display_name} (pid {app.pid}) did not answer accessibility requests for "
                f"{waited} s; the app may be hung. Nothing was read.",
            )
        xwins, key = seen.result()
        tree = self._app_tree(app, snap, key, xwins)
        if snap.timed_out:
            tree.truncated = tree.timed_out = True
            notices.append(
                f"The accessibility tree is incomplete: {app.display_name} stopped answering; deskhand "
                f"waited {waited} s (the app may be busy or hung)."
            )
        return tree, notices, key

    def _toolkit(self, identity: ProcessIdentity) -> str | None:
        if identity not in self._toolkits:
            if len(self._toolkits) >= MAX_KNOWN_BUSES:
                self._toolkits.clear()
            self._toolkits[identity] = _identity.toolkit(identity.pid)
        return self._toolkits[identity]

    def _bus_of(self, pid: int) -> str | None:
        """The pid's bus name: the one found last time while the bus daemon still says it is
        this pid's (unique names are never reused, so it is the same live connection), else the
        registry's."""
        known = self._buses.get(pid)
        if known is not None and self.atspi.pids([known], Deadline(2.0)).get(known) == pid:
            return known
        buses = self.atspi.apps(Deadline(2.0))
        pids = self.atspi.pids(buses, Deadline(2.0))
        bus = next((b for b, p in pids.items() if p == pid), None)
        if bus is None:
            self._buses.pop(pid, None)
        else:
            if len(self._buses) >= MAX_KNOWN_BUSES:
                self._buses.clear()
            self._buses[pid] = bus
        return bus

    def _app_tree(self, app: RunningApp, snap: Snapshot, key: WindowInfo | None, xwins: list[WindowInfo]) -> AppTree:
        trees: list[WindowTree] = []
        focused: Element | None = None
        menu_bar: Element | None = None
        mapped: dict[str, Element] = {}  # one element per object, however many parents list it
        for path in snap.windows:
            node = snap.nodes.get(path)
            if node is None or not node.showing:
                continue
            root, focus = _mapping.element_tree(snap, path, mapped)
            if root is None:
                continue
            if node.role not in _WINDOW_ROLES:
                root.role = "AXWindow"  # a top-level file chooser, menu or popup is a window too
            xwin = _match_window(root, xwins)
            if xwin is None and xwins and node.role == _ROLE_FRAME and not root.title:
                continue  # an untitled frame no mapped window shows (Chromium keeps hidden ones SHOWING)
            wid = xwin.id if xwin else 0
            if key is not None and wid == key.id and menu_bar is None:
                menu_bar = detach(root, "AXMenuBar")
            focused = focused or focus
            trees.append(WindowTree(wid, root.title or (xwin.title if xwin else ""), root, root.frame))
        # The key window first: it is the one the state is about; an open menu of its menu bar
        # is over it, in front of everything.
        trees.sort(key=lambda t: key is None or t.window_id != key.id)
        bars = [menu_bar] if menu_bar is not None else []
        trees[:0] = _transients.open_menus(bars, trees)
        return AppTree(
            app_label=app.identity.app_id,
            app_name=app.display_name,
            pid=app.pid,
            windows=trees,
            focused=focused,
            menu_bar=menu_bar,
            truncated=snap.capped,
        )

    def _capture_pool(self) -> ThreadPoolExecutor:
        if self._capture_worker is None:
            self._capture_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deskhand-capture")
        return self._capture_worker

    def _look(self, app: RunningApp, seen: Future[tuple[list[WindowInfo], WindowInfo | None]]) -> _Shot | None:
        """On the capture worker: the app's windows and key window (into ``seen``), then the
        key window's capture."""
        try:
            xwins = self.windows(app)
            key = self.key_window(app, xwins)
        except BaseException as e:
            seen.set_exception(e)
            raise
        seen.set_result((xwins, key))
        return self._capture(app, key) if key is not None else None

    def _capture(self, app: RunningApp, key: WindowInfo) -> _Shot | None:
        """The key window's pixels, fitted and encoded, and the key window read again after the
        capture (on the capture worker); None when it cannot be captured (the contract's
        capture never throws: failure means text only)."""
        try:
            cap = self._grabber.grab(key)
        except NativeError:
            return None
        fitted = screenshot.fitted_size(cap.frame.width, cap.frame.height)
        return _Shot(cap, fitted, encode(cap.pixels, fitted.width, fitted.height), self.key_window(app))

    def _shoot(
        self, app: RunningApp, key: WindowInfo, identity: ProcessIdentity, shot: Future[_Shot | None]
    ) -> Image | None:
        """The capture's image once it is done, after the checks that follow every capture."""
        got = shot.result()
        if got is None:
            return None
        cap, fitted, data, now_key = got.capture, got.fitted, got.jpeg, got.key_after
        if _identity.read_identity(app.pid, self._desktop_ids()) != identity:
            raise NativeError("stale_process", screenshot.STALE_PROCESS_MESSAGE)
        if now_key is None or now_key.id != key.id:
            return None
        if screenshot.record_allowed(
            key_window_id=now_key.id,
            shot_window_id=cap.window_id,
            identity_proven=identity.proven,
            point_width=cap.frame.width,
            point_height=cap.frame.height,
            pixels_per_point=fitted.pixels_per_point,
            image_width=fitted.width,
            image_height=fitted.height,
        ):
            self._transforms[app.pid] = screenshot.ShotTransform(
                origin_x=cap.frame.x,
                origin_y=cap.frame.y,
                point_width=cap.frame.width,
                point_height=cap.frame.height,
                pixels_per_point=fitted.pixels_per_point,
                image_width=fitted.width,
                image_height=fitted.height,
                window_id=cap.window_id,
                identity=identity,
            )
        return Image(data, screenshot.MIME_TYPE, fitted.width, fitted.height)

    # -- actions: delegated to the actor -----------------------------------------------------

    @property
    def actor(self) -> LinuxActor:
        if self._actor is None:
            try:
                from deskhand.backends.linux.acting import LinuxActor  # noqa: PLC0415
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
        window that takes no focus (xeyes, xclock), or they would go to another app's window."""
        key = self.key_window(app)
        if key is not None and not windows.accepts_focus(self.x, key.id):
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
        if self._activity_watch is not None:
            self._activity_watch.close()
        if self._capture_worker is not None:
            self._capture_worker.shutdown(wait=True, cancel_futures=True)
        self._grabber.close()
        self.atspi.close()
        self.x.close()


@dataclass(frozen=True, slots=True)
class _Shot:
    """A capture made on the capture worker."""

    capture: Capture
    fitted: screenshot.FittedSize
    jpeg: bytes
    #: The key window as read again right after the capture (None: the app has none now).
    key_after: WindowInfo | None


def _app_key(app: RunningApp) -> str:
    return app.identity.app_id


def _match_window(root: Element, xwins: list[WindowInfo]) -> WindowInfo | None:
    """The X window of an AT-SPI window: same client rectangle, else the same title."""
    frame = root.frame
    if frame is not None:
        for w in xwins:
            if _same_rect(w.client, frame) or _same_rect(w.frame, frame):
                return w
    titled = [w for w in xwins if root.title and w.title == root.title]
    return titled[0] if len(titled) == 1 else None


def _same_rect(a: Rect, b: Rect) -> bool:
    return (a.x, a.y, a.width, a.height) == (b.x, b.y, b.width, b.height)
