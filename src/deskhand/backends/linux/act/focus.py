"""Where the keyboard focus is now, as the apps announce it: AT-SPI ``object:state-changed:focused``.

Typing needs the element that will receive the next key (a tree read costs a full observation,
so one made while watching stands in for a focus event, proved FOCUSED later with one call).

An app's FOCUSED states can lag behind its real focus: a browser hands a key to the page's process
first and handles its own shortcut (ctrl+l) only when the page gives the key back unhandled, tens
of milliseconds after the browser answered the ping that says it received the key (``act.keys``).
Until then the page keeps its FOCUSED state, and keys typed in that window go to the page. The
focus event the browser emits when its shortcut moves the focus is the first sign that it has.

``act.focuswatch.FocusWatch`` reads those events on a bus connection of its own.

``Focus`` is what the typist and the paste ask: the app's bus name, the element focused now (the
one that gained the focus last while it still reads FOCUSED, else the FOCUSED states of a tree
read), and, in a browser (``ASYNC_KEY_TOOLKITS``), a wait until its focus has settled after a key:
``FOCUS_AFTER_GAIN_S`` once an element gained it, else ``FOCUS_QUIET_S``, at most ``FOCUS_CAP_S``.
After a shortcut that moves the focus out of the page (``FOCUS_SHORTCUTS``: ctrl+l, F6, ...) while
it is in the page, the move is waited for up to ``FOCUS_SHORTCUT_CAP_S``: keys typed before it go
into the page (Firefox then split a URL between a page field and its address bar). After a click,
the quiet is ``FOCUS_AFTER_INPUT_S``, and after one on a text field, in any app, until that field
is FOCUSED.

For the input barrier (``act.barrier``), ``refocused`` says whether the app's focus has landed
after keys: no element of it lost the focus since then, or one gained it after, as far as the
events the app sent before it answered a D-Bus round trip show (``FocusWatch.sync``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.act.focuswatch import FOCUS_EVENT, FocusWatch, Gained
from deskhand.backends.linux.atspi.connection import EDITABLE_TEXT, ROOT_PATH, TEXT, Deadline
from deskhand.backends.linux.atspi.element import Ref
from deskhand.backends.linux.atspi.enums import Role, State
from deskhand.backends.linux.atspi.roles import FOCUSED
from deskhand.core import deadline as call_deadline
from deskhand.core import typedtext

if TYPE_CHECKING:
    from deskhand.backends.linux.act.seam import ActSession

__all__ = ("FOCUS_EVENT", "Focus", "FocusWatch", "Gained", "Readback")

#: Toolkits (AT-SPI ``ToolkitName``, lowercased) that run their own shortcuts after the page did.
ASYNC_KEY_TOOLKITS: Final = ("chromium", "gecko")
#: After a key in such an app, typing waits for this much quiet in its focus events ...
FOCUS_QUIET_S: Final = 0.3
#: ... or this much once an element gained the focus after the key (the move came) ...
FOCUS_AFTER_GAIN_S: Final = 0.05
#: ... but never longer than this after the key.
FOCUS_CAP_S: Final = 1.0
#: After other input (a click into a page), the quiet waited for when no focus moved.
FOCUS_AFTER_INPUT_S: Final = 0.2
#: After a click on a text field, its focus is waited for up to this (a loaded page applies it late).
FOCUS_FIELD_CAP_S: Final = 3.0
#: Browser shortcuts that move the focus into the browser's own UI (address bar, find bar, a new
#: tab): after one, typing waits for that move up to ``FOCUS_SHORTCUT_CAP_S`` rather than
#: ``FOCUS_QUIET_S`` (a loaded machine can take longer than that to hand the key back).
FOCUS_SHORTCUTS: Final = frozenset(
    {(("ctrl",), "l"), (("alt",), "d"), ((), "f6"), (("ctrl",), "k"), (("ctrl",), "e"), (("ctrl",), "f"),
     (("ctrl",), "t"), (("ctrl",), "n"), (("ctrl",), "g")}
)  # fmt: skip
#: Those that open a tab or window: typing waits for the focus to move there, even into its page
#: (Chromium's offline new tab page takes it; waited for out of a page, typing waited the cap).
NEW_PAGE_SHORTCUTS: Final = frozenset({(("ctrl",), "t"), (("ctrl",), "n")})
FOCUS_SHORTCUT_CAP_S: Final = 6.0
#: How far up from the focused element a web document is looked for (is the focus in the page?).
PAGE_HOPS: Final = 64
#: Typing's read-back reads on at least this long while only part of the text shows.
PARTIAL_WAIT_S: Final = 1.0
#: At most this many children of a focused element without text are looked at for its text.
TEXT_CHILDREN: Final = 8


class Readback(NamedTuple):
    """Typing's read-back: what shows the text (None: nothing yet), whether a focused text was
    readable, the texts read (focused now, focused before), what shows only part of it, and then,
    when it could be counted, how many characters of how many arrived (``core.typedtext.arrived``)."""

    found: str | None
    readable: bool
    texts: tuple[str | None, str | None]
    partial: str | None = None
    arrived: tuple[int, int] | None = None


class Focus:
    """Where an app's keyboard focus is, for the typist and the paste (module docstring)."""

    def __init__(self, session: ActSession) -> None:
        self._s = session
        self._watch = FocusWatch(session.a11y_address)
        #: when ``press_key`` last posted a key (typing waits for the focus it may move), and
        #: whether it was one of ``FOCUS_SHORTCUTS``
        self._key_at: float | None = None
        self._shortcut = False
        self._new_page = False
        self._input_at: float | None = None  # when a click or an action was last sent, and on what
        self._target: Ref | None = None
        #: the text field the last click went to, once ``settle`` saw it FOCUSED (``landed``)
        self._landed: Ref | None = None

    def open(self) -> None:
        """Connect (once) and read the events waiting: those are older than a key posted next."""
        self._watch.open()
        self._watch.last_event("")

    def close(self) -> None:
        self._watch.close()

    def key_posted(self, chords: Sequence[tuple[tuple[str, ...], str]]) -> None:
        """``press_key`` posted ``chords`` (modifiers in order, key name lowercased)."""
        self._key_at = time.monotonic()
        self._shortcut = any(chord in FOCUS_SHORTCUTS for chord in chords)
        self._new_page = any(chord in NEW_PAGE_SHORTCUTS for chord in chords)

    def input_posted(self, *, target: Ref | None = None) -> None:
        """A click or an accessible action was sent: a browser's page applies it (and moves the
        focus) after the browser answered, so the next key waits for the focus (``settle``); for
        a click on a text field (``target``), until the field has it."""
        self._input_at = time.monotonic()
        self._target = target

    def after_click(self, app: RunningApp) -> None:
        """Before a key: when a click or an action was sent since the focus last settled, wait
        for the focus it may move (``settle``)."""
        if self._input_at is not None and (bus := self.bus(app)) is not None:
            self.settle(bus)

    def refocused(self, bus: str, *, since: float, end: float) -> bool:
        """For the barrier, after keys sent from ``since`` on: False while the app's focus is in
        transit (one of its elements lost the focus since then, none has gained it after) and
        stays so until ``end`` (monotonic), or when the app did not answer the round trip that
        reads its focus events; True otherwise, and without a bus (nothing to tell)."""
        watch = self._watch
        if not watch.open():
            return True
        if not watch.sync(bus, max(0.0, end - time.monotonic())):
            return False
        return not watch.in_transit(bus, since) or watch.wait_gained(bus, end, since)

    def bus(self, app: RunningApp) -> str | None:
        """The app's bus name on the accessibility bus."""
        return self._s.observed.bus_of(app)

    def is_async(self, bus: str) -> bool:
        """Whether the app hands keys to a page first (``ASYNC_KEY_TOOLKITS``)."""
        return self._s.a11y.toolkit(bus).startswith(ASYNC_KEY_TOOLKITS)

    def now(self, bus: str) -> Ref | None:
        """The element that gained the focus last (its event, when it still reads FOCUSED), else
        the one the FOCUSED states show (preferring one with the Text interface); when it has no
        text, the child that holds it (``with_text``)."""
        gained = self._watch.gained(bus)
        if gained is not None:
            ref = Ref(bus, gained.path)
            if self._s.a11y.states(ref) & FOCUSED:
                return self.with_text(ref)
        # Watching from before the tree read, its answer stands in for a focus event at the read's
        # start: the next call proves it FOCUSED with one GetState instead of reading the tree.
        watching = self._watch.open()
        since = time.monotonic()
        focused, complete = self._focused(bus)
        if focused and watching and complete:
            self._watch.seed(bus, Gained(focused[0].path, since))
        return self.with_text(focused[0]) if focused else None

    def in_active_window(self, bus: str) -> Ref | None:
        """The element focused now (``now``); but when its window does not say ACTIVE and another
        window of the app does, a FOCUSED element of that one (a tree read, text first), if any.
        An element of another window can still read FOCUSED, and may have said it gained the focus
        last: Kate's document list in its main window, its current item changed while its Save
        File dialog was open (on KWin, 13 of 20 Save As runs after earlier saves)."""
        now = self.now(bus)
        window = self._window(now) if now is not None else None
        a11y = self._s.a11y
        if window is None or a11y.states(window) & State.ACTIVE:
            return now
        active = [w for w in a11y.children(Ref(bus, ROOT_PATH)) if a11y.states(w) & State.ACTIVE]
        if not active:
            return now
        return next((self.with_text(r) for r in self._focused(bus)[0] if self._window(r) in active), now)

    def _window(self, ref: Ref) -> Ref | None:
        """The window that holds ``ref``: its ancestor right below the application."""
        a11y = self._s.a11y
        for _ in range(PAGE_HOPS):
            parent = a11y.parent(ref)
            if parent is None:
                return None
            if parent.path == ROOT_PATH:
                return ref
            ref = parent
        return None

    def with_text(self, ref: Ref) -> Ref:
        """``ref``, or when it is a combo box without a Text interface the child that holds its text
        (``core.typedtext.text_child``: its line edit, Dolphin's location bar). One call (its role)
        for any other element."""
        a11y = self._s.a11y
        if a11y.role(ref) != Role.COMBO_BOX or TEXT in a11y.interfaces(ref):
            return ref
        children = a11y.children(ref)[:TEXT_CHILDREN]
        read = []
        for child in children:
            kinds = a11y.interfaces(child)
            focused = TEXT in kinds and bool(a11y.states(child) & FOCUSED)
            read.append(typedtext.Child(TEXT in kinds, EDITABLE_TEXT in kinds, focused))
        index = typedtext.text_child(read)
        return ref if index is None else children[index]

    def _focused(self, bus: str) -> tuple[list[Ref], bool]:
        """The elements a tree read shows FOCUSED (with Text first), and whether it was complete."""
        snap = self._s.observed.atspi.snapshot(bus, Deadline(2.0))
        nodes = sorted((n for n in snap.nodes.values() if n.states & FOCUSED), key=lambda n: TEXT not in n.interfaces)
        return [Ref(bus, n.path) for n in nodes], not snap.timed_out

    def settle(self, bus: str, *, input_since: float | None = None) -> float:
        """After ``press_key`` in a browser, or a click (``input_posted``, or ``input_since``, when
        the app was asked whether it processed it), wait for its focus to settle; the seconds waited.
        After a click on a text field, in any app, until the field has the focus: LibreOffice gives
        its Font Name box the focus some 30 ms after it answered the ping for the click, and a
        ctrl+a sent before went to the document, whose text the typing then replaced (3 of 4 runs
        of ``tests/realapps/test_cell_chains_office.py``)."""
        key_at, self._key_at = self._key_at, None
        input_at, self._input_at = self._input_at, None
        target, self._target = self._target, None
        self._landed = None
        clicked_last = input_at is not None and (key_at is None or input_at > key_at)
        if clicked_last and target is not None and target.bus != bus:
            return 0.0  # the click went to another app: this one's keys do not wait for its field
        if clicked_last and target is not None and (waited := self._wait_focused(target)) is not None:
            return waited  # a click on a text field: until it has the focus
        if not self.is_async(bus):
            return 0.0
        if clicked_last:
            key_at = None  # the click came after the last key: its focus is the one to wait for
            input_since = input_at if input_since is None else input_since
        if key_at is None:
            if input_since is None:
                return 0.0
            # a click: the page moves the focus after the browser answered
            return self._watch.wait_quiet(
                bus, since=input_since, quiet_s=FOCUS_AFTER_INPUT_S, after_gain_s=FOCUS_AFTER_GAIN_S, cap_s=FOCUS_CAP_S
            )
        watch = self._watch
        waited = watch.wait_quiet(
            bus, since=key_at, quiet_s=FOCUS_QUIET_S, after_gain_s=FOCUS_AFTER_GAIN_S, cap_s=FOCUS_CAP_S
        )
        if not self._shortcut:
            return waited

        # The shortcut's move may still be to come (keys typed before it go to the page): out of
        # the page, where a focus event inside it is not that move, so each one is checked; for a
        # new tab or window, to it, wherever in it.
        def to_come() -> bool:
            return not watch.gained_after(bus, key_at) if self._new_page else self._in_page(bus)

        end = key_at + FOCUS_SHORTCUT_CAP_S
        while (left := end - time.monotonic()) > 0 and to_come():
            waited += watch.wait_quiet(
                bus, since=time.monotonic(), quiet_s=left, after_gain_s=FOCUS_AFTER_GAIN_S, cap_s=left
            )
        return waited

    def _wait_focused(self, target: Ref) -> float | None:
        """When ``target`` is a text field (EDITABLE, FOCUSABLE, with Text), read its states until it is
        FOCUSED, for up to ``FOCUS_FIELD_CAP_S`` and the call's deadline: the seconds waited."""
        start = time.monotonic()
        end = start + call_deadline.bound(FOCUS_FIELD_CAP_S)
        states = self._s.a11y.states(target)
        if not states & State.EDITABLE or not states & State.FOCUSABLE or TEXT not in self._s.a11y.interfaces(target):
            return None  # no text field (Impress's title placeholder is EDITABLE: selected, never FOCUSED)
        while not states & FOCUSED and time.monotonic() < end:
            time.sleep(0.02)  # polling the field's state until the deadline above
            states = self._s.a11y.states(target)
        if states & FOCUSED:
            self._landed = target
        return time.monotonic() - start

    def landed(self, bus: str) -> Ref | None:
        """After ``settle``: the text field the last click went to when ``settle`` saw it take the
        focus, else the element focused now (``now``). The clicked field's own FOCUSED state is the
        better witness: Chromium on sway still marked the field focused before the click FOCUSED
        (its focus event came late) after the click had moved the focus to a textarea, and the
        paste, watching that field, saw nothing of the text that landed (1 of 8 runs)."""
        landed, self._landed = self._landed, None
        if landed is not None and landed.bus == bus:
            return self.with_text(landed)
        return self.now(bus)

    def _in_page(self, bus: str) -> bool:
        """Whether the focus is in a web page (the focused element or an ancestor is a web
        document), or unknown; False when it is in the browser's own UI (its address bar)."""
        a11y = self._s.a11y
        ref = self.now(bus)
        for _ in range(PAGE_HOPS):
            if ref is None:
                break
            role = a11y.role(ref)
            if role == Role.DOCUMENT_WEB:
                return True
            if role in (Role.APPLICATION, Role.FRAME):
                return False
            ref = a11y.parent(ref)
        return ref is None

    def text(self, ref: Ref | None, kinds: frozenset[str] | None = None) -> str | None:
        """The element's text, when it has the Text interface (``kinds``: its interfaces, if read)."""
        if ref is None or TEXT not in (self._s.a11y.interfaces(ref) if kinds is None else kinds):
            return None
        return self._s.a11y.text(ref)

    def read_back(
        self,
        bus: str | None,
        ref: Ref | None,
        before: str | None,
        text: str,
        *,
        wait_s: float,
        cap_s: float,
        span: tuple[int, int] | None = None,
    ) -> Readback:
        """``typed_readback`` repeated for ``wait_s`` until it finds the text, and for ``wait_s``
        more each time the texts it read changed since the last read (the app is still applying
        the keys: a loaded browser takes seconds for a URL), never past ``cap_s`` or the call's
        deadline. While only part of the text shows, it reads on for at least ``PARTIAL_WAIT_S``
        (the rest of the keys may be on their way)."""
        start = time.monotonic()
        cap = start + call_deadline.bound(cap_s)
        deadline = min(cap, start + call_deadline.bound(wait_s))
        last: tuple[str | None, str | None] | None = None
        while True:
            got = self.typed_readback(bus, ref, before, text, span)
            now = time.monotonic()
            if got.found is not None:
                return got
            if last is None or got.texts != last:
                grace = max(wait_s, PARTIAL_WAIT_S) if got.partial is not None else wait_s
                deadline = max(deadline, min(cap, now + call_deadline.bound(grace)))
            if now >= deadline:
                return self._last_look(bus, got, text) if wait_s > 0 else got
            last = got.texts
            time.sleep(0.03)  # polling the app's text until the deadline above

    def _last_look(self, bus: str | None, got: Readback, text: str) -> Readback:
        """Before a browser's read-back says nothing showed: does a FOCUSED element of a fresh tree
        read hold the text (the focus events named another: a row of the address bar's popup)?"""
        for ref in self._focused(bus)[0] if bus is not None and got.partial is None else ():
            held = self.text(ref)
            if held is not None and typedtext.shown_in(text, held):
                return got._replace(found="a focused element holds the typed text", readable=True)
        return got

    def typed_readback(
        self, bus: str | None, ref: Ref | None, before: str | None, text: str, span: tuple[int, int] | None = None
    ) -> Readback:
        """After typing ``text`` into ``ref`` (which read ``before``, the keys replacing ``span``
        of it, in code points, when known): what shows it, if anything (the element focused now
        holds it, or ``ref``'s text changed by as much as was typed: ``core.typedtext``), what
        shows only part of it and how many characters, whether some focused text was readable
        at all, and the texts read."""
        now = self.now(bus) if bus is not None else None
        readable = before is not None
        got = None
        if now is not None and now != ref:
            got = self.text(now)
            if got is not None:
                readable = True
                if typedtext.shown_in(text, got):
                    return Readback("the element focused now holds the typed text", True, (got, None))
        after = self.text(ref)
        sectioned = ref is not None and self._s.a11y.role(ref) == Role.SPIN_BUTTON  # a time edit
        shown = typedtext.shown_by_change(text, before, after, sectioned)
        count = None
        if shown == typedtext.SOME and before is not None and after is not None and span is not None:
            first = typedtext.segments(text)[0]
            arrived = typedtext.arrived(first, after, before[: span[0]], before[span[1] :])
            if arrived == len(first):
                shown = typedtext.ALL
            elif arrived is not None:
                count = (arrived, len(first))
        if shown == typedtext.ALL:
            return Readback("the focused text changed", True, (got, after))
        if shown == typedtext.SOME:
            part = "the focused text changed by less than was typed: only part of the text arrived there"
            if count is not None:
                came, typed = count
                note = " before its first line break" if len(text) > typed else ""
                part = f"the field shows {came} of the {typed} characters typed{note}; {typed - came} did not arrive"
            return Readback(None, True, (got, after), part, count)
        return Readback(None, readable, (got, after))
