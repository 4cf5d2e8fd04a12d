"""The paste transaction: a platform-neutral state machine (native-contract.md 6.10, sdk-contract.md 6.3).

One paste, in order:

1. already cancelled → ``cancelled``; nothing is written and nothing is posted;
2. observe the target: baseline values (its character count) and event subscriptions;
   ``has_signals`` = a non-empty baseline or at least one subscription;
3. snapshot the clipboard (``clipboard_snapshot_failed``); own it with the payload
   (``clipboard_write_failed``);
4. sleep ``PRE_PASTE_DELAY_S`` (40 ms); re-check cancellation and ownership (``clipboard_changed``,
   nothing posted); post the paste keys **once** (never re-sent);
5. read stage: until ``READ_TIMEOUT_S`` (2 s), poll every ``READ_POLL_S`` (10 ms) for a *read*: a data
   request, made after the keys were posted, for a data target the payload offers. ``TARGETS`` and other
   meta targets are not reads. Lost ownership → ``clipboard_changed``; deadline → ``clipboard_read_timeout``;
6. target stage: deadline 2 s with signals (a platform may allow more: ``target_timeout_s``), else
   ``NO_SIGNAL_WINDOW_S`` (100 ms); poll every ``TARGET_POLL_S`` (25 ms). With signals it ends early
   when a target event arrives after the read, or when every baseline value is re-read and one
   differs (a failed or partial read never counts).
   Deadline with signals → ``clipboard_target_timeout``; without signals the window elapsing is success;
7. final ownership check → ``completed``.

A target may also be a :class:`WatchedTarget` (ours, not the contract's): besides the element's
baseline it watches where the text goes (on Linux the whole focused document's signals, a
read-back of the element focused now, the window's modified mark) and says what it saw after the
read; what it saw ends the target window early as a target event does. The receipt keeps every
piece of evidence (``PasteReceipt.evidence``: kind and a line of detail, in the vocabulary of
``core.effects``), so the caller can report the paste as confirmed only when it saw the effect.

Cancellation after the keys were posted is reported only once the read and target windows have run
their course, so a late reader still gets its bytes. The original clipboard is restored, always, but
only while we still own the clipboard: if anything else was copied meanwhile, the external copy wins.
Pastes are serialized process-wide.

A backend supplies three small interfaces: :class:`Clipboard`, :class:`PasteTarget` and :class:`Clock`
(``core.pastetypes``, with the payload and the receipt).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Final

from deskhand.core.errors import DeskhandError
from deskhand.core.pastetypes import (
    COMPLETED_TEXT,
    META_TARGETS,
    TARGET_ALIASES,
    Clipboard,
    Clock,
    PastePayload,
    PasteReceipt,
    PasteTarget,
    SystemClock,
    WatchedTarget,
)

__all__ = (
    "COMPLETED_TEXT", "META_TARGETS", "NO_SIGNAL_WINDOW_S", "PRE_PASTE_DELAY_S", "READ_POLL_S", "READ_TIMEOUT_S",
    "TARGET_ALIASES", "TARGET_POLL_S", "Clipboard", "Clock", "PastePayload", "PasteReceipt", "PasteTarget",
    "PasteTransaction", "SystemClock", "WatchedTarget", "paste",
)  # fmt: skip

PRE_PASTE_DELAY_S: Final = 0.040
READ_TIMEOUT_S: Final = 2.0
READ_POLL_S: Final = 0.010
TARGET_POLL_S: Final = 0.025
NO_SIGNAL_WINDOW_S: Final = 0.100

_PASTE_QUEUE = threading.Lock()

_MESSAGES: Final[Mapping[str, str]] = {
    "clipboard_changed": "clipboard changed during paste; new clipboard was preserved",
    "clipboard_changed_before": "clipboard changed before paste dispatch; new clipboard was preserved",
    "clipboard_read_timeout": "timed out waiting for an application to read paste content",
    "clipboard_target_timeout": (
        "paste content was read, but no editing signal arrived before timeout; inspect app state before another action"
    ),
    "cancelled_before": "paste cancelled before dispatch; the clipboard was not changed",
    "cancelled": "paste cancelled after the paste keys were sent; inspect app state before another action",
    "clipboard_restore_failed": "could not restore the original clipboard",
}


class _Stop(Exception):  # noqa: N818 - internal control flow, never escapes
    def __init__(self, status: str, message_key: str | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.message_key = message_key or status


class PasteTransaction:
    """One paste of ``payload`` into ``target`` through ``clipboard``; :meth:`run` never raises."""

    def __init__(
        self,
        payload: PastePayload,
        clipboard: Clipboard,
        target: PasteTarget,
        *,
        clock: Clock | None = None,
        cancelled: Callable[[], bool] = lambda: False,
        timeout_s: float = READ_TIMEOUT_S,
        target_timeout_s: float | None = None,
    ) -> None:
        self.payload = payload
        self.clipboard = clipboard
        self.target = target
        self.clock: Clock = clock or SystemClock()
        self.cancelled = cancelled
        self.timeout_s = timeout_s
        #: the target stage's deadline with signals (``timeout_s`` unless a platform needs more)
        self.target_timeout_s = timeout_s if target_timeout_s is None else target_timeout_s
        self.receipt = PasteReceipt()
        self._start = 0.0

    def run(self) -> PasteReceipt:
        """Run the transaction once. Raises only on a bug below us (after restoring the clipboard)."""
        self._start = self.clock.now()
        if self.cancelled():
            return self._finish("cancelled", _MESSAGES["cancelled_before"])
        with _PASTE_QUEUE:
            try:
                self._observe_and_paste()
            except _Stop as stop:
                self._set_status(stop.status, _MESSAGES.get(stop.message_key, stop.status))
            except DeskhandError as err:
                self._set_status(err.code, err.message)
            finally:
                self.target.close()
        return self._finish(self.receipt.status, self.receipt.message)

    def _finish(self, status: str, message: str) -> PasteReceipt:
        self._set_status(status, message)
        self.receipt.elapsed_ms = (self.clock.now() - self._start) * 1000
        return self.receipt

    def _set_status(self, status: str, message: str) -> None:
        self.receipt.status = status
        self.receipt.message = message

    def _observe_and_paste(self) -> None:
        baseline = dict(self.target.baseline())
        subscribed = self.target.subscribe()
        self.receipt.has_signals = bool(baseline) or subscribed
        snapshot = self.clipboard.snapshot()
        token = self.clipboard.own(self.payload)
        try:
            self._paste(token, baseline)
        except _Stop as stop:
            self._set_status(stop.status, _MESSAGES.get(stop.message_key, stop.status))
        except DeskhandError as err:
            self._set_status(err.code, err.message)
        except BaseException:
            self._set_status("paste_failed", "paste failed unexpectedly")
            self._restore(token, snapshot)
            raise
        self._restore(token, snapshot)

    def _restore(self, token: object, snapshot: object) -> None:
        owned = self.clipboard.still_owner(token)
        self.receipt.owned_before_restore = owned
        if not owned:
            if self.receipt.status == "completed":
                raise _Stop("clipboard_changed")
            return
        try:
            self.clipboard.restore(snapshot)
        except DeskhandError as err:
            if self.receipt.status == "completed":
                raise _Stop("clipboard_restore_failed") from err
            self.receipt.message += f"; clipboard cleanup also failed: {err.message}"
            return
        self.receipt.restored = True

    def _paste(self, token: object, baseline: Mapping[str, object]) -> None:
        self.clock.sleep(PRE_PASTE_DELAY_S)
        if self.cancelled():
            raise _Stop("cancelled", "cancelled_before")
        if not self.clipboard.still_owner(token):
            raise _Stop("clipboard_changed", "clipboard_changed_before")
        early = len(self.clipboard.data_requests_since(token))  # readers before the keys do not count
        self.receipt.paste_posted = True  # set before sending: an error afterwards never justifies a resend
        try:
            self.target.send_paste_keys()
        except DeskhandError as err:
            self.receipt.paste_posted = err.dispatched is not False
            raise
        try:
            self._wait_for_read(token, early)
            self._wait_for_effect(token, baseline)
            if not self.clipboard.still_owner(token):
                raise _Stop("clipboard_changed")
        except _Stop as stop:
            if self.cancelled() and stop.status != "clipboard_changed":
                raise _Stop("cancelled") from None
            raise
        if self.cancelled():
            raise _Stop("cancelled")

    def _wait_for_read(self, token: object, early: int) -> None:
        start = self.clock.now()
        deadline = start + self.timeout_s
        while True:
            requests = list(self.clipboard.data_requests_since(token))[early:]
            self.receipt.data_requested = self.receipt.data_requested or bool(requests)
            if any(self.payload.is_read(t) for t in requests):
                self.receipt.data_supplied = True
                self.receipt.read_elapsed_ms = (self.clock.now() - start) * 1000
                return
            if not self.clipboard.still_owner(token):
                raise _Stop("clipboard_changed")
            if self.clock.now() >= deadline:
                self.receipt.read_elapsed_ms = (self.clock.now() - start) * 1000
                raise _Stop("clipboard_read_timeout")
            self.clock.sleep(READ_POLL_S)

    def _wait_for_effect(self, token: object, baseline: Mapping[str, object]) -> None:
        signals = self.receipt.has_signals
        events_at_read = self.target.event_count()  # events before the read never end the window
        watched = self.target if isinstance(self.target, WatchedTarget) else None
        if watched is not None:
            watched.mark_read()
        deadline = self.clock.now() + (self.target_timeout_s if signals else NO_SIGNAL_WINDOW_S)
        while True:
            if not self.clipboard.still_owner(token):
                raise _Stop("clipboard_changed")
            seen: list[tuple[str, str]] = []
            if signals:
                events = self.target.event_count() - events_at_read
                if events > 0:
                    seen.append(("text_signal", f"{events} editing event(s) from the target after the read"))
                if self._changed(baseline):
                    seen.append(("value_readback", "the focused element's length changed"))
            if watched is not None:
                seen.extend(watched.seen())
            if seen:
                self.receipt.effect_observed = True
                self.receipt.evidence = tuple(seen)
                return
            if self.clock.now() >= deadline:
                if signals:
                    raise _Stop("clipboard_target_timeout")
                return
            self.clock.sleep(TARGET_POLL_S)

    def _changed(self, baseline: Mapping[str, object]) -> bool:
        """Whether the target's length changed. A moved caret alone is no sign of a paste: the
        click that focused the field moves it too, and its event can arrive after the read."""
        if "characters" not in baseline:
            return False
        current = self.target.read(baseline.keys())
        if current is None or any(key not in current for key in baseline):
            return False  # a failed or partial read never confirms consumption
        return current["characters"] != baseline["characters"]


def paste(
    text: str,
    fmt: str,
    clipboard: Clipboard,
    target: PasteTarget,
    *,
    clock: Clock | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> PasteReceipt:
    """Run one paste transaction and return its receipt (see the module docstring)."""
    payload = PastePayload.build(text, fmt)
    return PasteTransaction(payload, clipboard, target, clock=clock, cancelled=cancelled).run()
