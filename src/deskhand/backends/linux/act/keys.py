"""Keys and text on Linux: key chords, typed text (EditableText or key events), paste.

``type_text`` replaces the focused element's selection through AT-SPI EditableText when it can,
else posts key events, and pastes when some character has no key. ``press_key`` posts the core's
chords (``core.keys``). Both post through the session's gate (``act.session``).

Keys go out through ``act.keystrokes`` (``Keystrokes``): bursts with temporary keycodes for
characters the keymap lacks, each confirmed by a ping the app answers once it has processed them.

``type_text``'s route and ``paste``'s target read the app's focused element; when input was posted
since the last answer (the click that focused a field), they first wait for an answer. Browsers
answer before they have handled a key or a click (their page's process gets it), so there keys
also wait for the focus to settle (``act.focus``). A long text goes in chunks, each once the app
answered for the one before (``act.keystrokes``); into a single-line field keys go one by one
(``core.barrier.keys_per_burst``: a completion that arrives while keys are queued rewrites the
field under them); an app that leaves a ping unanswered gets the rest without waits.

Typing by key events is verified on the element focused when the keys have been processed, which
may be another than the one focused before (a key can move the focus): the same element reads
differently by as much as was typed (``core.typedtext``; less is ``partial``, with the count of
characters that arrived when the text around the replaced selection still reads as before), or
the element focused now holds the typed text. A focused element without text is read through
the child that holds it (``Focus.with_text``: an editable combo box's line edit). In a browser
the page's process applies the keys after the ping is answered, so the read-back is repeated for
up to ``READBACK_S`` while it shows nothing yet.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from deskhand.backends.base import ActionResult, PasteFormat, RunningApp
from deskhand.backends.linux.act import outcomes
from deskhand.backends.linux.act.focus import Focus
from deskhand.backends.linux.act.keystrokes import CHUNK_STROKES, Keystrokes
from deskhand.backends.linux.act.paste import X11Clipboard, paste_into
from deskhand.backends.linux.act.session import LinuxSession, not_dispatched
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.enums import State
from deskhand.backends.linux.x11.keymap import char_keysym, name_keysym
from deskhand.core import barrier, effects, x11keys
from deskhand.core import deadline as call_deadline
from deskhand.core import keys as corekeys
from deskhand.core.errors import NativeError

if TYPE_CHECKING:
    from deskhand.core.paste import Clipboard

__all__ = ("Typing",)

#: How long ``type_text`` re-reads the focus when, right after input, no element has it yet.
FOCUS_SETTLE_S: Final = 0.2
#: How long a browser's typed text is looked for in the focused element after the keys.
READBACK_S: Final = 2.0
READBACK_CAP_S: Final = 10.0  # while the focused text still changes (a loaded browser)

#: Characters typed as keys (Return) rather than inserted: a line break in Writer or a chat box
#: must be what pressing Return makes (a new paragraph, a sent message), not a raw newline.
LINE_BREAKS: Final = ("\n", "\r")


def field_of(a11y: A11y, ref: Ref | None, text: str | None) -> barrier.Field:
    """The kind of field keys go to (``core.barrier.Field``), by its states; ``text``: its text,
    None when it has none that can be read."""
    if ref is None or text is None:
        return "unknown"
    states = a11y.states(ref)
    if states & State.MULTI_LINE:
        return "lines"
    return "line" if states & (State.SINGLE_LINE | State.EDITABLE) else "unknown"


class Typing:
    """Keys, text and paste for one session (the caller holds ``session.lock``).

    It is also the ``paste.PasteSeam`` the paste transaction runs on.
    """

    def __init__(self, session: LinuxSession) -> None:
        self._s = session
        #: key bursts and their temporary keycodes
        self.keystrokes = Keystrokes(session)
        self.keymap = self.keystrokes.keymap
        #: where the app's focus is (and, after ``press_key`` in a browser, when it has settled)
        self.focus = Focus(session)

    def close(self) -> None:
        """Empty the temporary keycodes (``Keystrokes.release_keycodes``) and close the focus watch."""
        try:
            self.keystrokes.release_keycodes()
        finally:
            self.focus.close()

    # -- the paste seam -----------------------------------------------------------------------
    @property
    def a11y(self) -> A11y:
        return self._s.a11y

    @property
    def a11y_address(self) -> str:
        return self._s.a11y_address

    def register_events(self, names: Iterable[str]) -> None:
        self._s.register_events(names)

    def paste_clipboard(self) -> Clipboard:
        return X11Clipboard(self._s.clipboard())

    def focused_text(self, app: RunningApp) -> Ref | None:
        """The element focused now (no wait): the paste's read-back."""
        bus = self.focus.bus(app)
        return self.focus.now(bus) if bus is not None else None

    def focused_after_input(self, app: RunningApp, window: int) -> Ref | None:
        """The paste's target: the focused element once the app processed the input before it.
        None when the app did not answer the ping (busy or stopped: its tree would not answer
        either, and the paste's own wait needs the call's time)."""
        return self._focused_after_input(app, window, give_up_unanswered=True)

    def post_chord(self, app: RunningApp, window: int, key: str) -> None:
        """One key chord burst after the gate (the paste transaction's ctrl+v)."""
        chord = corekeys.parse_keys(key)[0]
        mods, name = x11keys.to_x_keysyms(chord.ordered_modifiers(), chord.key)
        self.keystrokes.post_keysyms(app, window, [(tuple(name_keysym(m) for m in mods), name_keysym(name))])

    # -- actions ------------------------------------------------------------------------------
    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        window = self._s.bind_keyboard(app)
        return paste_into(self, app, window, text, fmt)

    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        chords = corekeys.parse_keys(key)
        window = self._s.bind_keyboard(app)
        plan: list[tuple[tuple[int, ...], int]] = []
        for chord in chords:
            mods, name = x11keys.to_x_keysyms(chord.ordered_modifiers(), chord.key)
            value = x11keys.x_keysym_value(chord.key)
            keysym = value if value is not None else name_keysym(name)
            if not keysym:
                raise not_dispatched("unknown_key", f'Unknown key "{chord.key}".')
            plan.append((tuple(name_keysym(m) for m in mods), keysym))
        self.focus.open()  # before the key: the focus change it may cause must not be missed
        self.focus.after_click(app)
        self.keystrokes.post_keysyms(app, window, plan)
        self.focus.key_posted([(c.ordered_modifiers(), c.key.lower()) for c in chords])
        return ActionResult({"chords": len(chords)})

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        """Type ``text``: through EditableText when the focused field takes it and the text reads
        back as typed, else as key events (a line break is the Return key, as a person types it),
        else (a character without a key) by paste. Each route reports what it saw."""
        if not text:
            return ActionResult({"route": "none"}, effects.judge("none", []))
        window = self._s.bind_keyboard(app)
        focused = self._focused_after_input(app, window)
        bus = focused.bus if focused is not None else self.focus.bus(app)
        kinds = self._s.a11y.interfaces(focused) if focused is not None else frozenset[str]()
        if focused is not None and not any(ch in text for ch in LINE_BREAKS):
            typed = self._replace_text(app, focused, text, kinds)
            if typed is not None:
                return ActionResult({"route": "accessible_text"}, typed)
        before = self.focus.text(focused, kinds)
        span = self._span(focused, before)
        plan = [((), char_keysym(ch)) for ch in text]
        burst = barrier.keys_per_burst(field_of(self._s.a11y, focused, before), len(plan), CHUNK_STROKES)
        try:
            self.keystrokes.post_keysyms(app, window, plan, burst=burst)
        except NativeError as err:
            if err.code != "unknown_key":
                raise
            return self.paste(app, text, "text")
        outcome = self._key_outcome(window, bus, focused, before, text, span=span)
        return ActionResult({"route": "key_events"}, outcome)

    def _span(self, ref: Ref | None, text: str | None) -> tuple[int, int] | None:
        """What typed keys replace in ``ref`` (which reads ``text``): its selection, else the caret,
        in code points; None when unknown."""
        if ref is None or text is None:
            return None
        a11y = self._s.a11y
        selection = a11y.selection(ref)
        caret = a11y.caret(ref)
        if selection is not None and selection[0] != selection[1]:
            start, end = sorted(selection)
        elif caret is not None:
            start = end = caret
        else:
            return None
        if a11y.utf16(ref):  # Qt counts UTF-16 units
            units = text.encode("utf-16-le")
            start, end = (len(units[: 2 * off].decode("utf-16-le", errors="ignore")) for off in (start, end))
        return (start, end) if 0 <= start <= end <= len(text) else None

    def _key_outcome(
        self,
        window: int,
        bus: str | None,
        ref: Ref | None,
        before: str | None,
        text: str,
        *,
        span: tuple[int, int] | None = None,
    ) -> effects.Outcome:
        """After key events: the app answered a ping (a receipt), and the element focused now
        shows the text (module docstring); in a browser the read-back is repeated a while. An
        unchanged text is ``suspected_noop`` only once the app has processed the keys; before
        that nothing can be told (``unverifiable``)."""
        seen: list[effects.Evidence] = []
        processed = self.keystrokes.confirm_input(window) or not self._s.input_unconfirmed
        if processed:
            seen.append(effects.Evidence("event_receipt", "the app processed the key events"))
        wait = READBACK_S if bus is not None and self.focus.is_async(bus) else 0.0
        got = self.focus.read_back(bus, ref, before, text, wait_s=wait, cap_s=READBACK_CAP_S, span=span)
        return outcomes.typed(got, seen, processed=processed)

    # -- focus and EditableText ---------------------------------------------------------------
    def _focused_after_input(self, app: RunningApp, window: int, *, give_up_unanswered: bool = False) -> Ref | None:
        """The focused element once the app processed our earlier input (module docstring).

        GTK 3 marks the newly focused widget FOCUSED only from an idle callback after the event
        that moved the focus, and the widget that lost it is no longer FOCUSED, so right after a
        click none may be: then the read is repeated until one is, for up to ``FOCUS_SETTLE_S``.
        """
        self.keystrokes.unanswered = False
        focus = self.focus
        focus.open()  # events read now are older than the ping below
        asked_at = time.monotonic()
        just_confirmed = self.keystrokes.confirm_input(window)
        if give_up_unanswered and self.keystrokes.unanswered:
            return None
        bus = focus.bus(app)
        if bus is None:
            return None
        focus.settle(bus, input_since=asked_at if just_confirmed else None)
        focused = focus.landed(bus)
        if focused is not None or not just_confirmed:
            return focused
        deadline = time.monotonic() + call_deadline.bound(FOCUS_SETTLE_S)
        while focused is None and time.monotonic() < deadline:
            focused = focus.now(bus)
        return focused

    def _replace_text(self, app: RunningApp, ref: Ref, text: str, kinds: frozenset[str]) -> effects.Outcome | None:
        """Tier 1: replace the selection (or insert at the caret) through EditableText (``kinds``:
        ``ref``'s interfaces), then read the field back. None when this route cannot be used or did
        nothing (the field reads as before: Firefox ignores the call), so key events may follow."""
        a11y = self._s.a11y
        if "org.a11y.atspi.EditableText" not in kinds:
            return None
        if not a11y.editable(ref):
            return None
        selection = a11y.selection(ref)
        caret = a11y.caret(ref)
        before = a11y.text(ref)
        if caret is None or before is None:
            return None
        self._s.verify_identity(app)
        start, end = sorted(selection) if selection is not None and selection[0] != selection[1] else (caret, caret)
        if end > start and not a11y.delete_text(ref, start, end):
            return None
        if not a11y.insert_text(ref, start, text):
            if end > start:
                raise NativeError(
                    "text_edit_state_unknown", "The text insert failed after editing began.", dispatched=True
                )
            return None
        after = a11y.text(ref)
        if after == before:
            return None  # nothing changed: the app ignored the call
        if after != before[:start] + text + before[end:]:
            raise NativeError(
                "text_edit_state_unknown",
                "The field changed, but it does not read as typed; observe the app before editing again.",
                dispatched=True,
            )
        a11y.set_caret(ref, start + a11y.length(ref, text))
        return effects.judge("accessibility", [effects.Evidence("value_readback", "the field reads back as typed")])
