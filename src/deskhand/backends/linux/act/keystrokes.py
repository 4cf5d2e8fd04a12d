"""Keystrokes on X11: key bursts through XTest with temporary keycodes, confirmed by pings.

``Keystrokes`` posts keysyms (``post_keysyms``) for ``act.keys.Typing``: each burst after the
session's gate (``act.session``), each keysym through its keycode, or a temporary keycode leased
for it (``x11.keymap``) when the keymap has none, with its modifiers held around it.

Temporary keycodes. After a burst that used some, ``Keystrokes`` pings the window and empties
them once the app answers, usually before the call returns. A keycode is never emptied or bound
to another character before the app answered a ping sent after the last burst that used it: the
app resolves a keycode when it processes the event, so it would type the wrong character.
Without an answer within ``PING_TIMEOUT_S`` (a busy app, or a window without ``_NET_WM_PING`` in
``WM_PROTOCOLS``) the keycodes stay bound: a later burst typing the same character reuses them, a
later call empties the ones whose answer has come in by then, and a burst short of free keycodes
waits for those answers up to ``PING_TIMEOUT_S`` and otherwise fails before posting
(``type_text`` then pastes). ``release_keycodes`` (the actor's close) empties whatever is left.

``confirm_input`` waits (one ping) until the app has processed the input posted so far. A long
text goes in chunks of ``CHUNK_STROKES``, each once the app answered for the one before: a slow
app is never buried under keys, and the count a deadline reports ("Typed N of M") is what the app
has read; an app that leaves a ping unanswered gets the rest without waits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from functools import partial
from typing import Final

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.act.session import LinuxSession, not_dispatched
from deskhand.backends.linux.x11.keymap import Keymap, Lease, Stroke
from deskhand.core import deadline as call_deadline
from deskhand.core.errors import NativeError

__all__ = ("CHUNK_STROKES", "PING_TIMEOUT_S", "Keystrokes", "Plan")

PING_TIMEOUT_S: Final = 1.0  # the wait for a ping's answer (module docstring)
#: Keys per burst at most: between bursts a long text checks the call's deadline.
CHUNK_STROKES: Final = 200

#: Chords to post: (modifier keysyms, keysym) each.
Plan = Sequence[tuple[tuple[int, ...], int]]


class Keystrokes:
    """Key bursts and the temporary keycodes they lease, for one session (the caller holds
    ``session.lock``)."""

    def __init__(self, session: LinuxSession) -> None:
        self._s = session
        self.keymap = Keymap(session.d)
        #: temporary keycode -> the ping sent after the last burst that used it (None: no ping)
        self._keys_unconfirmed: dict[int, int | None] = {}
        #: the last ``confirm_input`` sent a ping the app did not answer in time
        self.unanswered = False

    def release_keycodes(self) -> None:
        """Empty every temporary keycode left, waiting up to ``PING_TIMEOUT_S`` for answers."""
        if self.keymap.temporary:
            self.reclaim(wait=True)
            # the actor goes away: leave the server's keymap as it was, answered or not
            self.keymap.restore(list(self.keymap.temporary))

    def post_keysyms(self, app: RunningApp, window: int, plan: Plan, *, burst: int = CHUNK_STROKES) -> None:
        """Post chords as one burst per group of at most ``burst`` keys whose distinct keysyms fit
        the temporary keycodes, each group once the app answered for the one before."""
        keymap = self.keymap
        limit = max(1, len(keymap.spare) + len(keymap.temporary))
        groups: list[list[tuple[tuple[int, ...], int]]] = [[]]
        missing: set[int] = set()
        # once per distinct keysym: a long text repeats a few dozen of them
        needs = {k: bool(keymap.missing([k])) for k in dict.fromkeys(k for _, k in plan)}
        for mods, keysym in plan:
            if len(groups[-1]) >= burst:  # a long text goes in chunks (deadline checks)
                groups.append([])
                missing = set()
            if keysym not in missing and needs[keysym]:
                if len(missing) == limit:
                    groups.append([])
                    missing = set()
                missing.add(keysym)
            groups[-1].append((mods, keysym))
        done = 0
        waits = True  # until the app leaves a ping unanswered: then the rest goes without waits
        for i, group in enumerate(groups):
            if i > 0 and call_deadline.expired():
                msg = (
                    f"Typed {done} of {len(plan)} keys; the call's deadline (the cell's timeout_ms) passed, "
                    "so the rest was not typed. Observe the app before typing the rest."
                )
                raise NativeError("cancelled", msg, dispatched=True, details={"typed": done, "total": len(plan)})
            try:
                self._s.gate(app, window)
            except NativeError as err:
                if i > 0:  # part of the text went out before this gate refused the rest
                    err.dispatched = True
                    err.details = {**err.details, "typed": done, "total": len(plan)}
                raise
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
                self._s.post([step for s in strokes for step in self._stroke_steps(s)])
            finally:
                if lease.bound:
                    self._settle(window, lease)
            done += len(group)
            if i + 1 < len(groups) and waits:  # keys keep pace with the app: "typed" is what it read
                self.confirm_input(window)
                waits = not self.unanswered

    def confirm_input(self, window: int) -> bool:
        """Wait until the app has processed the input posted so far (one ping; none when nothing
        was posted since the last answer). True when it answered now; without an answer in time
        the caller goes on."""
        if not self._s.input_unconfirmed:
            return False
        ping = self._s.pinger()
        token = ping.send(window)
        answered = ping.answered(token, PING_TIMEOUT_S)
        if answered:
            self._s.input_unconfirmed = False
        self.unanswered = token is not None and not answered
        ping.forget(token)
        return answered

    # -- strokes ------------------------------------------------------------------------------
    def _stroke(self, mods: tuple[int, ...], keysym: int, lease: Lease) -> Stroke:
        stroke = self.keymap.stroke(keysym, (), lease)
        held = list(stroke.modifiers)
        for m in mods:
            found = self.keymap.find(m)
            if found is None:
                raise not_dispatched("unknown_key", "A modifier has no key on this keymap.")
            if found[0] not in held:
                held.insert(0, found[0])
        return Stroke(stroke.keycode, tuple(held))

    def _stroke_steps(self, s: Stroke) -> list[Callable[[], None]]:
        inp = self._s.input
        steps: list[Callable[[], None]] = [partial(inp.key_down, m) for m in s.modifiers]
        steps.append(partial(inp.key_down, s.keycode))
        steps.append(partial(inp.key_up, s.keycode))
        steps.extend(partial(inp.key_up, m) for m in reversed(s.modifiers))
        return steps

    # -- keycode leases -----------------------------------------------------------------------
    def _lease(self, keysyms: Sequence[int]) -> Lease:
        """Temporary keycodes for a burst: first empty those the app has confirmed (see the module
        docstring), and when too few keycodes are free, wait for the other confirmations."""
        if self.keymap.temporary:
            needed = set(self.keymap.missing(keysyms))
            self.reclaim(keep=needed)
            short = len(needed - set(self.keymap.temporary.values())) > len(self.keymap.spare)
            if short:
                self.reclaim(keep=needed, wait=True)
        return self.keymap.lease(keysyms)

    def reclaim(self, *, keep: Collection[int] = (), wait: bool = False) -> None:
        """Empty the temporary keycodes whose last burst the app confirmed, except those bound to
        ``keep``. With ``wait``, wait up to ``PING_TIMEOUT_S`` for the missing answers."""
        ping = self._s.pinger()
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
        ping = self._s.pinger()
        token = ping.send(window)
        for keycode in lease.bound.values():
            self._keys_unconfirmed[keycode] = token
        if ping.answered(token, PING_TIMEOUT_S):
            self._s.input_unconfirmed = False
            done = [k for k, t in self._keys_unconfirmed.items() if t == token]
            for keycode in done:
                del self._keys_unconfirmed[keycode]
            self.keymap.restore(done)
        self._forget_unused_pings()

    def _forget_unused_pings(self) -> None:
        ping = self._s.ping
        if ping is None:
            return
        live = set(self._keys_unconfirmed.values())
        for token in list(ping.outstanding):
            if token not in live:
                ping.forget(token)
