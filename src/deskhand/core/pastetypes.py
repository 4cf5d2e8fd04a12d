"""What one paste is made of (``core.paste``): the payload it offers, the three small
interfaces a backend supplies (:class:`Clipboard`, :class:`PasteTarget`, :class:`Clock`, and the
optional :class:`WatchedTarget`), and the receipt that says what happened.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from deskhand.core.errors import NativeError
from deskhand.core.markup import HTML_MIME, PLAIN_MIME, representations

#: Target names that answer to each offered representation (X11 atoms, MIME types, macOS UTIs).
TARGET_ALIASES: Final[Mapping[str, tuple[str, ...]]] = {
    PLAIN_MIME: (PLAIN_MIME, "text/plain;charset=UTF-8", "text/plain", "UTF8_STRING", "TEXT", "STRING",
                 "public.utf8-plain-text"),
    HTML_MIME: (HTML_MIME, "text/html;charset=utf-8", "public.html"),
}  # fmt: skip

#: Requests that ask about the selection rather than for its data; never a read.
META_TARGETS: Final = frozenset({"TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE"})

#: The text of a completed paste's receipt (sdk-contract.md 6.3); the caller is told the outcome.
COMPLETED_TEXT: Final = "Paste content was read; inspect the app to confirm the inserted content."


@dataclass(frozen=True, slots=True)
class PastePayload:
    """The representations one paste offers, ``(mime type, bytes)`` richest first."""

    text: str
    fmt: str
    representations: tuple[tuple[str, bytes], ...]

    @classmethod
    def build(cls, text: str, fmt: str) -> PastePayload:
        """``text``/``md``/``html`` as in :func:`deskhand.core.markup.representations`."""
        return cls(text, fmt, representations(text, fmt))

    @property
    def targets(self) -> tuple[str, ...]:
        """Every data target name the clipboard owner should advertise (besides the meta targets)."""
        return tuple(alias for mime, _ in self.representations for alias in TARGET_ALIASES.get(mime, (mime,)))

    def data_for(self, target: str) -> bytes | None:
        """The bytes that answer a request for ``target``; None for meta or unknown targets."""
        for mime, data in self.representations:
            if target in TARGET_ALIASES.get(mime, (mime,)):
                if target == "STRING":  # ICCCM: STRING is Latin-1
                    return data.decode().encode("latin-1", "replace")
                return data
        return None

    def is_read(self, target: str) -> bool:
        """Whether a request for ``target`` counts as the paste being read (data, not TARGETS)."""
        return target not in META_TARGETS and self.data_for(target) is not None


class Clipboard(Protocol):
    """The system clipboard as one paste sees it. All methods are quick and never block on the target.

    The owner must serve requests from its own thread (linux-stack.md section 4: serving from the thread
    that waits on the target can deadlock).
    """

    def snapshot(self) -> object:
        """Capture every target's bytes of the current owner. Raises ``clipboard_snapshot_failed``."""
        ...

    def own(self, payload: PastePayload) -> object:
        """Take ownership and serve ``payload`` lazily; return a token for this ownership.

        Raises ``clipboard_write_failed``.
        """
        ...

    def still_owner(self, token: object) -> bool:
        """True while nobody else has taken the clipboard since ``own`` returned ``token``."""
        ...

    def data_requests_since(self, token: object) -> Sequence[str]:
        """Every target name requested from us since ``own`` (``TARGETS`` included), in order.

        The transaction decides which of them are reads.
        """
        ...

    def restore(self, snapshot: object) -> None:
        """Serve ``snapshot`` again. Called only while we still own the clipboard."""
        ...


class PasteTarget(Protocol):
    """The focused text element of the target app, and the key burst that pastes into it."""

    def baseline(self) -> Mapping[str, object]:
        """Current values the element supports, e.g. ``{"caret": 4, "characters": 12}``; ``{}`` if none."""
        ...

    def subscribe(self) -> bool:
        """Subscribe to the element's text-changed and caret-moved events; True if any subscription holds."""
        ...

    def event_count(self) -> int:
        """Events received since :meth:`subscribe`."""
        ...

    def read(self, keys: Collection[str]) -> Mapping[str, object] | None:
        """Re-read the baseline keys; None (or missing keys) when a read fails."""
        ...

    def send_paste_keys(self) -> None:
        """Post the paste chord once (ctrl+v on Linux), validating the target's identity right before."""
        ...

    def close(self) -> None:
        """Drop the subscriptions."""
        ...


@runtime_checkable
class WatchedTarget(Protocol):
    """A :class:`PasteTarget` that also watches the document around the element (module docstring)."""

    def seen(self) -> Sequence[tuple[str, str]]:
        """What was seen since the read began, as ``(evidence kind, detail)``; quick, never blocks long."""
        ...

    def mark_read(self) -> None:
        """The paste content was read: what is seen from now on counts."""
        ...


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds."""
        ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real monotonic clock."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@dataclass(slots=True)
class PasteReceipt:
    """What happened; ``status`` is ``completed``, ``cancelled`` or an error code."""

    status: str = "completed"
    paste_posted: bool = False
    data_requested: bool = False
    data_supplied: bool = False
    #: Kept for parity with the macOS provider's "finished" callback; X11 has none.
    provider_finished: bool = False
    read_elapsed_ms: float = 0.0
    elapsed_ms: float = 0.0
    owned_before_restore: bool = False
    restored: bool = False
    has_signals: bool = False
    effect_observed: bool = False
    #: what showed the effect, ``(evidence kind, detail)`` (module docstring)
    evidence: tuple[tuple[str, str], ...] = ()
    message: str = COMPLETED_TEXT

    @property
    def ok(self) -> bool:
        return self.status == "completed"

    def to_json(self) -> dict[str, object]:
        """The contract's diagnostic fields (native-contract.md 6.10)."""
        return {
            "status": self.status,
            "pastePosted": self.paste_posted,
            "dataRequested": self.data_requested,
            "dataSupplied": self.data_supplied,
            "providerFinished": self.provider_finished,
            "readElapsedMilliseconds": round(self.read_elapsed_ms, 3),
            "elapsedMilliseconds": round(self.elapsed_ms, 3),
            "ownedBeforeRestore": self.owned_before_restore,
            "restored": self.restored,
        }

    def summary(self, effect: str | None = None) -> dict[str, object]:
        """The SDK's structured result (sdk-contract.md 6.3).

        Seed 2's reference has nothing that shows where the text went, so its paste says
        ``verified: false, effect: "unverifiable"`` once posted, and that is what a backend without
        an outcome of its own reports (macOS). A backend that judged the paste (Linux: a length read
        back, the target's text signals) passes its outcome's ``effect``, and ``verified`` and
        ``effect`` then say the same: ``verified: true, effect: "confirmed"`` when the text was seen
        to arrive. An agent is never told two things."""
        if not self.paste_posted:
            effect = "refused"
        elif effect is None:
            effect = "unverifiable"
        return {
            "path": "clipboard_paste",
            "dispatched": self.paste_posted,
            "clipboard_consumed": self.data_supplied,
            "ax_effect_observed": self.effect_observed,
            "clipboard_restored": self.restored,
            "external_clipboard_preserved": self.paste_posted and not self.owned_before_restore,
            "verified": effect == "confirmed",
            "effect": effect,
        }

    def error(self) -> NativeError | None:
        """The error to raise for a receipt that did not complete, with the dispatch state it implies."""
        if self.ok:
            return None
        dispatched = True if self.paste_posted else (False if self.status == "cancelled" else None)
        return NativeError(self.status, self.message, dispatched=dispatched, details=self.to_json())
