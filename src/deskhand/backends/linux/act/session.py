"""The Linux actor's session: its connections, the gate before each burst, element lookup, posting.

``LinuxSession`` is what every acting module (``act.pointer``, ``act.clicks``, ``act.scroll``, ``act.keys``,
``act.values``) takes. It owns the actor's own X connection (XTest input, the gate's probes), the
AT-SPI view of the executor's bus connection (``A11y``), the CLIPBOARD owner, the app-ping and
the grab-replay connections, and it reaches the observation side only through ``Observed`` (the
public helpers ``LinuxExecutor`` documents).

Gates. Before each event burst the session proves, through the executor: the process identity is
the observed one (``stale_process``), the bound window still exists with the same id and belongs
to the pid (``target_window_changed``), and it is the active window (activated through the window
manager and verified first). Coordinates go through the executor's screenshot transform, which
owns the bounds check. A failure before posting is ``dispatched=False``.

Input goes out through XTest on the session's own X connection; a burst is queued and flushed
with one ``XSync`` (``post``), so there is no pause between events. A burst that fails half way
releases every held button at the last posted point and every held key (``XInput.release_all``)
and is never replayed.

Knowing the app has processed our input (``x11.input.AppPing``: a ``_NET_WM_PING`` the app answers
only after handling every event posted before it; GTK and Qt answer within a few milliseconds):
``input_unconfirmed`` is set by every burst and cleared by ``act.keystrokes`` once an answer
arrives (it and ``act.keys`` explain the two things that wait for it).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from Xlib import display

from deskhand.backends.base import Direction, Handle, ProcessIdentity, RunningApp
from deskhand.backends.linux.act.seam import ref_of
from deskhand.backends.linux.atspi.connection import AtspiConnection
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.x11.connection import XConnection, close_display
from deskhand.backends.linux.x11.gate import WindowProbe
from deskhand.backends.linux.x11.grabs import ReplayWaiter
from deskhand.backends.linux.x11.input import AppPing, PointerState, XInput
from deskhand.backends.linux.x11.windows import WindowInfo, windows_of
from deskhand.core import deadline as call_deadline
from deskhand.core import pointer as corepointer
from deskhand.core import screenshot
from deskhand.core import scroll as corescroll
from deskhand.core.axtree.model import Element
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect

if TYPE_CHECKING:
    from deskhand.backends.linux.observe.settle import Settling
    from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner

__all__ = ("Gate", "LinuxSession", "Observed")


class Observed(Protocol):
    """What the session needs from the observation side (``LinuxExecutor``'s public helpers)."""

    @property
    def x(self) -> XConnection: ...
    @property
    def atspi(self) -> AtspiConnection: ...
    def verify_identity(self, app: RunningApp) -> ProcessIdentity: ...
    def transform(self, app: RunningApp) -> screenshot.ShotTransform | None: ...
    def key_window(self, app: RunningApp, wins: list[WindowInfo] | None = None) -> WindowInfo | None: ...
    def observed_key_window(self, app: RunningApp) -> int | None: ...
    def activate(self, app: RunningApp, window: WindowInfo | None = None) -> WindowInfo: ...
    def element(self, app: RunningApp, handle: Handle) -> Element: ...
    def to_global(self, app: RunningApp, x: float, y: float) -> Point: ...
    def mark_mutation(self, app: RunningApp) -> None: ...
    def bus_of(self, app: RunningApp) -> str | None: ...
    @property
    def settling(self) -> Settling: ...


class Gate(NamedTuple):
    """What a passed gate proved: the key window, the action's root points, the pointer.

    ``grabbed``: another client (the window manager) grabs the probed button on the window or its
    frame, so a press will freeze the pointer until it is replayed (see ``x11.grabs``).
    """

    window: int
    points: list[Point]
    pointer: PointerState
    grabbed: bool = False
    #: With ``drop_probe``: whether a drag released at the last point could drop (``accepts_drops``).
    drops: bool | None = None


def not_dispatched(code: str, message: str) -> NativeError:
    return NativeError(code, message, dispatched=False)


def window_id(value: WindowInfo | None) -> int:
    if value is None:
        raise not_dispatched("stale_window", "The app has no mapped window; observe the app again.")
    return value.id


def _changed() -> NativeError:
    return not_dispatched(
        "target_window_changed", "The target window changed before the action; observe the app again."
    )


class LinuxSession:
    """The connections and checks every acting module shares; see the module docstring."""

    def __init__(self, executor: Observed, *, display_name: str | None = None) -> None:
        self.observed = executor
        self.d = display.Display(display_name or executor.x.name)
        self.root = self.d.screen().root
        self.input = XInput(self.d)
        #: Held for a whole action: the host serializes per session, this guards the connections.
        self.lock = threading.RLock()
        self.numbers: Iterator[int] = corepointer.event_numbers()
        #: input was posted after the last answered ping
        self.input_unconfirmed = False
        self._clipboard: ClipboardOwner | None = None
        self._a11y: A11y | None = None
        self._x11 = WindowProbe(self.d, self.root)
        self._probed_mods = 0
        self._replay: ReplayWaiter | None = None
        self._ping: AppPing | None = None

    def close(self) -> None:
        """Close the ping, clipboard, replay and X connections."""
        if self._ping is not None:
            self._ping.close()
            self._ping = None
        if self._clipboard is not None:
            self._clipboard.close()
            self._clipboard = None
        if self._replay is not None:
            self._replay.close()
            self._replay = None
        close_display(self.d)

    # -- connections --------------------------------------------------------------------------
    @property
    def a11y(self) -> A11y:
        if self._a11y is None:
            self._a11y = A11y(self.observed.atspi)
        return self._a11y

    def clipboard(self) -> ClipboardOwner:
        """The CLIPBOARD owner (created on first use; it keeps serving restored snapshots)."""
        if self._clipboard is None:
            from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner  # noqa: PLC0415

            self._clipboard = ClipboardOwner(self.d.get_display_name())
        return self._clipboard

    @property
    def clipboard_owner(self) -> ClipboardOwner | None:
        """The CLIPBOARD owner if one was created (``clipboard`` creates it)."""
        return self._clipboard

    def round_trip(self, app: RunningApp, window: int, end: float) -> bool:
        """The barrier's round trip (``act.seam.BarrierSession``): a ``_NET_WM_PING`` behind a fence
        to ``window``, answered by the app after everything queued before it, until ``end``."""
        del app
        ping = self.pinger()
        token = ping.send(window, fence=True)
        answered = ping.answered(token, max(0.0, end - time.monotonic()))
        ping.forget(token)
        if answered:
            self.input_unconfirmed = False
        return answered

    def windows_landed(self, app: RunningApp, end: float) -> bool:
        """For the barrier after a chord (``act.seam.BarrierSession``): nothing waited for on X11,
        whose keyboard gate reads the focus from the X server."""
        del app, end
        return True

    def pinger(self) -> AppPing:
        if self._ping is None:
            self._ping = AppPing(self.d.get_display_name())
        return self._ping

    @property
    def ping(self) -> AppPing | None:
        """The app-ping connection if one was opened (``pinger`` opens it)."""
        return self._ping

    def replay_waiter(self) -> ReplayWaiter:
        if self._replay is None:
            self._replay = ReplayWaiter(self.d.get_display_name())
        return self._replay

    @property
    def a11y_address(self) -> str:
        """The AT-SPI bus address (for a second connection, e.g. the paste's event counter)."""
        return str(self.observed.atspi.address)

    def register_events(self, names: Iterable[str]) -> None:
        """Register AT-SPI event names with the registry, once each (``A11y.register_events``)."""
        self.a11y.register_events(names)

    def forget_registrations(self) -> None:
        """The registry that knew them is gone: ``register_events`` sends them again."""
        self.a11y.forget_registrations()

    # -- identity, windows, elements, coordinates ---------------------------------------------
    def verify_identity(self, app: RunningApp) -> ProcessIdentity:
        return self.observed.verify_identity(app)

    def mark_mutation(self, app: RunningApp) -> None:
        self.observed.mark_mutation(app)

    def key_window(self, app: RunningApp) -> int:
        """The app's key window id (not activated; ``stale_window`` when it has none)."""
        return window_id(self.observed.key_window(app))

    def window_frame(self, app: RunningApp) -> Rect:
        """The key window's client area in root coordinates."""
        win = self.d.create_resource_object("window", self.key_window(app))
        geo = win.get_geometry()
        origin = win.translate_coords(self.root, 0, 0)
        return Rect(-origin.x, -origin.y, geo.width, geo.height)

    def to_global(self, app: RunningApp, point: tuple[float, float]) -> Point:
        """Screenshot pixels of the latest observation -> root coordinates (the executor checks)."""
        return self.observed.to_global(app, point[0], point[1])

    def ref(self, app: RunningApp, handle: Handle) -> tuple[Element, Ref]:
        """The element behind a handle and its accessible object (``stale_element`` without one)."""
        element = self.observed.element(app, handle)
        return element, ref_of(element)

    # -- the gate -----------------------------------------------------------------------------
    def bind(self, app: RunningApp) -> int:
        """The app's key window, activated and verified; the window every gate compares with."""
        return self.gate(app).window

    def bind_keyboard(self, app: RunningApp) -> int:
        """The window keys and paste go to: the key window of the app's last observation.

        Keyboard input never goes to a window the agent did not see (native-contract 6.1, 6.5):
        ``stale_snapshot`` before any observation, ``stale_window`` when the app's key window is
        another one now (a dialog opened since), both before anything is posted. The gate proves
        the key window is the observed one (one round trip when it is the active window); the
        app's windows are listed only when it is not, to say which window it is now.
        """
        observed = self.observed.observed_key_window(app)
        if observed is None:
            raise not_dispatched("stale_window", "The app had no key window when it was observed; observe it again.")
        try:
            return self.gate(app, observed).window
        except NativeError as err:
            if err.code != "target_window_changed":
                raise
            wins = windows_of(self.observed.x, app.pid)
            now = self.observed.key_window(app, wins)
            if now is not None and now.id == observed:
                raise
            what = f"window {now.id:#x} ({now.title!r})" if now is not None else "no window"
            then = "is gone" if all(w.id != observed for w in wins) else "is no longer the key window"
            raise not_dispatched(
                "stale_window",
                f"The app's key window changed since it was observed: keys go only to the observed key window "
                f"{observed:#x}, which {then} (now {what}); this call sent nothing. To go on, observe the app "
                "(get_app_state; in a js cell, in the same cell too: await app.getAXState({waitForChangeMs: 1000}) "
                "until the window you expect is the key window), then send the keys again.",
            ) from None

    def gate(
        self,
        app: RunningApp,
        window: int | None = None,
        points: Sequence[tuple[float, float]] = (),
        *,
        button: int | None = None,
        drop_probe: bool = False,
    ) -> Gate:
        """Right before a burst: same process, same window (id and pid), and it is active.

        Returns the key window, ``points`` (screenshot pixels) in root coordinates checked against
        the screenshot's transform, and the pointer. The common case is one X round trip and no
        listing (see ``_probe``): ``_NET_ACTIVE_WINDOW`` is the window the screenshot was taken of
        and its ``_NET_WM_PID`` is the app's, so it is the key window and already active. Otherwise
        the executor's full lookup runs, and the key window is activated and its focus verified.
        With ``button``, the same round trip also probes for a window manager's grab of it; with
        ``drop_probe``, whether the last point could take a drop (``Gate.drops``). The probe is sent
        first and the identity read from /proc while the server answers; both pass before any input.
        """
        if call_deadline.expired():
            raise not_dispatched(
                "cancelled", "The call's deadline (the cell's timeout_ms) passed before any input; nothing was posted."
            )
        x = self.observed
        transform = x.transform(app)
        bound = transform.window_id if transform is not None else window
        probe = None
        if button is not None and bound is not None:
            probe = self._x11.grab_probe(bound, button, self._probed_mods)
        # the points as the screenshot's window would place them for the expected identity (the
        # one verified below; nothing is used unless it is): the drop probe rides along
        early = None
        if drop_probe and bound is not None:
            with contextlib.suppress(NativeError):  # the full path below raises it, in its order
                early = [
                    screenshot.to_global(transform, px, py, identity=app.identity, key_window_id=bound)
                    for px, py in points
                ]
        drop_at = (round(early[-1].x), round(early[-1].y)) if early else None
        answer = self._x11.send_probe(bound, drop_at)
        try:  # /proc is read while the server answers the probe
            identity = x.verify_identity(app)
        except NativeError as err:
            if err.dispatched is None:
                err.dispatched = False  # the gate runs before the burst: nothing was posted
            raise
        active, bound_pid, here, drops = answer()
        # the screenshot's window, active and the app's: the key window without a listing
        key = bound if bound is not None and active == bound and bound_pid == app.pid else window_id(x.key_window(app))
        if window is not None and key != window:
            raise _changed()
        out = early if early is not None and key == bound else self._roots(app, transform, identity, key, points)
        if drop_probe and (drops is None or key != bound) and out:
            drops = self._x11.accepts_drops(key, round(out[-1].x), round(out[-1].y))
        if active != key and x.activate(app).id != key:
            raise _changed()
        grabbed = False
        if button is not None:
            if probe is None or key != bound or active != key:
                # slow path: the window changed or was just activated (managers that grab only
                # unfocused windows drop their grab on focus), so probe now, one more round trip
                probe = self._x11.grab_probe(key, button, self._probed_mods)
                self.d.sync()
            mods = here.mask & 0xFF
            # A grab for other modifiers (NumLock on, say) is invisible to a probe without them:
            # assume one when the modifiers changed since the last probe, and probe with them next.
            grabbed = probe.grabbed or mods != self._probed_mods
            self._probed_mods = mods
        return Gate(key, out, here, grabbed, drops)

    def _roots(
        self,
        app: RunningApp,
        transform: screenshot.ShotTransform | None,
        identity: ProcessIdentity,
        key: int | None,
        points: Sequence[tuple[float, float]],
    ) -> list[Point]:
        """``points`` (screenshot pixels) in root coordinates for the key window ``key``."""
        out: list[Point] = []
        for px, py in points:
            try:
                out.append(screenshot.to_global(transform, px, py, identity=identity, key_window_id=key))
            except NativeError as err:
                if err.details.get("drop_transform"):
                    self.observed.to_global(app, px, py)  # the executor drops its cached transform and raises
                raise
        return out

    def accepts_drops(self, window: int, at: Point) -> bool:
        """Whether a drag released at root point ``at`` could drop there (``WindowProbe``)."""
        return self._x11.accepts_drops(window, round(at.x), round(at.y))

    # -- posting ------------------------------------------------------------------------------
    def wheel(self, app: RunningApp, at: Point, direction: Direction, clicks: int) -> None:
        """One gate right before the burst (nothing slow between), then the pointer to ``at`` and
        ``clicks`` presses of the direction's wheel button (4-7)."""
        self.gate(app)
        steps: list[Callable[[], None]] = []
        here = self.input.pointer()
        if (here.x, here.y) != (round(at.x), round(at.y)):
            steps.append(lambda: self.input.move(at.x, at.y))
        steps.append(lambda: self.input.wheel(corescroll.X_WHEEL_BUTTONS[direction], clicks))
        self.post(steps)

    def post(self, steps: Sequence[Callable[[], None]]) -> None:
        """Queue a burst and flush it once; on any failure release whatever is held."""
        self.input_unconfirmed = True
        try:
            for step in steps:
                step()
            self.input.flush()
        except BaseException:
            self.input.release_all()
            raise
