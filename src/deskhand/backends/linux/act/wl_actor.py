"""Acting on a Wayland app (through the compositor seam): the Executor's action calls on one session.

``WaylandActor`` is created by ``WaylandExecutor`` and receives its action calls with the same
signatures, written once in ``act.base.Actor``. Whatever speaks only AT-SPI is the X11 actor's
own code, run on ``act.wl_session``: scroll (``act.scroll``: the scroll bar's Value, else the
wheel measured on the content by ``act.scroll_witness``), text selection, values and secondary
actions (``act.values``), the paste transaction (``act.paste`` with ``wayland._clipserver`` as
its clipboard). What is Wayland's is here: clicks and drags through the compositor's pointer (the
contract's 5-event drag, ``core.pointer``), keys and text through its keyboard (on wlroots
with deskhand's keymap) (``WaylandKeys``). Between the actions of a cell the barrier holds as on X11
(``act.barrier`` on this session: its round trip is ``WaylandSession.round_trip``); keys typed as
text go at once, so into a single-line entry of a toolkit that completes entries the next action
waits out the completion's timer (``core.barrier``'s ``typed_entry``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from functools import partial
from typing import Final

from deskhand.backends.base import ActionResult, Handle, MouseButton, PasteFormat, RunningApp
from deskhand.backends.linux.act import outcomes
from deskhand.backends.linux.act.barrier import Barrier
from deskhand.backends.linux.act.base import Actor
from deskhand.backends.linux.act.clicks import HOVER_PING_S, AtspiElement, clicked_result, frame_now
from deskhand.backends.linux.act.focus import Focus
from deskhand.backends.linux.act.keys import FOCUS_SETTLE_S, READBACK_S, field_of
from deskhand.backends.linux.act.paste import paste_into
from deskhand.backends.linux.act.scroll import Scrolling
from deskhand.backends.linux.act.values import Values
from deskhand.backends.linux.act.wl_session import WaylandSession, WlObserved
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.enums import Role, role_set
from deskhand.backends.linux.wayland.compositor import Compositor, SessionClipboard
from deskhand.core import barrier, clicktiers, effects
from deskhand.core import deadline as call_deadline
from deskhand.core import pointer as corepointer
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect
from deskhand.core.keys import parse_keys
from deskhand.core.paste import Clipboard

__all__ = ("WaylandActor", "WaylandKeys")

#: How long a paced key waits for the app's answer for the one before (then the next goes anyway).
PACE_S: Final = 1.0
#: How often a paced key's field is read while it does not show the key yet.
_POLL_S: Final = 0.002
#: GTK 3 ignores a button release on a menu within 500 ms of the click that opened it
#: (``MENU_SHELL_TIMEOUT``, for press-drag-release): a click on a menu's item waits that out. Measured
#: on sway with LibreOffice's Format > Character...: lost 3 of 3 right after the menu showed, opened
#: the dialog 3 of 3 a second later.
MENU_SHELL_TIMEOUT_S: Final = 0.55
_MENU_ROLES: Final = role_set(
    Role.CHECK_MENU_ITEM, Role.MENU, Role.MENU_ITEM, Role.RADIO_MENU_ITEM, Role.TEAROFF_MENU_ITEM
)


class WaylandKeys:
    """Keys, text and paste on the session's virtual keyboard; also the paste's ``PasteSeam``."""

    def __init__(self, session: WaylandSession) -> None:
        self._s = session
        self.focus = Focus(session)
        self._clipboard: SessionClipboard | None = None

    def close(self) -> None:
        try:
            if self._clipboard is not None:
                self._clipboard.close()
                self._clipboard = None
        finally:
            self.focus.close()

    # -- the keyboard -------------------------------------------------------------------------
    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        """Key events with deskhand's keymap, then the focused text read back as on X11
        (``Focus.read_back``): confirmed when it shows the text. No ping tells when the app has
        read the keys, so a focused text is read for up to ``READBACK_S`` and an unchanged one is
        ``unverifiable``, never ``suspected_noop``."""
        if not text:
            return ActionResult({"route": "none"}, effects.judge("none", []))
        self._s.bind_keyboard(app)
        self.focus.open()  # before the keys: the focus change they may cause is not missed
        bus = self.focus.bus(app)
        if bus is not None:  # a browser's shortcut (ctrl+l) moves the focus out of the page late
            self.focus.settle(bus)
        focused = self._settled_focus(bus)
        before = self.focus.text(focused)
        self._s.bind_keyboard(app)  # proven again right before the burst (the reads took a while)
        d = self._s.devices
        # into a single-line field one key at a time, each once the app has handled the one before
        # (as on X11): KDE's location bar dropped 4 of 74 keys typed at once while it completed.
        # A text the compositor hands over whole (GNOME's input-method commit) goes whole: split,
        # a commit overtook the keys before it that GTK still held in its event queue ("Gürße")
        keyed = d.keyed(text)
        field = field_of(self._s.a11y, focused, before)
        if keyed and barrier.keys_per_burst(field, len(text), len(text)) == 1:
            self._paced(app, text, focused)
        else:
            self._s.post([partial(d.type_text, text)])
        wait = READBACK_S if before is not None else 0.0
        got = self.focus.read_back(bus, focused, before, text, wait_s=wait, cap_s=READBACK_S)
        route = "key_events" if keyed else "input_method"  # GNOME: committed whole by the shell
        return ActionResult({"route": route, "length": len(text)}, outcomes.typed(got, [], processed=False))

    def _paced(self, app: RunningApp, text: str, ref: Ref | None) -> None:
        """Type ``text`` one key at a time into ``ref``: each key once the field's text, caret or
        selection changed after the one before (a key that agrees with an inline completion leaves
        the text as it was: Dolphin's location bar moves the caret, GTK's entry completion in
        Thunar's the start of the selected completion; read as text and caret alone, each such key
        waited out ``PACE_S``: Thunar's tasks on sway took 16 to 51 s instead of 1 to 2), for up
        to ``PACE_S`` once in a text (a key lost, or one the field does not show, holds up the next
        no longer, and the keys after it wait for the app's answer alone), and the app's answer to
        that has come back through the compositor (``WaylandSession.written_out``).

        The round trip alone (``WaylandSession.round_trip``) does not say the app has handled a key:
        Qt reads its Wayland socket on a thread of its own and may answer the bus first (Kate read
        two keys in one pass). And what the app does on a key can move the keyboard: KDE's URL
        completion is an xdg_popup with a grab, which KWin hands the keys while it shows, and a key
        KWin hands it after Kate destroyed it, before KWin read that, is dropped by Qt (its focus
        surface is gone). Measured on KWin, Kate's Save File name typed after earlier saves into the
        folder: the key after the one that closed the completion was lost in 5 of 10 runs paced by
        the round trip; 2 of 70 paced this way (a completion the app closes on its own, from its
        listing thread, between two keys is not waited for). GNOME: 2 of about 60."""
        d, a11y = self._s.devices, self._s.a11y
        kinds = a11y.interfaces(ref) if ref is not None else None

        def field() -> tuple[str | None, int | None, tuple[int, int] | None]:
            read = self.focus.text(ref, kinds)
            if ref is None or read is None:
                return read, None, None
            return read, a11y.caret(ref), a11y.selection(ref)

        earlier, watched = field(), True
        for ch in text:
            self._s.post([partial(d.type_text, ch)])
            end = time.monotonic() + call_deadline.bound(PACE_S)
            after = field()
            while watched and after[0] is not None and after == earlier and time.monotonic() < end:
                time.sleep(_POLL_S)  # polling the field, with the deadline above
                after = field()
            # a field that showed one key not at all is not waited on again in this text
            watched = watched and after != earlier
            earlier = after
            self._s.written_out(app, time.monotonic() + call_deadline.bound(PACE_S))

    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        chords = parse_keys(key)  # bad keys are refused before any gate
        self._s.bind_keyboard(app)
        self.focus.open()  # before the key: the focus change it may cause must not be missed
        self.focus.after_click(app)  # a click's focus lands first (a browser's page applies it late)
        d = self._s.devices
        self._s.post([partial(d.chord, c.ordered_modifiers(), c.key) for c in chords])
        # as on X11: typing next waits for a browser's shortcut to move the focus (``Focus.settle``)
        self.focus.key_posted([(c.ordered_modifiers(), c.key.lower()) for c in chords])
        return ActionResult()

    def _settled_focus(self, bus: str | None) -> Ref | None:
        """The focused element; right after the window took the focus GTK marks none FOCUSED
        until its idle callback runs, so an empty answer is read again for ``FOCUS_SETTLE_S``."""
        if bus is None:
            return None
        focused = self.focus.in_active_window(bus)
        deadline = time.monotonic() + call_deadline.bound(FOCUS_SETTLE_S)
        while focused is None and time.monotonic() < deadline:
            focused = self.focus.in_active_window(bus)
        return focused

    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        window = self._s.bind_keyboard(app)
        return paste_into(self, app, window, text, fmt)

    # -- the paste seam -----------------------------------------------------------------------
    @property
    def a11y(self) -> A11y:
        return self._s.a11y

    @property
    def a11y_address(self) -> str:
        return self._s.a11y_address

    def register_events(self, names: Iterable[str]) -> None:
        self._s.register_events(names)

    def focused_text(self, app: RunningApp) -> Ref | None:
        bus = self.focus.bus(app)
        return self.focus.now(bus) if bus is not None else None

    def focused_after_input(self, app: RunningApp, window: int) -> Ref | None:
        """The paste's target once the focus a click or a key moved has settled (``Focus.settle``,
        as on X11); the compositor handled every event sent (each burst ends in a roundtrip)."""
        del window
        bus = self.focus.bus(app)
        if bus is None:
            return None
        self.focus.open()
        self.focus.settle(bus)
        return self.focus.landed(bus)

    def paste_clipboard(self) -> Clipboard:
        if self._clipboard is None:
            self._clipboard = self._s.compositor.clipboard()
        return self._clipboard

    @property
    def clipboard_server(self) -> SessionClipboard | None:
        """The clipboard server if a paste made one (``paste_clipboard`` does)."""
        return self._clipboard

    def post_chord(self, app: RunningApp, window: int, key: str) -> None:
        """The paste's ctrl+v, after the keyboard gate proved ``window`` holds the focus."""
        if self._s.bind_keyboard(app) != window:
            raise NativeError("target_window_changed", "The key window changed before the paste.", dispatched=False)
        chord = parse_keys(key)[0]
        d = self._s.devices
        self._s.post([lambda: d.chord(chord.ordered_modifiers(), chord.key)])


class _Bursts:
    """The synthetic click's two bursts (``core.clicktiers.PointerPrimitives``), each gated."""

    def __init__(self, actor: WaylandActor, app: RunningApp) -> None:
        self._actor = actor
        self._app = app

    def hover(self, at: Point) -> None:
        """A motion one pixel beside the point (inside the window), then to it: a pointer that
        comes onto a surface gives its client an enter and no motion, and LibreOffice places a new
        window's cells right only once a motion reaches it (measured on sway: Calc's cells stayed
        26 px too high for 3 s after a lone hover, and moved within 20 ms of a second motion)."""
        s = self._actor.session
        view = s.bind_pointer(self._app, at, self._actor.clicked_target(), window=self._actor.clicked_window())
        d = s.devices
        vx, _vy, vw, _vh = view.rect
        beside = at.x + 1 if at.x + 1 < vx + vw else at.x - 1
        s.post([lambda: d.move(beside, at.y), lambda: d.move(at.x, at.y)])

    def click(self, at: Point, button: MouseButton, count: int) -> None:
        # the element clicked goes along: a menu's item is on a popup, outside the window's rect
        actor = self._actor
        actor._click(self._app, at, button, count, actor.clicked_target(), window=actor.clicked_window())


class WaylandActor(Actor):
    """The action half of ``WaylandExecutor``; see the module docstring."""

    def __init__(self, executor: WlObserved, compositor: Compositor) -> None:
        self.session = WaylandSession(executor, compositor)
        self._keys = WaylandKeys(self.session)
        #: keys typed as text go at once (``core.barrier``'s ``typed_entry``)
        self.barrier = Barrier(self.session, self._keys.focus, typed="typed_entry")
        self.scrolling = Scrolling(self.session)
        self.values = Values(self.session, self.scrolling, self._keys)
        self.numbers = corepointer.event_numbers()
        self._clicked_ref: Ref | None = None
        self._clicked_window: int | None = None
        #: when the last click was sent (monotonic), for ``MENU_SHELL_TIMEOUT_S``
        self._clicked_at = 0.0

    @property
    def keys(self) -> WaylandKeys:
        return self._keys

    def close(self) -> None:
        with self.session.lock:
            self._keys.close()

    @property
    def acting(self) -> WaylandSession:
        return self.session

    # -- the display server's parts (``act.base.Actor``) ----------------------------------
    def click_element(self, app: RunningApp, element: Handle, button: MouseButton, count: int) -> ActionResult:
        """The tiers of X11's element click (``core.clicktiers``, on ``act.clicks.AtspiElement``):
        the element's accessible action where it has one, else a pointer click at its frame's
        centre (an open GTK expander's centre is its child's, not its header's), in the window
        the element was observed in."""
        found, ref = self.session.ref(app, element)
        # observed without one (a page still laid out): read at click time, as on X11
        frame = found.frame if found.frame is not None else frame_now(self.session.a11y, ref)
        wait = self._clicked_at + MENU_SHELL_TIMEOUT_S - time.monotonic()
        if wait > 0 and self.session.a11y.role(ref) in _MENU_ROLES:
            time.sleep(call_deadline.bound(wait))  # the toolkit's timer (above), bounded by the call's deadline
        self._clicked_ref, self._clicked_window = ref, self.session.window_of(app, found)
        primitives = AtspiElement(self.session, app, lambda: self.barrier.handled(app, "a11y_action"))
        bursts = _Bursts(self, app)
        try:
            reframe = partial(self._frame_after_hover, app, ref)
            done = clicktiers.click_element(primitives, bursts, ref, frame, button=button, count=count, reframe=reframe)
            if button == "left" and count == 1:
                done = clicktiers.ensure_focus(primitives, bursts, ref, frame, done)
        finally:
            self._clicked_window = None
        if done.route == "synthetic" and done.point is not None:
            at = done.point
            return clicked_result(done, {"x": at.x, "y": at.y, "button": button, "count": count})
        return clicked_result(done, {})

    def _frame_after_hover(self, app: RunningApp, ref: Ref) -> Rect | None:
        """The element's frame once the app has handled the pre-click hover (the barrier's round
        trip through the app), or None when it does not answer in ``HOVER_PING_S``: LibreOffice
        places a new window's cells too high until a pointer event reaches it, on sway as on X11
        (``act.clicks``; Calc's first click on C2 selected column C's header)."""
        if not self.session.round_trip(app, 0, time.monotonic() + call_deadline.bound(HOVER_PING_S)):
            return None
        ext = self.session.a11y.extents(ref)
        return Rect(float(ext[0]), float(ext[1]), float(ext[2]), float(ext[3])) if ext is not None else None

    def clicked_target(self) -> Ref | None:
        return self._clicked_ref

    def _clicked(self, result: ActionResult, *, target: Ref | None = None) -> ActionResult:
        """The next key waits for the focus this click may move (``act.focus.Focus.input_posted``),
        as on X11: Chromium applies a click on a field from its page's process, after the click."""
        self._keys.focus.input_posted(target=target)
        return result

    def clicked_window(self) -> int | None:
        """The window of the element being clicked by handle (None outside ``click_element``)."""
        return self._clicked_window

    def click_point(self, app: RunningApp, at: tuple[float, float], button: MouseButton, count: int) -> ActionResult:
        return self._click(app, self.session.to_global(app, at), button, count)

    def _click(
        self,
        app: RunningApp,
        at: Point,
        button: MouseButton,
        count: int,
        element: Ref | None = None,
        *,
        window: int | None = None,
    ) -> ActionResult:
        s = self.session
        code = corepointer.X_BUTTONS[button]
        s.bind_pointer(app, at, element, window=window)
        d = s.devices
        s.post([lambda: d.click(at.x, at.y, code, count)])
        self._clicked_at = time.monotonic()
        return ActionResult(structured={"x": at.x, "y": at.y})

    def drag_points(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], button: MouseButton
    ) -> ActionResult:
        """The contract's five events (6.4): down at the origin, dragged at the origin, the
        midpoint and the destination, up there; bound at the origin, the destination unclamped."""
        s = self.session
        code = corepointer.X_BUTTONS[button]
        a, b = s.to_global(app, start), s.to_global(app, end)
        events = corepointer.drag_events(a, b, button, self.numbers)
        s.bind_pointer(app, a)
        d = s.devices

        def send(ev: corepointer.PointerEvent) -> None:
            if ev.kind == "down":
                d.move(ev.point.x, ev.point.y)
                d.button(code, True)
            elif ev.kind == "up":
                d.button(code, False)  # at the destination: the last motion's point
            else:
                d.move(ev.point.x, ev.point.y)

        s.post([partial(send, ev) for ev in events])
        structured = {"from": [a.x, a.y], "to": [b.x, b.y], "events": len(events)}
        return ActionResult(structured, effects.judge("synthetic_events", []))
