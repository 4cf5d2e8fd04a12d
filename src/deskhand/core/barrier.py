"""The input barrier between the actions of a cell: the app has handled one before the next is sent.

Many actions in one cell reach the app over two channels that keep no order between them: input
events through the X server (XTest keys and clicks) and accessibility calls over D-Bus (a text
insert, a press action, a value). A person's next keystroke waits for the screen; a script's does
not, so without a barrier a key can overtake the press action before it (Kate saved its file before
its queued Replace All ran) or the text insert before it.

This module is the policy, in the core's terms: by the kind of the previous action (``Sent``) and
the app's toolkit, what to wait for before the next one (``Wait``). The backend carries it out on
its own means, all bounded by ``BARRIER_CAP_S`` and the call's deadline:

* ``processed``: a round trip through the app's event loop (an X11 ``_NET_WM_PING``, answered
  after everything queued before it);
* ``after_s``: first, this long since the previous action was dispatched: a toolkit that performs
  a press action later (Qt's ``animateClick``: the button is released, and clicked, 100 ms after
  the action; measured on Kate 22: the document changed 103 ms after the call), or that completes
  an entry's text on a timer (``ENTRY_COMPLETION_S``);
* ``quiet``: then until the app's own accessibility events and drawing have been quiet for the
  settle's ``QUIET_S`` (the effect of an action may take several passes of its loop);
* ``loop``: after the round trip, one through the thread that runs the app's queued input and
  accessible actions, where that is not the thread that answers the ping (``LOOP_TOOLKITS``).
  Swing answers ``_NET_WM_PING`` from AWT's toolkit thread, which only queues input for the event
  dispatch thread, and java-atk-wrapper runs an accessible action there later (``invokeLater``):
  a ping proves nothing. Its accessible getters run on that thread and wait for it, behind what
  is queued, so one getter is the round trip (jEdit: a state read right after Replace All's
  action took 138 ms, ``doClick``'s 68 ms press and the replace included; the next one 12 ms).
* ``refocus``: then, while the app's keyboard focus is in transit (the app said an element lost
  it after the previous action, and none has gained it since), until one has. A toolkit gives a
  key to its focused widget, and drops one that comes while there is none: LibreOffice's Font
  Name box applies the font on Return, hands the focus back to the document 300 ms later (VCL
  moves a frame's focus from a posted event), and answers the round trip in between; a
  ``ctrl+s`` sent on that answer reached no window and nothing was saved (5 of 5).

Input events after input events keep their order in the X server and in the app, so nothing is
waited for between them (clicks and typed text cost nothing more), except after key chords: a
chord may open or close a window or move the focus, and the next call's target (the window it is
pinned to, the focused field) is known only once the app has handled it (one round trip) and
its focus has landed (``refocus``). The first action after an observation has nothing to wait for
either.

A refusal says what went before it: keys pinned to the observed key window are refused once a
window the keys before them opened has the focus (``ctrl+shift+s`` then ``type_text``), and the
calls already sent since the last observation are named (``refused_after``), so the agent knows
what the app got and observes the new window before typing on.

Within one action, typed keys keep pace with the app too (``keys_per_burst``): into a
single-line field each key goes once the app has handled the one before (one round trip a key).
Such fields complete what is typed, and a completion that arrives while keys are still queued
rewrites the field under them: Dolphin's location bar, a Qt line edit whose completion lists the
folder typed so far on a thread, lost keys of a path typed at once (``/tmp/p/...`` for
``/tmp/kp/...``, 2 of 10 runs under two CPU hogs; one key a round trip, 10 of 10). Elsewhere
(a document, or a field not known) keys go in chunks, each once the app answered for the one
before, as long texts always did.

When the barrier cannot tell that the app has handled the previous action (no answer in time, a
window that takes no ping), the next result says so (``unsettled``): the action was still sent,
as one a person makes without looking.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Literal

__all__ = (
    "BARRIER_CAP_S",
    "DEFERRED_ACTION_S",
    "ENTRY_COMPLETION_S",
    "LOOP_TOOLKITS",
    "PACED_KEYS_MAX",
    "UNSETTLED",
    "Field",
    "Sent",
    "Wait",
    "before",
    "keys_per_burst",
    "refused_after",
)

#: What the previous action sent: key chords (``keys``: they may move the focus, open or close a
#: window), other input events (``input``: clicks, typed text, drags), an accessible text edit or
#: value (``a11y_edit``; ``a11y_entry``: of a single-line entry), an accessible action
#: (``a11y_action``: press, select, secondary action), text typed by key events at once, not one
#: key a round trip, into a single-line entry (``typed_entry``: the Wayland typist; the entry
#: completes it on the toolkit's timer as it does an accessible insert, and a key sent before
#: that is lost as after ``a11y_entry``; an X11 typist paces such keys, ``keys_per_burst``).
Sent = Literal["keys", "input", "a11y_edit", "a11y_entry", "a11y_action", "typed_entry"]

#: The field keys are typed into, as typing finds it: ``line``, one that holds a single line (an
#: entry, a location bar: SINGLE_LINE, or EDITABLE without MULTI_LINE, as Qt's line edits are);
#: ``lines``, a multi-line one (a document); ``unknown``, no focused text could be read.
Field = Literal["line", "lines", "unknown"]

#: Toolkits (lowercased ``ToolkitName`` prefixes) that perform a press action after the call
#: returned, and how long after: Qt 5 and 6 run it as ``animateClick`` (100 ms), with a margin.
DEFERRED_ACTION_S: Final = {"qt": 0.12}
#: Toolkits whose single-line entries complete what was typed after a delay, and that delay with a
#: margin: a GTK 3 ``GtkEntryCompletion`` refilters 150 ms after the text changed, and a Return
#: before that is lost (gedit's and Mousepad's Save As: an accessible insert of the path, then
#: Return 10 ms later, saved nothing 3 of 3 on a fresh gedit; 0.3 s later, it saved).
#: Gecko apps (Firefox, Thunderbird) open GTK's own file chooser, whose location entry completes
#: the same way (Thunderbird's Attach: a path set, then Return, attached nothing 3 of 3).
ENTRY_COMPLETION_S: Final = {"gtk": 0.17, "gecko": 0.17}
#: Toolkits whose ping is answered off the thread that runs queued input and accessible actions,
#: so a round trip also goes through that thread (``loop``): Swing through java-atk-wrapper
#: (``ToolkitName`` ``J2SE-access-bridge``).
LOOP_TOOLKITS: Final = ("j2se",)
#: The barrier never waits longer than this (nor past the call's deadline).
BARRIER_CAP_S: Final = 2.0
#: What a result says when the barrier could not tell the app had handled the action before it.
UNSETTLED: Final = (
    "the app had not confirmed it handled the previous action when this one was sent "
    "(it did not answer in time); observe the app to see what both did"
)


@dataclass(frozen=True, slots=True)
class Wait:
    """What to wait for before the next action (module docstring); ``none`` waits for nothing."""

    processed: bool = False
    after_s: float = 0.0
    quiet: bool = False
    loop: bool = False
    refocus: bool = False
    cap_s: float = BARRIER_CAP_S

    @property
    def none(self) -> bool:
        return not self.processed and self.after_s <= 0 and not self.quiet and not self.loop and not self.refocus


def before(previous: Sent | None, *, next_is_input: bool, toolkit: str) -> Wait:
    """The wait before the next action (input events when ``next_is_input``), after ``previous``
    (None: nothing was sent since the last observation, or since the barrier last held); every
    round trip also goes through the action thread of a toolkit in ``LOOP_TOOLKITS``."""
    wait = _before(previous, next_is_input=next_is_input, toolkit=toolkit)
    if wait.processed and toolkit.startswith(LOOP_TOOLKITS):
        return replace(wait, loop=True)
    return wait


def _before(previous: Sent | None, *, next_is_input: bool, toolkit: str) -> Wait:
    if previous is None:
        return Wait()
    if previous == "keys":
        return Wait(processed=True, refocus=True)
    if previous == "input":
        # the X server and the app keep input in order; a D-Bus call does not wait behind it
        return Wait() if next_is_input else Wait(processed=True)
    if previous == "a11y_edit":
        return Wait(processed=True)
    if previous in ("a11y_entry", "typed_entry"):
        return Wait(processed=True, after_s=_by_toolkit(ENTRY_COMPLETION_S, toolkit), quiet=True)
    return Wait(processed=True, after_s=_by_toolkit(DEFERRED_ACTION_S, toolkit), quiet=True)


#: A text longer than this goes in chunks whatever the field (one round trip a key would make
#: a long text slow where a field's states say less than they should).
PACED_KEYS_MAX: Final = 256


def keys_per_burst(field: Field, keys: int, chunk: int) -> int:
    """How many of ``keys`` typed keys go in one burst before the app is asked to answer for them
    (module docstring): one into a single-line field (up to ``PACED_KEYS_MAX`` keys), else ``chunk``."""
    return 1 if field == "line" and keys <= PACED_KEYS_MAX else chunk


def _by_toolkit(table: dict[str, float], toolkit: str) -> float:
    return next((s for name, s in table.items() if toolkit.startswith(name)), 0.0)


#: At most this many earlier calls are named in a refusal (the last ones).
NAMED_CALLS: Final = 8


def refused_after(message: str, calls: list[str], refused: str | None = None) -> str:
    """A refusal before dispatch (of ``refused``, described) after ``calls`` (short descriptions,
    oldest first) went out since the app was last observed: the message names what was not sent,
    and what was, after its own text."""
    head = message if refused is None else f"{message} Not sent: {refused}."
    if not calls:
        return head
    named, one = calls[-NAMED_CALLS:], len(calls) == 1
    more = f"{len(calls) - len(named)} earlier calls and " if len(calls) > len(named) else ""
    return (
        f"{head} Before it, since the app was last observed, {more}{', '.join(named)} "
        f"{'was' if one else 'were'} sent; observe the app to see what {'it' if one else 'they'} did."
    )
