"""The Wayland actor's session: the gates before each burst, coordinates, the session's devices.

``WaylandSession`` is the ``act.seam.ActSession`` of a wlroots compositor, so the shared modules
(``act.scroll``, ``act.values``, ``act.focus``, ``act.paste``) run on it unchanged. It reaches the
observation side through ``WlObserved`` (``WaylandExecutor``'s public helpers) and sends input
through the session's one pointer and keyboard (``wayland.compositor.Input``).

Gates. Before each burst: the process identity is the observed one (``stale_process``); the
observed key window still exists and is the app's (``stale_window``); it is focused through
the compositor and the focus is read back (``target_window_changed`` when it does not arrive), but
never taken from another window of the app's own (a dialog it opened: ``stale_window`` for keys); a
pointer burst's first point lies inside it, where the compositor has raised it to the top
(``point_outside_target_window``), or, for a click by handle on an element of an open menu, that
element still says SHOWING (a menu is an xdg_popup: drawn over the focused window, but not one of
the compositor's views, so its rect is only the app's to tell); the identity is read once more
right before the burst. A failure there is ``dispatched=False``. A burst that fails half way
lifts every held button and key (``Input.release_all``) and is never replayed.

The barrier's round trip (``round_trip``, for ``act.barrier``). A native Wayland client gets no
``_NET_WM_PING``, and no other client can ping it through the compositor, so the trip has two legs:

1. ``wl_display.sync`` on the virtual input's connection (``Devices.flush``): the compositor
   answers it after it handled every request sent before, so the virtual key and pointer events
   have become the app's ``wl_keyboard`` and ``wl_pointer`` events, queued on its connection
   (sway writes its clients' buffers out before it sleeps, normally with our answer).
2. An accessible getter (``GetState`` of the app's root) over the bus, answered from the app's
   main loop, the one that reads its Wayland socket: GTK 3's at-spi2-atk runs its D-Bus
   connection on the default GLib main context, beside GDK's Wayland event source; Qt's AT-SPI
   bridge objects live in the GUI thread, and QtDBus hands a call to them to that thread as an
   event. Not ``org.freedesktop.DBus.Peer.Ping``: libdbus answers that itself where it
   dispatches, and QtDBus dispatches on a thread of its own, so a Qt app answers a ping while
   its GUI thread is busy. Measured on sway with each app's main thread asleep 2 s: PySide6 (Qt
   6) answered Peer.Ping in 1 ms and GetState after 1898 ms; a GTK 3 app answered both after
   1.9 s.

What the answer proves: the app's main loop has turned since the compositor queued the events for
it, and every accessible call sent to it before (an insert, an action) has been answered. What it
does not prove, unlike X11's ping, which waits in the same queue as the keys: that every event
has reached its widget (GDK reads all that waits on its socket in one pass but emits its events
one a dispatch, and a D-Bus call of the same priority may be answered in between; Qt delivers
window-system events and posted calls from separate queues), nor what the events queued in turn
(idle callbacks, timers), nor that the compositor wrote the app's buffer before ours. The typist
reads its text back, and the barrier's timers and quiet follow the trip (``core.barrier``); no
answer in time is ``unsettled``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Final, Protocol

from deskhand.backends.base import Direction, Handle, ProcessIdentity, RunningApp
from deskhand.backends.linux.act.seam import ref_of
from deskhand.backends.linux.atspi.connection import ROOT_PATH, AtspiConnection
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.enums import Role, State, role_set
from deskhand.backends.linux.observe.settle import Settling
from deskhand.backends.linux.wayland._wire import WaylandError
from deskhand.backends.linux.wayland.compositor import Compositor, Input, View
from deskhand.core import deadline as call_deadline
from deskhand.core.axtree.model import Element
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect

__all__ = ("WaylandSession", "WlObserved")

FOCUS_TIMEOUT_S: Final = 1.0
#: How long the barrier waits for a window the app shows to be shown by the compositor (``windows_landed``).
LANDING_TIMEOUT_S: Final = 1.0
_POLL_S: Final = 0.005
#: The roles of a menu's elements, which show in a popup outside their window (as ``act.clicks``'s).
_MENU_ROLES: Final = role_set(
    Role.CHECK_MENU_ITEM, Role.MENU, Role.MENU_ITEM, Role.RADIO_MENU_ITEM, Role.TEAROFF_MENU_ITEM
)
#: The roles of an app's own windows on the accessibility bus (a popup's window or a tooltip is WINDOW).
_WINDOW_ROLES: Final = role_set(Role.ALERT, Role.DIALOG, Role.FILE_CHOOSER, Role.FRAME)
#: Wheel notches toward each direction as (vertical, horizontal) axis steps (positive: down, right).
_WHEEL: Final[Mapping[Direction, tuple[int, int]]] = {"down": (1, 0), "up": (-1, 0), "right": (0, 1), "left": (0, -1)}


class WlObserved(Protocol):
    """What the session needs from the observation side (``WaylandExecutor``'s public helpers)."""

    @property
    def env(self) -> dict[str, str]: ...
    @property
    def atspi(self) -> AtspiConnection: ...
    def verify_identity(self, app: RunningApp) -> ProcessIdentity: ...
    def element(self, app: RunningApp, handle: Handle) -> Element: ...
    def observed_key_window(self, app: RunningApp) -> int | None: ...
    def window_of(self, app: RunningApp, element: Element) -> int | None: ...
    def to_global(self, app: RunningApp, x: float, y: float) -> Point: ...
    def bus_of(self, app: RunningApp) -> str | None: ...
    def mark_mutation(self, app: RunningApp) -> None: ...
    @property
    def settling(self) -> Settling: ...


def _holds(v: View, at: Point) -> bool:
    return v.rect[0] <= at.x < v.rect[0] + v.rect[2] and v.rect[1] <= at.y < v.rect[1] + v.rect[3]


def _above(views: list[View], view: View, at: Point) -> bool:
    """Whether a visible window above ``view`` (the compositor's stacking, bottom to top) holds
    the point."""
    return any(v.visible and _holds(v, at) for v in views[views.index(view) + 1 :])


def _focused(views: list[View], pid: int) -> View | None:
    return next((v for v in views if v.pid == pid and v.focused), None)


def _refused(code: str, message: str) -> NativeError:
    return NativeError(code, message, dispatched=False)


def _key_changed(observed: int, now: View | None, *, gone: bool = False) -> NativeError:
    """Keys never go to a window the agent did not see: the app's key window is another one now,
    or none (``gone``: the observed one closed, as a dialog does on its OK); X11's
    ``LinuxSession.bind_keyboard`` says the same, with the way on."""
    what = f"window {now.id} ({now.title!r})" if now is not None else "no window"
    then = "is gone" if gone else "is no longer the key window"
    return _refused(
        "stale_window",
        f"The app's key window changed since it was observed: keys go only to the observed key window {observed}, "
        f"which {then} (now {what}); this call sent nothing. "
        "To go on, observe the app (get_app_state; in a js cell, in the same cell too: "
        "await app.getAXState({waitForChangeMs: 1000}) until the window you expect is the key window), "
        "then send the keys again.",
    )


class WaylandSession:
    """The gates, coordinates and devices every acting module shares on Wayland (module docstring)."""

    def __init__(self, executor: WlObserved, compositor: Compositor) -> None:
        self.observed = executor
        self.compositor = compositor
        self.devices: Input = compositor.input
        #: Held for a whole action: the host serializes per session, this guards the devices.
        self.lock = threading.RLock()
        self._a11y: A11y | None = None

    # -- the bus ------------------------------------------------------------------------------
    @property
    def a11y(self) -> A11y:
        if self._a11y is None:
            self._a11y = A11y(self.observed.atspi)
        return self._a11y

    @property
    def a11y_address(self) -> str:
        return str(self.observed.atspi.address)

    def register_events(self, names: Iterable[str]) -> None:
        self.a11y.register_events(names)

    # -- identity, windows, elements, coordinates ---------------------------------------------
    def verify_identity(self, app: RunningApp) -> ProcessIdentity:
        try:
            return self.observed.verify_identity(app)
        except NativeError as err:
            if err.dispatched is None:
                err.dispatched = False  # the gates run before the burst: nothing was sent
            raise

    def mark_mutation(self, app: RunningApp) -> None:
        self.observed.mark_mutation(app)

    def ref(self, app: RunningApp, handle: Handle) -> tuple[Element, Ref]:
        element = self.observed.element(app, handle)
        return element, ref_of(element)

    def to_global(self, app: RunningApp, point: tuple[float, float]) -> Point:
        """The point on the screen; the identity proven first, so a gone process is
        ``process_gone`` (as X11's gate says) before the coordinates' ``stale_process``."""
        self.verify_identity(app)
        return self.observed.to_global(app, point[0], point[1])

    def views(self) -> list[View]:
        return self.compositor.views()

    def observed_key(self, app: RunningApp) -> int:
        """The key window of the app's last observation (``stale_snapshot`` before any)."""
        key = self.observed.observed_key_window(app)
        if key is None:
            raise _refused("window_not_key", "The observed app has no key window; observe it again.")
        return key

    def window_of(self, app: RunningApp, element: Element) -> int | None:
        """The app's window that holds ``element``: the one its last observation found it in, else
        the one that holds its centre (the observed key window first, then the topmost)."""
        found = self.observed.window_of(app, element)
        if found is not None or element.frame is None:
            return found
        at, key = element.frame.center, self.observed_key(app)
        holding = [v for v in self.views() if v.pid == app.pid and _holds(v, at)]
        return key if any(v.id == key for v in holding) else (holding[-1].id if holding else None)

    def window_frame(self, app: RunningApp) -> Rect:
        key = self.observed_key(app)
        view = next((v for v in self.views() if v.id == key), None)
        if view is None or view.pid != app.pid:
            raise _refused("stale_window", "The observed window is gone; observe the app again.")
        return Rect(*view.rect)

    # -- the gates ----------------------------------------------------------------------------
    def focus(self, app: RunningApp, view_id: int, at: Point | None = None, *, key: int | None = None) -> View:
        """Focus (and so raise) the window through the compositor unless it has the focus (and,
        with ``at``, no other window lies over that point), and read it back; the view now.
        Refused when the app's focused window is another than its observed key window ``key``
        (``view_id`` unless given: a click by handle may go to another window the agent saw)."""
        deadline = time.monotonic() + call_deadline.bound(FOCUS_TIMEOUT_S)
        asked = False
        while True:
            views = self.compositor.views()
            view = next((v for v in views if v.id == view_id), None)
            if view is None or view.pid != app.pid:
                if at is None:  # keys: say where the key window is now, and the way on
                    raise _key_changed(view_id, _focused(views, app.pid), gone=True)
                raise _refused("stale_window", "The observed window is gone; observe the app again.")
            if view.focused and (at is None or not _above(views, view, at)):
                return view
            now = _focused(views, app.pid)
            if now is not None and now.id != (key or view_id):  # the app's own new key window (a dialog)
                raise _key_changed(view_id, now) if at is None else _refused(
                    "target_window_changed", "The target window changed before the action; observe the app again."
                )  # fmt: skip
            if not asked:  # only when it is not focused: a focus command makes the app
                self.compositor.focus(view_id)  # leave and enter again, and GTK drops FOCUSED meanwhile
                asked = True
                continue
            if time.monotonic() >= deadline:
                raise _refused("target_window_changed", "The observed window did not take the focus.")
            time.sleep(_POLL_S)  # polling the compositor for the focus, with a deadline

    def bind_keyboard(self, app: RunningApp) -> int:
        """Keys go only to the observed key window, focused and proven now (module docstring)."""
        if call_deadline.expired():
            raise _refused("cancelled", "The call's deadline passed before any input; nothing was sent.")
        self.verify_identity(app)
        key = self.observed_key(app)
        self.focus(app, key)
        self.verify_identity(app)  # proven again right before the burst
        return key

    def bind_pointer(
        self, app: RunningApp, at: Point, element: Ref | None = None, *, window: int | None = None
    ) -> View:
        """The observed key window (or ``window``, another of the app's that holds the element
        clicked) focused and on top, holding ``at`` (or ``element``, clicked at ``at``, is a
        menu's and shows: its popup); the identity proven."""
        if call_deadline.expired():
            raise _refused("cancelled", "The call's deadline passed before any input; nothing was sent.")
        self.verify_identity(app)
        key = self.observed_key(app)
        view = self.focus(app, window or key, at, key=key)
        vx, vy, vw, vh = view.rect
        inside = vx <= at.x < vx + vw and vy <= at.y < vy + vh
        if not inside and not (element is not None and self._in_open_menu(element)):
            raise _refused("point_outside_target_window", "The point is outside the observed window.")
        self.verify_identity(app)
        self.devices.confine(view.rect)  # any motion the devices add stays in the target
        return view

    def _in_open_menu(self, ref: Ref) -> bool:
        """Whether ``ref`` is a menu's element that shows now (so its popup is open)."""
        return self.a11y.role(ref) in _MENU_ROLES and bool(self.a11y.states(ref) & State.SHOWING)

    # -- posting ------------------------------------------------------------------------------
    def post(self, steps: Iterable[Callable[[], None]]) -> None:
        """Send a burst and wait until the compositor has handled it; lift whatever is held on
        any failure (nothing stays pressed)."""
        try:
            for step in steps:
                step()
            self.devices.flush()
        except BaseException:
            self.devices.release_all()
            self.devices.flush()
            raise

    def round_trip(self, app: RunningApp, window: int, end: float) -> bool:
        """The barrier's round trip through the app (module docstring), until ``end`` (monotonic):
        the compositor's sync, then the app's root states read over the bus. ``window`` is not
        needed: the app's main loop answers for all its windows."""
        del window
        bus = self.observed.bus_of(app)
        if bus is None:
            return False
        if (left := end - time.monotonic()) <= 0:
            return False
        try:
            self.devices.flush(left)
        except WaylandError:
            return False  # no answer in time (a protocol error raises again at the next burst)
        return self.a11y.states_within(Ref(bus, ROOT_PATH), max(0.0, end - time.monotonic())) is not None

    def windows_landed(self, app: RunningApp, end: float) -> bool:
        """For the barrier after a chord, until ``end`` (monotonic): True once every window the app
        shows on the accessibility bus (``_WINDOW_ROLES``, SHOWING) has a view the compositor shows.
        A toolkit shows a window (GTK lists a dialog as soon as it is shown) before the compositor
        has mapped it and moved the focus to it: gedit's Save As was listed 180 ms after
        ctrl+shift+s and shown and focused by GNOME Shell 210 ms later, and keys sent between went
        to the main window, where the dialog's modal grab dropped them, or into the dialog once it
        took the focus (2 of 14 runs); with the window landed, the keyboard gate sees where the
        focus is. Waited for ``LANDING_TIMEOUT_S`` at most (False then: ``unsettled``). A window
        without a name is not counted: Chromium lists two unnamed SHOWING frames beside its window
        that the compositor never shows, and every chord in it waited 1 s and said unsettled."""
        bus = self.observed.bus_of(app)
        if bus is None:
            return True
        end = min(end, time.monotonic() + LANDING_TIMEOUT_S)
        a11y = self.a11y
        while True:
            listed = 0
            for ref in a11y.children(Ref(bus, ROOT_PATH)):
                if a11y.role(ref) in _WINDOW_ROLES and a11y.states(ref) & State.SHOWING and a11y.name(ref):
                    listed += 1
            if listed <= sum(1 for v in self.views() if v.pid == app.pid and v.visible):
                return True
            if time.monotonic() >= end:
                return False
            time.sleep(_POLL_S)  # polling the compositor for the window, with a deadline

    def written_out(self, app: RunningApp, end: float) -> bool:
        """After the app was seen to handle input (its effect read over the bus): the app's root
        states read once more, then the compositor's sync, until ``end`` (monotonic). Qt writes
        out its Wayland requests (a popup it closed while handling a key) each time its loop turns,
        which may be after it answered the read that saw the effect; the second answer comes after
        that turn, and the compositor answers the sync sent after it once it has handled what the
        app wrote (module docstring: the trip's two legs, the other way round)."""
        bus = self.observed.bus_of(app)
        if bus is None or (left := end - time.monotonic()) <= 0:
            return False
        if self.a11y.states_within(Ref(bus, ROOT_PATH), left) is None:
            return False
        try:
            self.devices.flush(max(0.0, end - time.monotonic()))
        except WaylandError:
            return False  # no answer in time (a protocol error raises again at the next burst)
        return True

    def wheel(self, app: RunningApp, at: Point, direction: Direction, clicks: int) -> None:
        self.bind_pointer(app, at)
        dy, dx = _WHEEL[direction]
        d = self.devices
        self.post([lambda: d.move(at.x, at.y), lambda: d.wheel(dy * clicks, dx * clicks)])
