"""Acting on a Linux app: XTest pointer and keys, AT-SPI actions, scroll, paste, text selection.

``LinuxActor`` is created by ``LinuxExecutor`` (the observation side) and receives the Executor's
action calls with the same signatures (``deskhand.backends.base.Executor``). Every decision the
contract fixes (event lists, click pairs, scroll deltas, text matches, the paste state machine)
comes from ``deskhand.core``; this module translates it into X11 and AT-SPI calls.

Gates. Before each event burst the actor proves, through the executor: the process identity is the
observed one (``stale_process``), the bound window still exists with the same id and belongs to
the pid (``target_window_changed``), and it is the active window (activated through the window
manager and verified first). Coordinates go through the executor's screenshot transform, which
owns the bounds check. A failure before posting is ``dispatched=False``.

Input goes out through XTest on the actor's own X connection; a burst is queued and flushed with
one ``XSync``, so there is no pause between events. A burst that fails half way releases every
held button at the last posted point and every held key (``XInput.release_all``) and is never
replayed.

What a drag guarantees, and where (contract 6.4: press, three motions, release, in order and at
their points in the app). On deskhand's own desktop openbox runs with ``desktop/_openbox.py``'s
configuration, which grabs no button on client windows: the five events are one burst, flushed
once, with no wait. On a desktop we do not own, the window manager may grab presses
synchronously (stock openbox does on every client window; others on unfocused ones), freezing
the pointer until it replays the press, and motions posted during the freeze reach the app at the
final position. The gate therefore probes, in the same round trip as its other checks, whether
another client grabs the drag's button on the window or its frame (``_grabs.GrabProbe``); only
then the burst is split after the press and waits for the manager to answer a no-op configure
request (``_grabs.ReplayWaiter``, typically about 1 ms; at most ``_grabs.REPLAY_TIMEOUT_S``, after
which the motions are posted anyway and the path may be lost). Clicks need no wait: a freeze only
delays a press and its release, it keeps their order and place.

Knowing the app has processed our input (``_input.AppPing``: a ``_NET_WM_PING`` the app answers
only after handling every event posted before it; GTK and Qt answer within a few milliseconds).
Two things wait for it:

* Temporary keycodes (``_keyboard``). After a burst that used some, the actor pings the window
  and empties them once the app answers, usually before the call returns. A keycode is never
  emptied or bound to another character before the app answered a ping sent after the last burst
  that used it: the app resolves a keycode when it processes the event, so it would type the
  wrong character. Without an answer within ``PING_TIMEOUT_S`` (a busy app, or a window without
  ``_NET_WM_PING`` in ``WM_PROTOCOLS``) the keycodes stay bound: a later burst typing the same
  character reuses them, a later call empties the ones whose answer has come in by then, and a
  burst short of free keycodes waits for those answers up to ``PING_TIMEOUT_S`` and otherwise
  fails before posting (``type_text`` then pastes). ``close()`` empties whatever is left.
* ``type_text``'s choice of route. It reads the app's focused element; when input was posted
  since the last answer (the click that focused a field, say), it first waits for an answer, so
  the focus it reads is the one that input produced, not the previously focused field.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import partial
from typing import Any, Final, NamedTuple

from Xlib import X, Xatom, display
from Xlib.error import XError
from Xlib.protocol import request

from deskhand.backends.base import ActionResult, Direction, Handle, MouseButton, PasteFormat, RunningApp, SelectionType
from deskhand.backends.linux._a11y_act import MENU_ACTIONS, PRESS_ACTIONS, ROW_ROLES, A11y, Ref
from deskhand.backends.linux._atspi import TEXT as TEXT_INTERFACE
from deskhand.backends.linux._atspi import Call, Deadline, Failed
from deskhand.backends.linux._grabs import GrabProbe, ReplayWaiter, ancestors
from deskhand.backends.linux._input import AppPing, PointerState, XInput
from deskhand.backends.linux._keyboard import Keymap, Lease, Stroke, char_keysym, name_keysym
from deskhand.backends.linux._mapping import ACTION_NAMES
from deskhand.core import keys as corekeys
from deskhand.core import pointer as corepointer
from deskhand.core import screenshot, textmatch
from deskhand.core import scroll as corescroll
from deskhand.core.axtree.text import match_secondary_action
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect

__all__ = ("LinuxActor",)

#: Server-side delay before each later press of a multi-click (``_pointer_events``).
MULTI_CLICK_DELAY_MS: Final = 1
#: Contract pause between repeated AX presses (6.12).
PRESS_REPEAT_S: Final = 0.05
#: How far up a row is searched for its list (6.3 tier 1) and down for a pressable child (tier 3).
ROW_ANCESTOR_HOPS: Final = 8
DESCENDANT_DEPTH: Final = 3
#: How long the actor waits for the app's answer to a ping (module docstring): after a burst with
#: temporary keycodes, before reusing their keycodes, and before ``type_text`` reads the focus.
PING_TIMEOUT_S: Final = 1.0
#: How long ``type_text`` re-reads the focus when, right after input, no element has it yet.
FOCUS_SETTLE_S: Final = 0.2
#: Windows whose ancestor chain (for the button-grab probe) is remembered.
CHAIN_CACHE: Final = 256
#: Read-back of a text selection: every 10 ms for up to 200 ms (sdk-contract.md 6.2).
SELECTION_READBACK_S: Final = 0.2
#: Pixels one wheel click scrolls in GTK and Qt for a scroll bar's step (reported, not assumed exact).
ROLE_FILLER: Final = 20
ROLE_SCROLL_BAR: Final = 48
ROLE_SCROLL_PANE: Final = 49
TEXT_ENTRY_ROLES: Final = frozenset({40, 52, 61, 73, 79, 82, 94})
STATE_EDITABLE: Final = 1 << 7
STATE_FOCUSED: Final = 1 << 12


class _Gate(NamedTuple):
    """What a passed gate proved: the key window, the action's root points, the pointer.

    ``grabbed``: another client (the window manager) grabs the probed button on the window or its
    frame, so a press will freeze the pointer until it is replayed (see ``_grabs``).
    """

    window: int
    points: list[Point]
    pointer: PointerState
    grabbed: bool = False


def _card32(reply: Any) -> int | None:
    """The first value of a 32-bit GetProperty reply; None when the property is absent."""
    if not reply.property_type:
        return None
    fmt, value = reply.value
    return int(value[0]) if fmt == 32 and len(value) else None


def _not_dispatched(code: str, message: str) -> NativeError:
    return NativeError(code, message, dispatched=False)


def _window_id(value: object) -> int:
    if value is None:
        raise _not_dispatched("stale_window", "The app has no mapped window; observe the app again.")
    if isinstance(value, int):
        return value
    for name in ("id", "window_id", "xid"):
        got = getattr(value, name, None)
        if isinstance(got, int):
            return got
    raise TypeError(f"not a window: {value!r}")


def _point(value: object) -> Point:
    if isinstance(value, Point):
        return value
    x, y = value  # type: ignore[misc]
    return Point(float(x), float(y))  # type: ignore[has-type]


class LinuxActor:
    """The action half of ``LinuxExecutor``; see the module docstring."""

    def __init__(self, executor: Any, *, display_name: str | None = None) -> None:
        self._x = executor
        xconn = getattr(executor, "x", None)
        self._d = display.Display(display_name or getattr(xconn, "name", None))
        self._root = self._d.screen().root
        self.input = XInput(self._d)
        self.keymap = Keymap(self._d)
        self._numbers: Iterator[int] = corepointer.event_numbers()
        self._lock = threading.RLock()
        self._clipboard: Any = None
        self._atoms: dict[str, int] = {}
        self._a11y: A11y | None = None
        self._chains: dict[int, tuple[int, ...]] = {}
        self._probed_mods = 0
        self._replay: ReplayWaiter | None = None
        self._registered_events: set[str] = set()
        self._ping: AppPing | None = None
        #: temporary keycode -> the ping sent after the last burst that used it (None: no ping)
        self._keys_unconfirmed: dict[int, int | None] = {}
        #: input was posted after the last answered ping
        self._input_unconfirmed = False
        self._closed = False

    def close(self) -> None:
        """Empty any temporary keycodes left and close the connections; a second call does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                if self.keymap.temporary:
                    self._reclaim(wait=True)
                    # the actor goes away: leave the server's keymap as it was, answered or not
                    self.keymap.restore(list(self.keymap.temporary))
            finally:  # a failed restore (the X server went away) still closes the rest
                if self._ping is not None:
                    self._ping.close()
                    self._ping = None
                if self._clipboard is not None:
                    self._clipboard.close()
                    self._clipboard = None
                if self._replay is not None:
                    self._replay.close()
                    self._replay = None
                self._d.close()

    # -- the executor seam --------------------------------------------------------------------
    @property
    def a11y(self) -> A11y:
        if self._a11y is None:
            conn = getattr(self._x, "atspi", None) or getattr(self._x, "_atspi", None)
            self._a11y = A11y(conn)
        return self._a11y

    def clipboard(self) -> Any:
        """The CLIPBOARD owner (created on first use; it keeps serving restored snapshots)."""
        if self._clipboard is None:
            from deskhand.backends.linux._clipboard import ClipboardOwner  # noqa: PLC0415

            self._clipboard = ClipboardOwner(self._d.get_display_name())
        return self._clipboard

    def _bind(self, app: RunningApp) -> int:
        """The app's key window, activated and verified; the window every gate compares with."""
        return self._gate(app).window

    def _gate(
        self,
        app: RunningApp,
        window: int | None = None,
        points: Sequence[tuple[float, float]] = (),
        *,
        button: int | None = None,
    ) -> _Gate:
        """Right before a burst: same process, same window (id and pid), and it is active.

        Returns the key window, ``points`` (screenshot pixels) in root coordinates checked against
        the screenshot's transform, and the pointer. The common case is one X round trip and no
        listing (see ``_probe``): ``_NET_ACTIVE_WINDOW`` is the window the screenshot was taken of
        and its ``_NET_WM_PID`` is the app's, so it is the key window and already active. Otherwise
        the executor's full lookup runs, and the key window is activated and its focus verified.
        With ``button``, the same round trip also probes for a window manager's grab of it.
        """
        identity = self._x.verify_identity(app)
        transform = self._x.transform(app)
        bound = transform.window_id if transform is not None else window
        probe = None
        if button is not None and bound is not None:
            probe = GrabProbe(self._d, self._chain(bound), button, self._probed_mods)
        active, bound_pid, here = self._probe(bound)
        if bound is not None and active == bound and bound_pid == app.pid:
            key = bound
        else:
            key = _window_id(self._x.key_window(app))
        if window is not None and key != window:
            raise _not_dispatched(
                "target_window_changed", "The target window changed before the action; observe the app again."
            )
        out: list[Point] = []
        for x, y in points:
            try:
                out.append(screenshot.to_global(transform, x, y, identity=identity, key_window_id=key))
            except NativeError as err:
                if err.details.get("drop_transform"):
                    self._x.to_global(app, x, y)  # the executor drops its cached transform and raises
                raise
        if active != key and self._x.activate(app).id != key:
            raise _not_dispatched(
                "target_window_changed", "The target window changed before the action; observe the app again."
            )
        grabbed = False
        if button is not None:
            if probe is None or key != bound or active != key:
                # slow path: the window changed or was just activated (managers that grab only
                # unfocused windows drop their grab on focus), so probe now, one more round trip
                probe = GrabProbe(self._d, self._chain(key), button, self._probed_mods)
                self._d.sync()
            mods = here.mask & 0xFF
            # A grab for other modifiers (NumLock on, say) is invisible to a probe without them:
            # assume one when the modifiers changed since the last probe, and probe with them next.
            grabbed = probe.grabbed or mods != self._probed_mods
            self._probed_mods = mods
        return _Gate(key, out, here, grabbed)

    def _chain(self, window: int) -> tuple[int, ...]:
        """``window`` and its frame(s) below the root, remembered per window."""
        chain = self._chains.get(window)
        if chain is None:
            try:
                chain = ancestors(self._d, window)
            except XError:
                return ()  # gone: the gate's pid check reports it
            if len(self._chains) >= CHAIN_CACHE:
                self._chains.clear()
            self._chains[window] = chain
        return chain

    def _probe(self, window: int | None) -> tuple[int, int | None, PointerState]:
        """``_NET_ACTIVE_WINDOW``, ``window``'s ``_NET_WM_PID`` (None when gone) and the pointer.

        The three requests are queued together and answered in one round trip.
        """
        d = self._d.display
        active_req = request.GetProperty(
            display=d, defer=True, delete=False, window=self._root, property=self._atom("_NET_ACTIVE_WINDOW"),
            type=X.AnyPropertyType, long_offset=0, long_length=1,
        )  # fmt: skip
        pid_req = None
        if window is not None:
            pid_req = request.GetProperty(
                display=d, defer=True, delete=False, window=window, property=self._atom("_NET_WM_PID"),
                type=Xatom.CARDINAL, long_offset=0, long_length=1,
            )  # fmt: skip
        pointer_req = request.QueryPointer(display=d, defer=True, window=self._root)
        active_req.reply()
        active = _card32(active_req) or 0
        pid: int | None = None
        if pid_req is not None:
            try:
                pid_req.reply()
            except XError:
                pid = None  # the window is gone
            else:
                pid = _card32(pid_req)
        pointer_req.reply()
        child = pointer_req.child
        here = PointerState(
            pointer_req.root_x, pointer_req.root_y, int(getattr(child, "id", child) or 0), pointer_req.mask
        )
        return active, pid, here

    def _atom(self, name: str) -> int:
        atom = self._atoms.get(name)
        if atom is None:
            atom = self._atoms[name] = int(self._d.intern_atom(name))
        return atom

    def _global(self, app: RunningApp, point: tuple[float, float]) -> Point:
        return _point(self._x.to_global(app, point[0], point[1]))

    def _ref(self, app: RunningApp, handle: Handle) -> tuple[Any, Ref]:
        element = self._x.element(app, handle)
        ref = element.ref
        if isinstance(ref, Ref):
            return element, ref
        bus = getattr(ref, "bus", None)
        path = getattr(ref, "path", None)
        if bus is None and isinstance(ref, tuple) and len(ref) >= 2:
            bus, path = ref[0], ref[1]
        if not isinstance(bus, str) or not isinstance(path, str):
            raise _not_dispatched("stale_element", "The element is stale. Observe the app again.")
        return element, Ref(bus, path)

    # -- posting ------------------------------------------------------------------------------
    def _post(self, steps: Sequence[Callable[[], None]]) -> None:
        """Queue a burst and flush it once; on any failure release whatever is held."""
        self._input_unconfirmed = True
        try:
            for step in steps:
                step()
            self.input.flush()
        except BaseException:
            self.input.release_all()
            raise

    def _pointer_events(
        self, events: Sequence[corepointer.PointerEvent], here: PointerState, *, grabbed_by_wm: int | None = None
    ) -> None:
        """Post a gesture; a first motion to its start only when the pointer (``here``) is elsewhere.

        ``grabbed_by_wm``: the window a manager's synchronous grab covers (``_Gate.grabbed``); a
        motion after a press then waits until the manager has replayed the press (``_grabs``).
        """
        steps: list[Callable[[], None]] = []
        start = events[0].point
        if (here.x, here.y) != (round(start.x), round(start.y)):
            steps.append(lambda: self.input.move(start.x, start.y))
        pressed = False
        for ev in events:
            button = corepointer.X_BUTTONS[ev.button]
            if ev.kind == "down":
                # A later press of a multi-click goes out one millisecond after the previous one,
                # held by the server (see ``XInput.button_down``): the events of a burst otherwise
                # share one timestamp, and Qt 6 does not count a press stamped with its
                # predecessor's millisecond as the next click (no double click at all).
                delay = MULTI_CLICK_DELAY_MS if ev.click_state > 1 else 0
                steps.append(partial(self.input.button_down, button, delay_ms=delay))
                pressed = True
            elif ev.kind == "up":
                steps.append(partial(self.input.button_up, button))
            else:
                if pressed and grabbed_by_wm is not None:
                    steps.append(partial(self._await_replay, grabbed_by_wm))
                pressed = False
                steps.append(partial(self.input.move, ev.point.x, ev.point.y))
        self._post(steps)

    def _await_replay(self, window: int) -> None:
        """After a grabbed press: flush it, then wait until the manager replayed it to the app."""
        self.input.flush()
        if self._replay is None:
            self._replay = ReplayWaiter(self._d.get_display_name())
        self._replay.wait(window)

    # -- pointer ------------------------------------------------------------------------------
    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        with self._lock:
            gate = self._gate(app, points=(start, end), button=corepointer.X_BUTTONS[button])
            a, b = gate.points
            events = corepointer.drag_events(a, b, button, self._numbers)
            self._pointer_events(events, gate.pointer, grabbed_by_wm=gate.window if gate.grabbed else None)
            return ActionResult("Dragged.", {"from": [a.x, a.y], "to": [b.x, b.y], "events": len(events)})

    def click(
        self,
        app: RunningApp,
        *,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
        button: MouseButton = "left",
        count: int = 1,
    ) -> ActionResult:
        corepointer.check_click_count(count)
        with self._lock:
            if element is not None:
                return self._click_element(app, element, button, count)
            if point is None:
                raise NativeError("bad_payload", "click needs an element or a point.", dispatched=False)
            gate = self._gate(app, points=(point,))
            return self._post_click(gate.points[0], gate.pointer, button, count, route="coordinates")

    def _synthetic_click(self, app: RunningApp, at: Point, button: MouseButton, count: int, route: str) -> ActionResult:
        gate = self._gate(app)
        return self._post_click(at, gate.pointer, button, count, route)

    def _post_click(self, at: Point, here: PointerState, button: MouseButton, count: int, route: str) -> ActionResult:
        events = corepointer.click_events(at, button, count, self._numbers)
        self._pointer_events(events, here)
        return ActionResult("Clicked.", {"route": route, "point": [at.x, at.y], "button": button, "count": count})

    def _click_element(self, app: RunningApp, handle: Handle, button: MouseButton, count: int) -> ActionResult:
        element, ref = self._ref(app, handle)
        frame: Rect | None = element.frame
        a11y = self.a11y
        if button == "right":
            if self._press_named(ref, MENU_ACTIONS, 1):
                return ActionResult("Opened the menu.", {"route": "action"})
        elif button == "left" and "org.a11y.atspi.EditableText" not in a11y.interfaces(ref):
            # Text entries get a real click: it focuses them and places the caret where clicked.
            tiers: tuple[Callable[[], str | None], ...] = (
                lambda: self._select_row(ref) if count == 1 else None,
                lambda: "action" if self._press_named(ref, PRESS_ACTIONS, count) else None,
                lambda: "descendant_action" if self._press_descendant(ref, count) else None,
                lambda: self._press_hit(ref, frame, count),
            )
            self._x.verify_identity(app)
            for tier in tiers:
                route = tier()
                if route is not None:
                    return ActionResult("Clicked.", {"route": route})
            del a11y
        if frame is None:
            raise NativeError("no_action", "The element has no action and no frame to click.", dispatched=False)
        return self._synthetic_click(app, frame.center, button, count, route="synthetic")

    def _select_row(self, ref: Ref) -> str | None:
        a11y = self.a11y
        node: Ref | None = ref
        for _ in range(ROW_ANCESTOR_HOPS + 1):
            if node is None:
                return None
            if a11y.role(node) in ROW_ROLES:
                parent = a11y.parent(node)
                if parent is not None and "org.a11y.atspi.Selection" in a11y.interfaces(parent):
                    index = a11y.index_in_parent(node)
                    if index >= 0 and a11y.select_child(parent, index):
                        return "select_row"
                return None
            node = a11y.parent(node)
        return None

    def _press_named(self, ref: Ref, names: Sequence[str], count: int) -> bool:
        actions = [a.lower() for a in self.a11y.actions(ref)]
        for name in names:
            if name in actions:
                index = actions.index(name)
                for i in range(count):
                    if i:
                        time.sleep(PRESS_REPEAT_S)
                    if self.a11y.do_action(ref, index):
                        continue
                    if i == 0:
                        return False  # nothing happened: the next tier may try
                    raise NativeError(  # some presses ran: never replay them in another tier
                        "ax_failed",
                        f"Press {i + 1} of {count} failed after {i} succeeded; observe the app before retrying.",
                        dispatched=None,
                    )
                return True
        return False

    def _press_descendant(self, ref: Ref, count: int) -> bool:
        level = self.a11y.children(ref)
        for _ in range(DESCENDANT_DEPTH):
            for child in level:
                if self._press_named(child, PRESS_ACTIONS, count):
                    return True
            level = [g for child in level for g in self.a11y.children(child)]
        return False

    def _press_hit(self, ref: Ref, frame: Rect | None, count: int) -> str | None:
        if frame is None:
            return None
        centre = frame.center
        hit = self.a11y.at_point(ref, round(centre.x), round(centre.y))
        if hit is not None and hit != ref and self._press_named(hit, PRESS_ACTIONS, count):
            return "hit_test"
        return None

    # -- scroll -------------------------------------------------------------------------------
    def scroll(
        self,
        app: RunningApp,
        *,
        direction: Direction,
        pages: float,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult:
        with self._lock:
            if element is not None:
                el, ref = self._ref(app, element)
                if el.frame is None:
                    raise NativeError("no_action", "The element has no frame to scroll.", dispatched=False)
                plan = corescroll.plan_indexed(direction, pages, el.frame)
                exact = self._scroll_by_value(app, ref, direction, plan.delta)
                if exact is not None:
                    return exact
            elif point is not None:
                at = self._global(app, point)
                frame = self._window_frame(app)
                plan = corescroll.plan_at_point(direction, pages, at, frame)
            else:
                raise NativeError("bad_payload", "scroll needs an element or a point.", dispatched=False)
            return self._scroll_wheel(app, plan, direction)

    def _window_frame(self, app: RunningApp) -> Rect:
        window = _window_id(self._x.key_window(app))
        win = self._d.create_resource_object("window", window)
        geo = win.get_geometry()
        origin = win.translate_coords(self._root, 0, 0)
        return Rect(-origin.x, -origin.y, geo.width, geo.height)

    def _scroll_by_value(
        self, app: RunningApp, ref: Ref, direction: Direction, delta: corescroll.ScrollDelta, *, hops: int = 3
    ) -> ActionResult | None:
        """Pixel-exact: move the scroll pane's bar by the delta through its AT-SPI Value.

        A GTK scroll pane's bar counts pixels. A container of another role with scroll bar children
        (Qt's scroll areas are fillers) may count rows or lines, so there the achieved delta is
        what a content child moved on screen, and the result is exact only when that equals the
        bar's change and the request.
        """
        a11y = self.a11y
        vertical = direction in ("up", "down")
        found = self._scroll_bar(ref, vertical, hops)
        if found is None:
            return None
        bar, witness = found
        value = a11y.value(bar)
        if value is None:
            return None
        current, low, high = value
        step = -(delta.dy if vertical else delta.dx)  # the contract's sign: negative is down/right
        target = min(max(current + step, low), high)
        axis = 1 if vertical else 0
        before = a11y.extents(witness) if witness is not None else None
        self._x.verify_identity(app)
        if not a11y.set_value(bar, target):
            raise NativeError("ax_failed", "The scroll bar did not accept the new value.", dispatched=None)
        after = a11y.value(bar)
        changed = round((after[0] if after else target) - current)
        moved = changed
        if witness is not None:
            now = a11y.extents(witness)
            moved = before[axis] - now[axis] if before is not None and now is not None else 0
        exact = moved == changed and (changed == round(step) or target != current + step)
        dx, dy = (0, -moved) if vertical else (-moved, 0)
        return ActionResult(
            "Scrolled."
            if exact
            else "Scrolled through the scroll bar; the achieved distance differs from the request.",
            {"route": "scroll_bar_value", "requested": [delta.dx, delta.dy], "achieved": [dx, dy], "exact": exact},
        )

    def _scroll_bar(self, ref: Ref, vertical: bool, hops: int = 3) -> tuple[Ref, Ref | None] | None:
        """The scroll bar along the axis of ``ref`` or its nearest scrolling ancestor (``ref`` and
        up to ``hops - 1`` ancestors), and a witness.

        A GTK scroll pane holds its bars as children. A Qt scroll area (a filler) holds three
        fillers: the viewport with the content, and one around each bar. The witness is ``None``
        for a scroll pane; otherwise it is a content element whose on-screen move measures the
        scroll (without one the bar is not used and the wheel scrolls).
        """
        a11y = self.a11y
        node: Ref | None = ref
        for _ in range(hops):
            if node is None:
                return None
            pane = a11y.role(node) == ROLE_SCROLL_PANE
            bars: list[Ref] = []
            witness: Ref | None = None
            for child in a11y.children(node):
                role = a11y.role(child)
                if role == ROLE_SCROLL_BAR:
                    bars.append(child)
                elif pane:
                    continue
                elif role != ROLE_FILLER:
                    if witness is None and a11y.extents(child) is not None:
                        witness = child
                else:
                    inner = a11y.children(child)
                    inner_bars = [g for g in inner if a11y.role(g) == ROLE_SCROLL_BAR]
                    bars.extend(inner_bars)
                    if witness is None and not inner_bars:
                        witness = next((g for g in inner if a11y.extents(g) is not None), None)
            for bar in bars:
                ext = a11y.extents(bar)
                if ext is not None and (ext[3] > ext[2]) == vertical:
                    if pane:
                        return bar, None
                    return (bar, witness) if witness is not None else None
            if pane or bars:
                return None
            node = a11y.parent(node)
        return None

    def _scroll_wheel(self, app: RunningApp, plan: corescroll.ScrollPlan, direction: Direction) -> ActionResult:
        """Wheel buttons 4-7 at the plan's point. X wheels have no pixel unit: the app decides the step."""
        amount = abs(plan.delta.dy if direction in ("up", "down") else plan.delta.dx)
        # One notch per 53 px, the step GTK3 uses for a 210-point page (pow(page, 2/3)); at least one.
        clicks = max(1, round(amount / 53))
        button = corescroll.X_WHEEL_BUTTONS[direction]
        self._gate(app)  # one gate right before the burst; nothing slow happens in between
        at = plan.point
        steps: list[Callable[[], None]] = []
        here = self.input.pointer()
        if (here.x, here.y) != (round(at.x), round(at.y)):
            steps.append(lambda: self.input.move(at.x, at.y))
        steps.append(lambda: self.input.wheel(button, clicks))
        self._post(steps)
        return ActionResult(
            "Scrolled with the wheel; the app decides the distance per notch.",
            {"route": "wheel", "requested": [plan.delta.dx, plan.delta.dy], "clicks": clicks, "exact": False},
        )

    # -- keyboard -----------------------------------------------------------------------------
    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        chords = corekeys.parse_keys(key)
        with self._lock:
            window = self._bind(app)
            plan: list[tuple[tuple[int, ...], int]] = []
            for chord in chords:
                mods, name = corekeys.to_x_keysyms(chord)
                value = corekeys.x_keysym_value(chord.key)
                keysym = value if value is not None else name_keysym(name)
                if not keysym:
                    raise _not_dispatched("unknown_key", f'Unknown key "{chord.key}".')
                plan.append((tuple(name_keysym(m) for m in mods), keysym))
            self._type_keysyms(app, window, plan)
            return ActionResult("Pressed.", {"chords": len(chords)})

    def _type_keysyms(self, app: RunningApp, window: int, plan: Sequence[tuple[tuple[int, ...], int]]) -> None:
        """Post chords as one burst per group of distinct keysyms that fit the temporary keycodes."""
        limit = max(1, len(self.keymap.spare) + len(self.keymap.temporary))
        groups: list[list[tuple[tuple[int, ...], int]]] = [[]]
        missing: set[int] = set()
        for mods, keysym in plan:
            if keysym not in missing and self.keymap.missing([keysym]):
                if len(missing) == limit:
                    groups.append([])
                    missing = set()
                missing.add(keysym)
            groups[-1].append((mods, keysym))
        for i, group in enumerate(groups):
            self._gate(app, window)
            keysyms = [k for _, k in group]
            try:
                lease = self._lease(keysyms)
            except NativeError as err:
                if i == 0:
                    raise
                msg = (
                    "Typed part of the text; the app did not confirm it processed it, so no key was free for the rest."
                )
                raise NativeError("text_edit_state_unknown", msg, dispatched=True) from err
            try:
                strokes = [self._stroke(mods, keysym, lease) for mods, keysym in group]
                self._post([step for s in strokes for step in self._stroke_steps(s)])
            finally:
                if lease.bound:
                    self._settle(window, lease)

    def _pinger(self) -> AppPing:
        if self._ping is None:
            self._ping = AppPing(self._d.get_display_name())
        return self._ping

    def _lease(self, keysyms: Sequence[int]) -> Lease:
        """Temporary keycodes for a burst: first empty those the app has confirmed (see the module
        docstring), and when too few keycodes are free, wait for the other confirmations."""
        if self.keymap.temporary:
            needed = set(self.keymap.missing(keysyms))
            self._reclaim(keep=needed)
            short = len(needed - set(self.keymap.temporary.values())) > len(self.keymap.spare)
            if short:
                self._reclaim(keep=needed, wait=True)
        return self.keymap.lease(keysyms)

    def _reclaim(self, *, keep: Collection[int] = (), wait: bool = False) -> None:
        """Empty the temporary keycodes whose last burst the app confirmed, except those bound to
        ``keep``. With ``wait``, wait up to ``PING_TIMEOUT_S`` for the missing answers."""
        ping = self._pinger()
        deadline = time.monotonic() + (PING_TIMEOUT_S if wait else 0.0)
        done: list[int] = []
        for keycode, token in list(self._keys_unconfirmed.items()):
            if self.keymap.temporary.get(keycode) in keep:
                continue
            if ping.answered(token, max(0.0, deadline - time.monotonic())):
                done.append(keycode)
        for keycode in done:
            self._keys_unconfirmed.pop(keycode)
        self._forget_unused_pings()
        self.keymap.restore(done)

    def _settle(self, window: int, lease: Lease) -> None:
        """After a burst with temporary keycodes: ping the app and empty them once it answered."""
        ping = self._pinger()
        token = ping.send(window)
        for keycode in lease.bound.values():
            self._keys_unconfirmed[keycode] = token
        if ping.answered(token, PING_TIMEOUT_S):
            self._input_unconfirmed = False
            done = [k for k, t in self._keys_unconfirmed.items() if t == token]
            for keycode in done:
                del self._keys_unconfirmed[keycode]
            self.keymap.restore(done)
        self._forget_unused_pings()

    def _forget_unused_pings(self) -> None:
        if self._ping is None:
            return
        live = set(self._keys_unconfirmed.values())
        for token in list(self._ping.outstanding):
            if token not in live:
                self._ping.forget(token)

    def _confirm_input(self, window: int) -> bool:
        """Wait until the app has processed the input posted so far (one ping; none when nothing
        was posted since the last answer). True when it answered now; without an answer in time
        the caller goes on."""
        if not self._input_unconfirmed:
            return False
        ping = self._pinger()
        token = ping.send(window)
        answered = ping.answered(token, PING_TIMEOUT_S)
        if answered:
            self._input_unconfirmed = False
        ping.forget(token)
        return answered

    def _focused_after_input(self, app: RunningApp, window: int) -> Ref | None:
        """The focused element once the app processed our earlier input (module docstring).

        GTK 3 marks the newly focused widget FOCUSED only from an idle callback after the event
        that moved the focus, and the widget that lost it is no longer FOCUSED, so right after a
        click none may be: then the read is repeated until one is, for up to ``FOCUS_SETTLE_S``.
        """
        just_confirmed = self._confirm_input(window)
        focused = self._focused(app)
        if focused is not None or not just_confirmed:
            return focused
        deadline = time.monotonic() + FOCUS_SETTLE_S
        while focused is None and time.monotonic() < deadline:
            focused = self._focused(app)
        return focused

    def _stroke(self, mods: tuple[int, ...], keysym: int, lease: Lease) -> Stroke:
        stroke = self.keymap.stroke(keysym, (), lease)
        held = list(stroke.modifiers)
        for m in mods:
            found = self.keymap.find(m)
            if found is None:
                raise _not_dispatched("unknown_key", "A modifier has no key on this keymap.")
            if found[0] not in held:
                held.insert(0, found[0])
        return Stroke(stroke.keycode, tuple(held))

    def _stroke_steps(self, s: Stroke) -> list[Callable[[], None]]:
        inp = self.input
        steps: list[Callable[[], None]] = [partial(inp.key_down, m) for m in s.modifiers]
        steps.append(partial(inp.key_down, s.keycode))
        steps.append(partial(inp.key_up, s.keycode))
        steps.extend(partial(inp.key_up, m) for m in reversed(s.modifiers))
        return steps

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        if not text:
            return ActionResult("Nothing to type.", {"route": "none"})
        with self._lock:
            window = self._bind(app)
            focused = self._focused_after_input(app, window)
            if focused is not None and self._replace_text(app, focused, text):
                return ActionResult("Typed.", {"route": "accessible_text"})
            plan = [((), char_keysym(ch)) for ch in text]
            try:
                self._type_keysyms(app, window, plan)
            except NativeError as err:
                if err.code != "unknown_key":
                    raise
                return self.paste(app, text, "text")
            return ActionResult("Typed.", {"route": "key_events"})

    def _focused(self, app: RunningApp) -> Ref | None:
        """The app's focused element (FOCUSED state), preferring one with the Text interface."""
        conn = self._x.atspi
        buses = conn.apps(Deadline(2.0))
        bus = next((b for b, pid in conn.pids(buses, Deadline(2.0)).items() if pid == app.pid), None)
        if bus is None:
            return None
        snap = conn.snapshot(bus, Deadline(2.0))
        focused = [n for n in snap.nodes.values() if n.states & STATE_FOCUSED]
        focused.sort(key=lambda n: TEXT_INTERFACE not in n.interfaces)
        return Ref(bus, focused[0].path) if focused else None

    def _replace_text(self, app: RunningApp, ref: Ref, text: str) -> bool:
        """Tier 1: replace the selection (or insert at the caret) through EditableText."""
        a11y = self.a11y
        if "org.a11y.atspi.EditableText" not in a11y.interfaces(ref):
            return False
        if not a11y.states(ref) & STATE_EDITABLE:
            return False
        selection = a11y.selection(ref)
        caret = a11y.caret(ref)
        if caret is None:
            return False
        self._x.verify_identity(app)
        if selection is not None and selection[0] != selection[1]:
            start, end = sorted(selection)
            if not a11y.delete_text(ref, start, end):
                return False
        else:
            start = caret
        if not a11y.insert_text(ref, start, text):
            raise NativeError("text_edit_state_unknown", "The text insert failed after editing began.", dispatched=None)
        a11y.set_caret(ref, start + a11y.length(ref, text))
        return True

    # -- paste --------------------------------------------------------------------------------
    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        from deskhand.backends.linux.paste import paste_into  # noqa: PLC0415

        with self._lock:
            window = self._bind(app)
            return paste_into(self, app, window, text, fmt)

    def post_chord(self, app: RunningApp, window: int, key: str) -> None:
        """One key chord burst after the gate (the paste transaction's ctrl+v)."""
        chord = corekeys.parse_keys(key)[0]
        mods, name = corekeys.to_x_keysyms(chord)
        self._type_keysyms(app, window, [(tuple(name_keysym(m) for m in mods), name_keysym(name))])

    def focused_text(self, app: RunningApp) -> Ref | None:
        return self._focused(app)

    @property
    def a11y_address(self) -> str:
        """The AT-SPI bus address (for a second connection, e.g. the paste's event counter)."""
        return str(self._x.atspi.address)

    def register_events(self, names: Iterable[str]) -> None:
        """Register AT-SPI event names with the registry, once each (atk-bridge emits only those)."""
        for name in names:
            if name in self._registered_events:
                continue
            reply = self._x.atspi.call(
                Call("org.a11y.atspi.Registry", "/org/a11y/atspi/registry", "org.a11y.atspi.Registry",
                     "RegisterEvent", "sass", (name, [], ""))
            )  # fmt: skip
            if not isinstance(reply, Failed):
                self._registered_events.add(name)

    # -- text, values, actions ----------------------------------------------------------------
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
        if not text:
            raise NativeError("bad_payload", textmatch.EMPTY_TEXT_MESSAGE, dispatched=False)
        with self._lock:
            _el, ref = self._ref(app, element)
            a11y = self.a11y
            source = a11y.text(ref)
            if source is None:
                raise _not_dispatched("not_selectable", "The element has no readable text value.")
            found = textmatch.select_range(source, text, prefix=prefix or "", suffix=suffix or "", mode=selection_type)
            if a11y.utf16(ref):
                start, end = found.location, found.location + found.length
            else:
                start, end = textmatch.to_code_points(source, found)
            self._x.verify_identity(app)
            if a11y.text(ref) != source:
                raise _not_dispatched("stale_element", "Text changed before selection; observe again.")
            if not a11y.set_selection(ref, start, end):
                a11y.grab_focus(ref)
                if not a11y.set_selection(ref, start, end):
                    raise NativeError("ax_failed", "The app did not accept the selection.", dispatched=None)
            verified = self._read_back_selection(ref, start, end)
            return ActionResult(
                "Text selection confirmed." if verified else "Text selection sent; observe the app to confirm.",
                {"location": found.location, "length": found.length, "verified": verified, "path": "atspi"},
            )

    def _read_back_selection(self, ref: Ref, start: int, end: int) -> bool:
        deadline = time.monotonic() + SELECTION_READBACK_S
        while True:
            got = self.a11y.selection(ref)
            caret = self.a11y.caret(ref)
            if (start == end and caret == start and (got is None or got[0] == got[1])) or got == (start, end):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        with self._lock:
            _el, ref = self._ref(app, element)
            a11y = self.a11y
            interfaces = a11y.interfaces(ref)
            if "org.a11y.atspi.EditableText" in interfaces and a11y.states(ref) & STATE_EDITABLE:
                before = a11y.text(ref)
                self._x.verify_identity(app)
                if not a11y.set_text_contents(ref, value):
                    raise NativeError("ax_failed", "The app refused the new text.", dispatched=None)
                return ActionResult("Value set.", {"before": before, "after": a11y.text(ref)})
            if "org.a11y.atspi.Value" in interfaces:
                try:
                    number = float(value)
                except ValueError:
                    raise _not_dispatched("not_settable", "The element takes a number.") from None
                old = a11y.value(ref)
                self._x.verify_identity(app)
                if not a11y.set_value(ref, number):
                    raise NativeError("ax_failed", "The app refused the new value.", dispatched=None)
                new = a11y.value(ref)
                return ActionResult("Value set.", {"before": old[0] if old else None, "after": new[0] if new else None})
            raise _not_dispatched("not_settable", "The element's value cannot be set.")

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        """Perform an element's action by the name the state text shows or by a raw name (6.8).

        The raw names on Linux are the element's AT-SPI action names ("Toggle", "Expand or
        contract"), their contract names (``_mapping.ACTION_NAMES``: ``AXPress``,
        ``AXExpandOrContract``, ``AXIncrement``, ...) and the page-scroll actions the element was
        observed with (``_mapping`` gives them to scroll areas). The core's matcher picks one:
        exact raw names first, then their matcher forms, case-insensitively. Nothing is sent for a
        name that matches none (``invalid_action``). A page scroll moves the element's own scroll
        bar by a page (``_page_scroll``); any other action is AT-SPI ``DoAction``. A failure after
        the identity check is ``ax_failed`` and is not replayed.
        """
        with self._lock:
            el, ref = self._ref(app, element)
            native = self.a11y.actions(ref)
            choices: list[tuple[str, int | str]] = [(name, i) for i, name in enumerate(native)]
            for i, name in enumerate(native):
                mapped = ACTION_NAMES.get(name.strip().lower())
                if mapped is not None:
                    choices.append((mapped, i))
            choices += [(name, name) for name in el.actions if name in corescroll.PAGE_SCROLL_ACTIONS]
            chosen = match_secondary_action(action, [name for name, _ in choices])
            if chosen is None:
                raise _not_dispatched("invalid_action", f"{action} is not a valid secondary action for {element}")
            raw, target = choices[chosen]
            if isinstance(target, str):
                result = self._page_scroll(app, ref, el.frame, target)
            else:
                self._x.verify_identity(app)
                if not self.a11y.do_action(ref, target):
                    raise NativeError("ax_failed", f"The app did not perform {raw}.", dispatched=None)
                result = ActionResult("Performed.", {"action": raw})
            self._x.mark_mutation(app)
            return result

    def _page_scroll(self, app: RunningApp, ref: Ref, frame: Rect | None, raw: str) -> ActionResult:
        """A page-scroll action: the element's own scroll bar along the axis moves by one page.

        macOS presses the bar's page button (``PAGE_SCROLL_ACTIONS``); AT-SPI bars have no page
        buttons, so the bar's Value moves by what a page button moves it: the scroll area's
        visible extent along the axis, read from its viewport (GTK's adjustment page size and
        Qt's page step equal it; neither is exposed, and ``Value.MinimumIncrement`` is a step,
        not a page). The result reports the requested and achieved deltas as ``scroll`` does.
        Only when the element has no such bar (or no viewport) now does it fall back to scrolling
        the element itself by one page with the wheel at its centre.
        """
        direction = corescroll.PAGE_SCROLL_ACTIONS[raw].direction
        vertical = direction in ("up", "down")
        extent = self._visible_extent(ref, vertical)
        if extent is not None:
            delta = corescroll.scroll_delta(direction, 1.0, extent)
            done = self._scroll_by_value(app, ref, direction, delta, hops=1)
            if done is not None:
                return ActionResult(done.text, {"action": raw, **done.structured})
        if frame is None:
            raise _not_dispatched("no_action", "The element has no scroll bar and no frame to scroll.")
        done = self._scroll_wheel(app, corescroll.plan_indexed(direction, 1.0, frame), direction)
        return ActionResult(done.text, {"action": raw, **done.structured})

    def _visible_extent(self, ref: Ref, vertical: bool) -> int | None:
        """The height (or width) of a scroll area's viewport: its first child with a frame that is
        neither a scroll bar nor a filler around one (Qt's bar containers)."""
        a11y = self.a11y
        for child in a11y.children(ref):
            role = a11y.role(child)
            if role == ROLE_SCROLL_BAR:
                continue
            if role == ROLE_FILLER and any(a11y.role(g) == ROLE_SCROLL_BAR for g in a11y.children(child)):
                continue
            ext = a11y.extents(child)
            if ext is not None and ext[2] > 0 and ext[3] > 0:
                return ext[3] if vertical else ext[2]
        return None
