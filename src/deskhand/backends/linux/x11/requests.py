"""The X11 requests of the input hot path, encoded with ``struct`` and queued on python-xlib.

python-xlib builds every request through its generic field lists (``rq.Struct``), walked once per
request, and parses every reply the same way; a drag sends about twenty requests, and that was
most of the actor's own CPU time per drag. The functions here build the same bytes directly (the
unit tests compare them byte for byte with python-xlib's encoding) and hand them to the same
python-xlib connection as request objects it knows (``rq.Request``, ``rq.ReplyRequest``): serial
numbers, flushing, reply matching, events and errors stay python-xlib's. Byte order is the
client's native one, which python-xlib announces at connection setup. Only the replies' fields
the callers read are parsed.

``d`` is always a python-xlib ``Xlib.display.Display``.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable
from typing import Any, Final, NamedTuple

from Xlib.protocol import rq
from Xlib.support import lock

__all__ = ()

_FAKE_INPUT: Final = struct.Struct("=BBHBBxxIIxxxxxxxxhhxxxxxxxx")
_GET_PROPERTY: Final = struct.Struct("=BBHIIIII")
_QUERY_POINTER: Final = struct.Struct("=BxHI")
_TRANSLATE_COORDS: Final = struct.Struct("=BxHIIhh")
_GRAB_BUTTON: Final = struct.Struct("=BBHIHBBIIBxH")
_UNGRAB_BUTTON: Final = struct.Struct("=BBHIHxx")
_SEND_EVENT: Final = struct.Struct("=BBHII")
_CHANGE_EVENT_MASK: Final = struct.Struct("=BxHIII")
_CLIENT_MESSAGE_32: Final = struct.Struct("=BBHII5I")
_SELECTION_REQUEST: Final = struct.Struct("=BxHIIIIIIxxxx")
_GET_INPUT_FOCUS: Final = struct.pack("=BxH", 43, 1)
_SEQUENCE: Final = struct.Struct("=H")
_CARD32: Final = struct.Struct("=I")
_POINTER_REPLY: Final = struct.Struct("=IIhhhhH")
_TRANSLATE_REPLY: Final = struct.Struct("=Ihh")
_PROPERTY_REPLY: Final = struct.Struct("=III")

XTEST_FAKE_INPUT: Final = 2
#: ``ChangeWindowAttributes`` value-mask bit of the event mask (``CWEventMask``).
CW_EVENT_MASK: Final = 1 << 11
CLIENT_MESSAGE: Final = 33
SELECTION_REQUEST: Final = 30

ErrorHandler = Callable[[Any, Any], object]


class _Request(rq.Request):  # type: ignore[misc]
    """A request without a reply, from bytes built here (``rq.Request`` otherwise)."""

    def __init__(self, display: Any, binary: bytes, onerror: ErrorHandler | None = None) -> None:
        self._errorhandler = onerror
        self._binary = binary
        self._serial = None
        display.send_request(self, onerror is not None)


class Reply(rq.ReplyRequest):  # type: ignore[misc]
    """A request with a reply, from bytes built here; ``raw()`` waits for the reply's bytes.

    python-xlib's ``ReplyRequest`` waits and locks as usual; only the parse is left to the caller.
    """

    #: python-xlib tells a request that awaits a reply by this attribute (its reply structure)
    _reply = None

    def __init__(self, display: Any, binary: bytes) -> None:
        self._display = display
        self._binary = binary
        self._serial = None
        self._data: dict[str, Any] | None = None
        self._error = None
        self._response_lock = lock.allocate_lock()
        display.send_request(self, True)

    def _parse_response(self, data: Any) -> None:
        raw = bytes(data)
        self._response_lock.acquire()
        self._data = {"sequence_number": _SEQUENCE.unpack_from(raw, 2)[0], "raw": raw}
        self._response_lock.release()

    def raw(self) -> bytes:
        """The reply's bytes (waits for them); raises the request's X error."""
        self.reply()
        assert self._data is not None
        data: bytes = self._data["raw"]
        return data


class PointerReply(NamedTuple):
    root_x: int
    root_y: int
    child: int
    mask: int


# -- requests without a reply ------------------------------------------------------------------
def fake_input(d: Any, opcode: int, event_type: int, detail: int = 0, *, time: int = 0, x: int = 0, y: int = 0) -> None:
    """XTEST ``FakeInput`` (``opcode``: the extension's major opcode); root None: the pointer's screen."""
    _Request(d.display, _FAKE_INPUT.pack(opcode, XTEST_FAKE_INPUT, 9, event_type, detail, time, 0, x, y))


def grab_button(
    d: Any, window: int, button: int, modifiers: int, *, event_mask: int, pointer_mode: int, keyboard_mode: int,
    owner_events: bool = False, onerror: ErrorHandler | None = None,
) -> None:  # fmt: skip
    """``GrabButton`` with no confine window and no cursor."""
    binary = _GRAB_BUTTON.pack(
        28, owner_events, 6, window, event_mask, pointer_mode, keyboard_mode, 0, 0, button, modifiers
    )
    _Request(d.display, binary, onerror)


def ungrab_button(d: Any, window: int, button: int, modifiers: int, *, onerror: ErrorHandler | None = None) -> None:
    _Request(d.display, _UNGRAB_BUTTON.pack(29, button, 3, window, modifiers), onerror)


def send_event(
    d: Any, destination: int, event: bytes, event_mask: int = 0, *, onerror: ErrorHandler | None = None
) -> None:
    """``SendEvent`` of a 32-byte event (``client_message``, ``selection_request``), not propagated."""
    _Request(d.display, _SEND_EVENT.pack(25, 0, 11, destination, event_mask) + event, onerror)


def change_event_mask(d: Any, window: int, event_mask: int) -> None:
    """``ChangeWindowAttributes`` setting only this client's event mask on ``window``."""
    _Request(d.display, _CHANGE_EVENT_MASK.pack(2, 4, window, CW_EVENT_MASK, event_mask))


def client_message(window: int, message_type: int, data: tuple[int, int, int, int, int]) -> bytes:
    """A format-32 ``ClientMessage`` event."""
    return _CLIENT_MESSAGE_32.pack(CLIENT_MESSAGE, 32, 0, window, message_type, *data)


def selection_request(owner: int, requestor: int, selection: int, target: int, prop: int, *, time: int = 0) -> bytes:
    """A ``SelectionRequest`` event (``time`` 0: ``CurrentTime``)."""
    return _SELECTION_REQUEST.pack(SELECTION_REQUEST, 0, time, owner, requestor, selection, target, prop)


# -- requests with a reply ---------------------------------------------------------------------
def sync(d: Any) -> None:
    """A round trip (``GetInputFocus``, as Xlib's ``XSync``): every request before it was processed."""
    Reply(d.display, _GET_INPUT_FOCUS).raw()


def get_property(d: Any, window: int, prop: int, prop_type: int = 0, long_length: int = 1) -> Reply:
    """``GetProperty`` queued (no wait); read ``raw()`` with :func:`card32` or :func:`property_exists`."""
    return Reply(d.display, _GET_PROPERTY.pack(20, 0, 6, window, prop, prop_type, 0, long_length))


def card32(raw: bytes) -> int | None:
    """The first value of a format-32 ``GetProperty`` reply; None when the property is absent."""
    prop_type, _after, count = _PROPERTY_REPLY.unpack_from(raw, 8)
    if not prop_type or raw[1] != 32 or not count:
        return None
    return int(_CARD32.unpack_from(raw, 32)[0])


def property_value(raw: bytes) -> tuple[int, bytes | array[int], int] | None:
    """A ``GetProperty`` reply's format, value and ``bytes_after`` (what a longer read would still
    bring); the value as python-xlib gives it: bytes for format 8, an unsigned array for 16 and
    32. None when the property is absent."""
    prop_type, after, count = _PROPERTY_REPLY.unpack_from(raw, 8)
    fmt = raw[1]
    if not prop_type or fmt not in (8, 16, 32):
        return None
    if fmt == 8:
        return 8, raw[32 : 32 + count], after
    size = fmt // 8
    return fmt, array(rq.array_unsigned_codes[size], raw[32 : 32 + size * count]), after


def property_exists(raw: bytes) -> bool:
    """Whether a ``GetProperty`` reply found the property (any type)."""
    return bool(_CARD32.unpack_from(raw, 8)[0])


def query_pointer(d: Any, window: int) -> Reply:
    """``QueryPointer`` queued (no wait); read ``raw()`` with :func:`pointer`."""
    return Reply(d.display, _QUERY_POINTER.pack(38, 2, window))


def pointer(raw: bytes) -> PointerReply:
    """The root position, the child of the window asked and the button/modifier mask."""
    _root, child, root_x, root_y, _wx, _wy, mask = _POINTER_REPLY.unpack_from(raw, 8)
    return PointerReply(root_x, root_y, child, mask)


def translate_coords(d: Any, src: int, dst: int, x: int, y: int) -> Reply:
    """``TranslateCoords`` queued (no wait); read ``raw()`` with :func:`child_at`."""
    return Reply(d.display, _TRANSLATE_COORDS.pack(40, 4, src, dst, x, y))


def child_at(raw: bytes) -> int:
    """The child window at the translated point (0: none)."""
    return int(_TRANSLATE_REPLY.unpack_from(raw, 8)[0])
