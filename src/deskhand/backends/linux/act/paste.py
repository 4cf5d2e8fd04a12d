"""The core paste transaction on Linux: the display server's clipboard and the focused AT-SPI text element.

``deskhand.core.paste`` decides everything (order, timeouts, what counts as a read, restore rules);
this module supplies its three small interfaces on Linux:

* ``X11Clipboard`` (Wayland's is ``wayland._clipserver.ClipboardServer``): snapshot of every
  target of the current owner, ownership served from the owner thread
  (``x11.clipboard.owner.ClipboardOwner``), restore only while we still own the selection;
* ``AtspiPasteTarget``: the focused element's ``CharacterCount`` as the baseline (re-read through
  AT-SPI), its ``object:text-changed`` events (``TextEvents``, counted on a second bus connection;
  caret moves are no sign of a paste), and ctrl+v posted through the actor's gates;
* the core's ``SystemClock``.

``AtspiPasteTarget`` is also a ``core.paste.WatchedTarget``: the text often goes elsewhere than
the element focused before (Writer makes new paragraph objects for a rich paste, Chromium's
events come from the field's editable root), so after the read it also counts text-changed
events from anywhere in the app and children-changed events from the focused
element's ancestors (its document and frame), reads back the element focused now (its text
changed, or it is a new element holding a line of what was pasted), and the frame's name (the
window title's modified mark, ``*Untitled 1 - Mousepad``).

What it needs from the actor is ``PasteSeam`` (``act.keys.Typing`` supplies it).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Final, Protocol, cast

from jeepney.bus_messages import MatchRule, message_bus
from jeepney.io.blocking import DBusConnection
from jeepney.low_level import MessageType

from deskhand.backends.base import ActionResult, PasteFormat, RunningApp
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.enums import Role
from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner, Item, Snapshot
from deskhand.core import deadline as call_deadline
from deskhand.core import effects
from deskhand.core.errors import NativeError
from deskhand.core.paste import READ_TIMEOUT_S, Clipboard, PastePayload, PasteReceipt, PasteTransaction
from deskhand.dbusconn import open_bus

__all__ = ("AtspiPasteTarget", "PasteSeam", "TextEvents", "X11Clipboard", "paste_into")

EVENT_INTERFACE: Final = "org.a11y.atspi.Event.Object"
#: AT-SPI event names (registered with the registry) and their D-Bus signal members.
TEXT_EVENTS: Final = {"object:text-changed": "TextChanged", "object:text-caret-moved": "TextCaretMoved"}
#: Events of the document around the element (``AtspiPasteTarget`` as a watched target).
DOCUMENT_EVENTS: Final = {**TEXT_EVENTS, "object:children-changed": "ChildrenChanged"}
#: How far up from the focused element the document's ancestors are collected.
ANCESTOR_HOPS: Final = 12
#: The read-back of the focused element is at most this often (it takes a tree walk).
READBACK_EVERY_S: Final = 0.2
#: The target stage's deadline on Linux (the contract's is the read timeout, 2 s): a browser reads
#: the clipboard in its own process and its page's process inserts the text, which a loaded
#: machine took over 2 s to show (a false ``clipboard_target_timeout`` invites a second paste).
TARGET_TIMEOUT_S: Final = 5.0
#: A pasted line is looked for in a new focused element only when it is at least this long.
MIN_LINE_CHARS: Final = 3
_MARKUP_MARKS = "#*_`>-+ \t"

#: The type atom each served target carries (ICCCM: STRING is Latin-1, the rest UTF-8).
_TYPES = {"STRING": "STRING", "TEXT": "UTF8_STRING"}


class PasteSeam(Protocol):
    """What the paste needs from the actor: the bus, the app's focused text, the clipboard, ctrl+v.

    X11 (``act.keys.Typing``) and Wayland (``act.wl_actor``) each supply it."""

    @property
    def a11y(self) -> A11y: ...
    @property
    def a11y_address(self) -> str: ...
    def register_events(self, names: Iterable[str]) -> None: ...
    def focused_text(self, app: RunningApp) -> Ref | None: ...
    def focused_after_input(self, app: RunningApp, window: int) -> Ref | None: ...
    def paste_clipboard(self) -> Clipboard:
        """The display server's clipboard as the core's transaction uses it (its owner serves it
        from a thread of its own; a restored clipboard stays served after the call)."""
        ...

    def post_chord(self, app: RunningApp, window: int, key: str) -> None: ...


class X11Clipboard:
    """``core.paste.Clipboard`` over a ``ClipboardOwner``; tokens are ownership generations."""

    def __init__(self, owner: ClipboardOwner) -> None:
        self._owner = owner
        self._token = 0

    def snapshot(self) -> object:
        return self._owner.snapshot()

    def own(self, payload: PastePayload) -> object:
        items: dict[str, Item] = {}
        for target in payload.targets:
            data = payload.data_for(target)
            if data is not None:
                items[target] = Item(_TYPES.get(target, target), 8, data)
        self._token = self._owner.own(items)
        return self._token

    def still_owner(self, token: object) -> bool:
        return self._owner.owns and self._owner.generation == token

    def data_requests_since(self, token: object) -> Sequence[str]:
        return self._owner.requests() if self._owner.generation == token else []

    def restore(self, snapshot: object) -> None:
        if not isinstance(snapshot, Snapshot):
            msg = f"restore needs the snapshot this clipboard took, not {type(snapshot).__name__}"
            raise TypeError(msg)
        self._owner.restore(snapshot, self._token)


class AtspiPasteTarget:
    """``core.paste.PasteTarget`` and ``WatchedTarget``: the app's focused text element, the document
    around it, and the actor's ctrl+v (module docstring)."""

    def __init__(self, actor: PasteSeam, app: RunningApp, window: int, ref: Ref | None, text: str = "") -> None:
        self._actor = actor
        self._app = app
        self._window = window
        self._ref = ref
        self._lines = _pasted_lines(text)
        self._events: TextEvents | None = None
        self._frame: Ref | None = None
        self._title: str | None = None
        self._text: str | None = None
        self._doc_at_read = 0
        self._next_readback = 0.0

    def baseline(self) -> Mapping[str, object]:
        got = self.read(("characters",))
        if self._ref is not None:
            self._text = self._actor.a11y.text(self._ref)
        return {k: v for k, v in (got or {}).items() if v is not None}

    def subscribe(self) -> bool:
        """Watch the element and its document; True only when the element has text to signal with:
        one without the Text interface (jEdit's text area is a bare panel) never sends an editing
        event, and waiting for one would fail a paste that landed (the document's events, the
        title and the read-back still count as the watched target's evidence)."""
        if self._ref is None:
            return False
        scope = self._ancestors(self._ref)
        try:
            self._actor.register_events(DOCUMENT_EVENTS)
            self._events = TextEvents(self._actor.a11y_address, self._ref, scope)
        except (OSError, ConnectionError, TimeoutError):
            return False
        return "org.a11y.atspi.Text" in self._actor.a11y.interfaces(self._ref)

    def _ancestors(self, ref: Ref) -> frozenset[str]:
        """The element's ancestors' paths up to the app; remembers the last one (the frame) and its name."""
        a11y = self._actor.a11y
        paths = {ref.path}
        node: Ref | None = ref
        for _ in range(ANCESTOR_HOPS):
            parent = a11y.parent(node) if node is not None else None
            if parent is None or parent.path in paths or a11y.role(parent) == Role.APPLICATION:
                break
            paths.add(parent.path)
            node = parent
        if node is not None and node != ref:
            self._frame = node
            self._title = a11y.name(node)
        return frozenset(paths)

    def event_count(self) -> int:
        return self._events.count() if self._events is not None else 0

    def read(self, keys: Collection[str]) -> Mapping[str, object] | None:
        if self._ref is None:
            return None
        a11y = self._actor.a11y
        out: dict[str, object] = {}
        if "characters" in keys:
            count = a11y.character_count(self._ref)
            if count is not None:
                out["characters"] = count
        return out

    # -- the watched target -------------------------------------------------------------------
    def mark_read(self) -> None:
        self._doc_at_read = self._events.document_count() if self._events is not None else 0
        self._next_readback = time.monotonic() + READBACK_EVERY_S / 4

    def seen(self) -> Sequence[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self._events is not None:
            n = self._events.document_count() - self._doc_at_read
            if n > 0:
                out.append(("text_signal", f"{n} text or children event(s) from the focused document"))
        if self._frame is not None and self._title is not None:
            title = self._actor.a11y.name(self._frame)
            if title is not None and title != self._title:
                out.append(("window_change", f"the window title changed to {title!r}"))
        if not out and time.monotonic() >= self._next_readback:
            self._next_readback = time.monotonic() + READBACK_EVERY_S
            found = self._readback()
            if found is not None:
                out.append(("value_readback", found))
        return out

    def _readback(self) -> str | None:
        """The element focused now: the same one reads differently, or a new one holds a pasted line."""
        a11y = self._actor.a11y
        now = self._actor.focused_text(self._app)
        if now is None:
            return None
        text = a11y.text(now)
        if text is None:
            return None
        if now == self._ref:
            return "the focused element's text changed" if self._text is not None and text != self._text else None
        if any(line in text for line in self._lines):
            return "the element focused now holds a pasted line"
        return None

    def send_paste_keys(self) -> None:
        self._actor.post_chord(self._app, self._window, "ctrl+v")

    def close(self) -> None:
        if self._events is not None:
            self._events.close()
            self._events = None


def _pasted_lines(text: str) -> tuple[str, ...]:
    """Lines of what was pasted as they can read in the app: markdown's marks stripped at both ends."""
    lines = (line.strip(_MARKUP_MARKS) for line in text.splitlines())
    return tuple(line for line in lines if len(line) >= MIN_LINE_CHARS)


class TextEvents:
    """Counts the app's text-changed and children-changed events on a second bus connection.

    atk-bridge emits an event only while some client has registered for it with the registry, so
    they are registered (``PasteSeam.register_events``, once per actor; an app learns of it
    asynchronously, so the first paste after that may see no events and rely on the baseline
    values alone). Matching is by sender (the app's bus name). ``count`` is the focused
    element's own text-changed events (the contract's signals); ``document_count`` is every
    text-changed event of the app and the children events of the element's ancestors (``scope``).
    Caret moves are received but never counted: the click that focused the field moves the caret
    too, and its event can come after the clipboard read (Chromium), so a caret event is no sign
    that the text arrived.
    """

    def __init__(self, address: str, ref: Ref, scope: Collection[str] = ()) -> None:
        self._ref = ref
        self._scope = frozenset(scope) | {ref.path}
        self._seen = 0
        self._document = 0
        self._conn: DBusConnection = open_bus(bus=address)
        try:
            for member in DOCUMENT_EVENTS.values():
                rule = MatchRule(type="signal", sender=ref.bus, interface=EVENT_INTERFACE, member=member)
                self._conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=2.0)
        except BaseException:
            self._conn.close()
            raise

    def _drain(self) -> None:
        while True:
            try:
                msg = self._conn.receive(timeout=0)
            except TimeoutError:
                return
            h = msg.header
            if h.message_type != MessageType.signal:
                continue
            member, path = h.fields.get(3), h.fields.get(1)  # MEMBER, PATH
            if member == TEXT_EVENTS["object:text-changed"]:
                self._document += 1
                if path == self._ref.path:
                    self._seen += 1
            elif member == DOCUMENT_EVENTS["object:children-changed"] and path in self._scope:
                self._document += 1

    def count(self) -> int:
        """The element's own signals received so far (reads what is waiting, never blocks)."""
        self._drain()
        return self._seen

    def document_count(self) -> int:
        """The document's signals received so far (``count``'s and the rest; never blocks)."""
        self._drain()
        return self._document

    def close(self) -> None:
        self._conn.close()


def paste_into(actor: PasteSeam, app: RunningApp, window: int, text: str, fmt: PasteFormat) -> ActionResult:
    """Run one paste transaction into the app's focused element; raise its error if it failed."""
    payload = PastePayload.build(text, fmt)
    # the focus the input before the paste produced (a click on a field, ctrl+l), not the last one
    target = AtspiPasteTarget(actor, app, window, actor.focused_after_input(app, window), text)
    # the read and target windows never outlast the call's deadline (a js cell's timeout_ms)
    timeout_s = max(0.05, call_deadline.bound(READ_TIMEOUT_S))
    target_s = max(0.05, call_deadline.bound(TARGET_TIMEOUT_S))
    clipboard = actor.paste_clipboard()
    receipt = PasteTransaction(payload, clipboard, target, timeout_s=timeout_s, target_timeout_s=target_s).run()
    error = receipt.error()
    if error is not None:
        if not receipt.paste_posted:
            error.dispatched = False  # nothing was posted: the refusal is before dispatch
        elif not receipt.data_supplied:
            # ctrl+v is in the app's queue, unread: a busy or stopped app pastes when it wakes
            late = (
                f"{error.message} The app has not processed the ctrl+v yet: when it does (a busy or "
                "stopped app, once it runs again) it pastes whatever the clipboard holds then, which is "
                "the user's restored clipboard, not this text. Observe the app before pasting again."
            )
            raise NativeError(error.code, late, dispatched=error.dispatched, details=error.details)
        raise error
    judged = outcome(receipt, text)  # the seed's verified/effect fields say what the outcome says
    return ActionResult({**receipt.summary(judged.effect), "receipt": receipt.to_json()}, judged)


def outcome(receipt: PasteReceipt, text: str) -> effects.Outcome:
    """The completed paste as the caller is told it: confirmed only by what showed the effect."""
    seen = [effects.Evidence("event_receipt", "the app read the paste content from the clipboard")]
    seen += [effects.Evidence(cast("effects.EvidenceKind", kind), detail) for kind, detail in receipt.evidence]
    return effects.judge("clipboard_paste", seen, length=len(text))
