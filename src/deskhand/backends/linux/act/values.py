"""Element values on Linux: text selection, setting a value, secondary actions, through AT-SPI.

Every write is preceded by the identity check; a write the app refuses after it is ``ax_failed``
with unknown effect (``dispatched=None``) and is never replayed.

A text entry without a working EditableText (Chromium puts none on its entries; Firefox accepts
``SetTextContents`` and changes nothing) is set by the keyboard, as a person would: focus it,
select all, type the value (``Typing``), then read the field back; a field that does not read as
the value is ``ax_failed`` with ``dispatched=True``. A single-line entry never gets a line break
(Return would submit its form): such a value is refused before anything is sent.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from typing import Final

from deskhand.backends.base import ActionResult, Handle, RunningApp, SelectionType
from deskhand.backends.linux.act.keys import LINE_BREAKS, READBACK_S
from deskhand.backends.linux.act.scroll import Scrolling
from deskhand.backends.linux.act.seam import ActSession, KeyInput
from deskhand.backends.linux.act.session import not_dispatched
from deskhand.backends.linux.act.value_witness import Witness
from deskhand.backends.linux.atspi.element import Ref
from deskhand.backends.linux.atspi.enums import State
from deskhand.backends.linux.atspi.roles import ACTION_NAMES, ROLE_SPIN_BUTTON, TEXT_ENTRY_ROLES
from deskhand.core import deadline as call_deadline
from deskhand.core import effects, textmatch
from deskhand.core import scroll as corescroll
from deskhand.core.axtree.text import match_secondary_action
from deskhand.core.errors import NativeError

__all__ = ("Values",)

#: Read-back of a text selection: every 10 ms for up to 200 ms (sdk-contract.md 6.2).
SELECTION_READBACK_S: Final = 0.2
#: How long a text entry is waited for to take the focus before the keyboard sets its value.
FOCUS_WAIT_S: Final = 1.0
_KEYED_STATES: Final = State.EDITABLE.value | State.FOCUSABLE.value


class Values:
    """selectText, setValue and performSecondaryAction for one session (the caller holds its lock),
    on any display server (``act.seam``)."""

    def __init__(self, session: ActSession, scrolling: Scrolling, typing: KeyInput) -> None:
        self._s = session
        self._scrolling = scrolling
        self._typing = typing

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
        s = self._s
        _el, ref = s.ref(app, element)
        a11y = s.a11y
        source = a11y.text(ref)
        if source is None:
            raise not_dispatched("not_selectable", "The element has no readable text value.")
        found = textmatch.select_range(source, text, prefix=prefix or "", suffix=suffix or "", mode=selection_type)
        if a11y.utf16(ref):
            start, end = found.location, found.location + found.length
        else:
            start, end = textmatch.to_code_points(source, found)
        s.verify_identity(app)
        if a11y.text(ref) != source:
            raise not_dispatched("stale_element", "Text changed before selection; observe again.")
        if not a11y.set_selection(ref, start, end):
            a11y.grab_focus(ref)
            if not a11y.set_selection(ref, start, end):
                raise NativeError("ax_failed", "The app did not accept the selection.", dispatched=None)
        verified = self._read_back_selection(ref, start, end)
        seen = [effects.Evidence("value_readback", "the selection reads back as requested")] if verified else []
        return ActionResult(
            {"location": found.location, "length": found.length, "verified": verified, "path": "atspi"},
            effects.judge("accessibility", seen, location=found.location, length=found.length),
        )

    def _read_back_selection(self, ref: Ref, start: int, end: int) -> bool:
        a11y = self._s.a11y
        deadline = time.monotonic() + SELECTION_READBACK_S
        while True:
            got = a11y.selection(ref)
            caret = a11y.caret(ref)
            if (start == end and caret == start and (got is None or got[0] == got[1])) or got == (start, end):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        s = self._s
        _el, ref = s.ref(app, element)
        a11y = s.a11y
        interfaces = a11y.interfaces(ref)
        states = a11y.states(ref)
        number = _number(value)
        if "org.a11y.atspi.Value" in interfaces and (number is not None or "org.a11y.atspi.Text" not in interfaces):
            if number is None:
                raise not_dispatched("not_settable", "The element takes a number.")
            return self._set_number(app, ref, number, value)
        keyed = self._keyed_entry(ref, interfaces, states, value)
        if "org.a11y.atspi.EditableText" in interfaces and states & State.EDITABLE:
            before = a11y.text(ref)
            s.verify_identity(app)
            if not a11y.set_text_contents(ref, value):
                raise NativeError("ax_failed", "The app refused the new text.", dispatched=None)
            after = a11y.text(ref)
            if not keyed or after != before or after == value:
                return _confirmed(before, after, value, value)
            # The app accepted the call and changed nothing (Firefox): the keyboard sets it.
        if keyed:
            return self._set_by_keys(app, ref, value)
        raise not_dispatched("not_settable", "The element's value cannot be set.")

    def _set_number(self, app: RunningApp, ref: Ref, number: float, asked: str) -> ActionResult:
        """A number goes to the element's Value, the app's own number for it: a spin button's text
        is only its display (LibreOffice's dialogs take ``SetTextContents`` into the field and keep
        the old value, so the table inserted is 2 x 2 while the field reads 3). A spin button is
        confirmed when its value reads back and its field shows the number; a slider only when the
        app answers beside it (``Witness``), else it is ``unverifiable``: the widget's number reads
        back whether or not the app acted on it (VLC's seek slider moves and the player does not seek).
        """
        s, a11y = self._s, self._s.a11y
        old = a11y.value(ref)
        spin = a11y.role(ref) == ROLE_SPIN_BUTTON
        witness = None if spin else Witness.read(a11y, ref)
        s.verify_identity(app)
        if not a11y.set_value(ref, number):
            raise NativeError("ax_failed", "The app refused the new value.", dispatched=None)
        new = a11y.value(ref)
        before, after = (old[0] if old else None), (new[0] if new else None)
        if witness is None or not _same(after, number):
            shown = a11y.text(ref) if witness is None else None
            if shown is not None and (spelled := _SPELLED.search(shown)) and not _same(_number(spelled[0]), number):
                raise NativeError(
                    "ax_failed",
                    f"The spin button's value reads {after!r}, but its field shows {shown!r}; "
                    "observe the app before trying another way.",
                    dispatched=True,
                )
            return _confirmed(before, after, number, asked)
        answer = witness.changed()
        seen: list[effects.Evidence] = []
        back = a11y.value(ref) if answer is not None else None
        if back is not None and before is not None and abs(back[0] - before) < abs(back[0] - number):
            # A label that ticks by itself (a playing player's time) changed, and with it the app
            # put the control back near where it was: it did not take the value.
            answer = None
        if answer is not None:
            seen.append(effects.Evidence("window_change", f"a label beside it changed: {answer[0]!r} -> {answer[1]!r}"))
            return _outcome(before, after, seen)
        back = back or a11y.value(ref)
        if (
            back is not None
            and before is not None
            and not _same(back[0], number)
            and (_same(back[0], before) or abs(back[0] - before) < abs(back[0] - number))
        ):
            raise NativeError(
                "ax_failed",
                f"The control took {asked}, then the app set it back to {back[0]!r}; "
                "operate it as a user would (keys or a drag) and check the app's own state.",
                dispatched=True,
            )
        return _outcome(before, after, seen)  # the widget moved; nothing showed the app took it

    def _keyed_entry(self, ref: Ref, interfaces: frozenset[str], states: int, value: str) -> bool:
        """Whether the keyboard may set this element: a focusable, editable text entry with a
        readable text. A line break for a single-line entry is refused here, before dispatch."""
        if "org.a11y.atspi.Text" not in interfaces or states & _KEYED_STATES != _KEYED_STATES:
            return False
        if states & State.READ_ONLY.value or self._s.a11y.role(ref) not in TEXT_ENTRY_ROLES:
            return False
        if states & State.SINGLE_LINE.value and any(ch in value for ch in LINE_BREAKS):
            raise not_dispatched("bad_payload", "A single-line entry takes no line break.")
        return True

    def _set_by_keys(self, app: RunningApp, ref: Ref, value: str) -> ActionResult:
        """Focus the entry, select all, type ``value``, then read the entry back (module docstring)."""
        s, a11y = self._s, self._s.a11y
        before = a11y.text(ref)
        s.bind_keyboard(app)  # keys go to the observed key window, or nothing is sent
        s.verify_identity(app)
        if not a11y.states(ref) & State.FOCUSED:
            a11y.grab_focus(ref)
            if not _poll(lambda: bool(a11y.states(ref) & State.FOCUSED), FOCUS_WAIT_S):
                raise NativeError(
                    "ax_failed", "The entry did not take the focus; its text was not changed.", dispatched=True
                )
        typing = self._typing
        typing.press_key(app, "ctrl+a")
        if value:
            typing.type_text(app, value)
        else:
            typing.press_key(app, "Delete")
        if not _poll(lambda: a11y.text(ref) == value, READBACK_S):
            after = a11y.text(ref)
            raise NativeError(
                "ax_failed",
                f"The value was typed into the entry, but it reads {after!r} instead of {value!r}; "
                "observe the app before trying another way.",
                dispatched=True,
            )
        seen = [effects.Evidence("value_readback", f"the entry reads {value!r}")]
        outcome = effects.judge("synthetic_events", seen, before=before, after=value)
        return ActionResult({"before": before, "after": value, "route": "key_events"}, outcome)

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        """Perform an element's action by the name the state text shows or by a raw name (6.8).

        The raw names on Linux are the element's AT-SPI action names ("Toggle", "Expand or
        contract"), their contract names (``atspi.roles.ACTION_NAMES``: ``AXPress``,
        ``AXExpandOrContract``, ``AXIncrement``, ...) and the page-scroll actions the element was
        observed with (``atspi.mapping`` gives them to scroll areas). The core's matcher picks one:
        exact raw names first, then their matcher forms, case-insensitively. Nothing is sent for a
        name that matches none (``invalid_action``). A page scroll moves the element's own scroll
        bar by a page (``Scrolling.page_scroll``); any other action is AT-SPI ``DoAction``. A
        failure after the identity check is ``ax_failed`` and is not replayed.
        """
        s = self._s
        el, ref = s.ref(app, element)
        native = s.a11y.actions(ref)
        choices: list[tuple[str, int | str]] = [(name, i) for i, name in enumerate(native)]
        for i, name in enumerate(native):
            mapped = ACTION_NAMES.get(name.strip().lower())
            if mapped is not None:
                choices.append((mapped, i))
        choices += [(name, name) for name in el.actions if name in corescroll.PAGE_SCROLL_ACTIONS]
        chosen = match_secondary_action(action, [name for name, _ in choices])
        if chosen is None:
            raise not_dispatched("invalid_action", f"{action} is not a valid secondary action for {element}")
        raw, target = choices[chosen]
        if isinstance(target, str):
            result = self._scrolling.page_scroll(app, ref, el.frame, target)
        else:
            s.verify_identity(app)
            if not s.a11y.do_action(ref, target):
                raise NativeError("ax_failed", f"The app did not perform {raw}.", dispatched=None)
            result = ActionResult({"action": raw})
        return result


def _poll(done: Callable[[], bool], seconds: float) -> bool:
    """Whether ``done()`` comes true within ``seconds`` (asked every 30 ms, and once at the end)."""
    deadline = time.monotonic() + call_deadline.bound(seconds)
    while not done():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.03)  # polling the app with a deadline
    return True


#: The number a spin button's field shows ("3", "0.10 cm", "1,5"): its first one.
_SPELLED: Final = re.compile(r"[-+]?\d+(?:[.,]\d+)?")


def _number(text: str) -> float | None:
    """The number a value text spells (``"3"``, ``"2.5"``, ``" 4 "``), else None."""
    try:
        number = float(text.replace(",", ".") if text.count(",") == 1 and "." not in text else text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _same(got: object, wanted: float) -> bool:
    return isinstance(got, float) and abs(got - wanted) <= 1e-9 * max(1.0, abs(wanted))


def _outcome(before: object, after: object, seen: list[effects.Evidence]) -> ActionResult:
    outcome = effects.judge("accessibility", seen, before=before, after=after)
    return ActionResult({"before": before, "after": after}, outcome)


def _confirmed(before: object, after: object, wanted: object, asked: str) -> ActionResult:
    """A value call the app accepted succeeds only when the element reads back as set: Firefox and
    others accept ``SetTextContents`` and change nothing, which must never read as success."""
    same = (
        abs(after - wanted) <= 1e-9 * max(1.0, abs(wanted))
        if isinstance(after, float) and isinstance(wanted, float)
        else after == wanted
    )
    if not same:
        raise NativeError(
            "ax_failed",
            f"The app accepted the new value, but the element reads {after!r} instead of {asked!r}; "
            "observe the app before trying another way.",
            dispatched=True,
        )
    seen = [effects.Evidence("value_readback", f"the element reads {after!r}")]
    outcome = effects.judge("accessibility", seen, before=before, after=after)
    return ActionResult({"before": before, "after": after}, outcome)
