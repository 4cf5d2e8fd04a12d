"""The core paste transaction on X11: the CLIPBOARD owner thread and the focused AT-SPI text element.

``deskhand.core.paste`` decides everything (order, timeouts, what counts as a read, restore rules);
this module supplies its three small interfaces on Linux:

* ``X11Clipboard``: snapshot of every target of the current owner, ownership served from the
  owner thread (``_clipboard.ClipboardOwner``), restore only while we still own the selection;
* ``AtspiPasteTarget``: the focused element's ``CharacterCount`` and ``CaretOffset`` as the baseline
  (re-read through AT-SPI), its ``object:text-changed`` and ``object:text-caret-moved`` events
  (``TextEvents``, counted on a second bus connection), and ctrl+v posted through the actor's gates;
* the core's ``SystemClock``.

What it needs from the actor is ``PasteSeam`` (``_typing.Typing`` supplies it).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Final, Protocol

from jeepney.bus_messages import MatchRule, message_bus
from jeepney.io.blocking import DBusConnection, open_dbus_connection
from jeepney.low_level import MessageType

from deskhand.backends.base import ActionResult, PasteFormat, RunningApp
from deskhand.backends.linux._a11y_act import A11y, Ref
from deskhand.backends.linux._clipboard import ClipboardOwner, Item, Snapshot
from deskhand.core.paste import PastePayload, PasteTransaction

__all__ = ("AtspiPasteTarget", "PasteSeam", "TextEvents", "X11Clipboard", "paste_into")

EVENT_INTERFACE: Final = "org.a11y.atspi.Event.Object"
#: AT-SPI event names (registered with the registry) and their D-Bus signal members.
TEXT_EVENTS: Final = {"object:text-changed": "TextChanged", "object:text-caret-moved": "TextCaretMoved"}

#: The type atom each served target carries (ICCCM: STRING is Latin-1, the rest UTF-8).
_TYPES = {"STRING": "STRING", "TEXT": "UTF8_STRING"}


class PasteSeam(Protocol):
    """What the paste needs from the actor: the bus, the app's focused text, the owner, ctrl+v."""

    @property
    def a11y(self) -> A11y: ...
    @property
    def a11y_address(self) -> str: ...
    def register_events(self, names: Iterable[str]) -> None: ...
    def focused_text(self, app: RunningApp) -> Ref | None: ...
    def clipboard(self) -> ClipboardOwner: ...
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
    """``core.paste.PasteTarget``: the app's focused text element and the actor's ctrl+v."""

    def __init__(self, actor: PasteSeam, app: RunningApp, window: int, ref: Ref | None) -> None:
        self._actor = actor
        self._app = app
        self._window = window
        self._ref = ref
        self._events: TextEvents | None = None

    def baseline(self) -> Mapping[str, object]:
        got = self.read(("characters", "caret"))
        return {k: v for k, v in (got or {}).items() if v is not None}

    def subscribe(self) -> bool:
        if self._ref is None:
            return False
        try:
            self._actor.register_events(TEXT_EVENTS)
            self._events = TextEvents(self._actor.a11y_address, self._ref)
        except (OSError, ConnectionError, TimeoutError):
            return False
        return True

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
        if "caret" in keys:
            caret = a11y.caret(self._ref)
            if caret is not None:
                out["caret"] = caret
        return out

    def send_paste_keys(self) -> None:
        self._actor.post_chord(self._app, self._window, "ctrl+v")

    def close(self) -> None:
        if self._events is not None:
            self._events.close()
            self._events = None


class TextEvents:
    """Counts one element's text-changed and caret-moved signals on a second bus connection.

    atk-bridge emits an event only while some client has registered for it with the registry, so
    both are registered (``PasteSeam.register_events``, once per actor; an app learns of it asynchronously, so the
    first paste after that may see no events and rely on the baseline values alone). Matching is
    by sender (the app's bus name) and object path: only the focused element's own events count.
    """

    def __init__(self, address: str, ref: Ref) -> None:
        self._ref = ref
        self._seen = 0
        self._conn: DBusConnection = open_dbus_connection(bus=address)
        try:
            for member in TEXT_EVENTS.values():
                rule = MatchRule(type="signal", sender=ref.bus, interface=EVENT_INTERFACE, member=member, path=ref.path)
                self._conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=2.0)
        except BaseException:
            self._conn.close()
            raise

    def count(self) -> int:
        """Signals received so far (reads what is waiting, never blocks)."""
        members = set(TEXT_EVENTS.values())
        while True:
            try:
                msg = self._conn.receive(timeout=0)
            except TimeoutError:
                return self._seen
            h = msg.header
            if (
                h.message_type == MessageType.signal
                and h.fields.get(3) in members  # MEMBER
                and h.fields.get(1) == self._ref.path  # PATH
            ):
                self._seen += 1

    def close(self) -> None:
        self._conn.close()


def paste_into(actor: PasteSeam, app: RunningApp, window: int, text: str, fmt: PasteFormat) -> ActionResult:
    """Run one paste transaction into the app's focused element; raise its error if it failed."""
    payload = PastePayload.build(text, fmt)
    target = AtspiPasteTarget(actor, app, window, actor.focused_text(app))
    receipt = PasteTransaction(payload, X11Clipboard(actor.clipboard()), target).run()
    error = receipt.error()
    if error is not None:
        if not receipt.paste_posted:
            error.dispatched = False  # nothing was posted: the refusal is before dispatch
        raise error
    return ActionResult(receipt.message, {**receipt.summary(), "receipt": receipt.to_json()})
