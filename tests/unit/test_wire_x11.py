"""The hot-path X11 requests (``x11.requests``) are byte for byte python-xlib's, and their replies read
as python-xlib reads them. No display: python-xlib's own structures encode and parse."""

from __future__ import annotations

from typing import Any

import pytest
from Xlib import X, Xatom
from Xlib.ext import xtest
from Xlib.protocol import event, request

from deskhand.backends.linux.x11 import requests as wire


class Sent:
    """Stands in for python-xlib's protocol display: records what is queued."""

    def __init__(self) -> None:
        self.requests: list[tuple[Any, bool]] = []
        self.display = self

    def send_request(self, req: Any, wait_for_response: bool) -> None:
        self.requests.append((req, wait_for_response))

    def get_resource_class(self, _name: str) -> None:
        return None  # python-xlib's parse then keeps resource ids as numbers

    @property
    def only(self) -> bytes:
        assert len(self.requests) == 1
        return bytes(self.requests[0][0]._binary)


@pytest.mark.parametrize(
    ("event_type", "detail", "time", "x", "y"),
    [(X.MotionNotify, 0, 0, 1919, 0), (X.ButtonPress, 3, 1, -7, 12000), (X.KeyRelease, 255, 0xFFFFFFFF, 0, -32768)],
)
def test_fake_input(event_type: int, detail: int, time: int, x: int, y: int) -> None:
    d = Sent()
    wire.fake_input(d, 132, event_type, detail, time=time, x=x, y=y)
    theirs = xtest.FakeInput._request.to_binary(
        opcode=132, event_type=event_type, detail=detail, time=time, root=X.NONE, x=x, y=y
    )
    assert d.only == theirs
    assert d.requests[0][1] is False  # no reply, no error handler: not waited for


def test_grab_and_ungrab_button_keep_their_error_handler() -> None:
    d = Sent()
    catch = lambda *_a: 1  # noqa: E731
    wire.grab_button(
        d, 0x1A00007, 1, 0x10, event_mask=X.ButtonPressMask, pointer_mode=X.GrabModeAsync,
        keyboard_mode=X.GrabModeAsync, onerror=catch,
    )  # fmt: skip
    wire.ungrab_button(d, 0x1A00007, 1, 0x10, onerror=catch)
    grab = request.GrabButton._request.to_binary(
        owner_events=False, grab_window=0x1A00007, event_mask=X.ButtonPressMask, pointer_mode=X.GrabModeAsync,
        keyboard_mode=X.GrabModeAsync, confine_to=X.NONE, cursor=X.NONE, button=1, modifiers=0x10,
    )  # fmt: skip
    ungrab = request.UngrabButton._request.to_binary(button=1, grab_window=0x1A00007, modifiers=0x10)
    assert [bytes(r._binary) for r, _ in d.requests] == [grab, ungrab]
    assert all(wait for _, wait in d.requests)  # python-xlib routes their errors to the handler
    assert d.requests[0][0]._set_error(object()) == 1


def test_send_event_of_a_client_message_and_a_selection_request() -> None:
    d = Sent()
    msg = wire.client_message(0x400001, 301, (302, 77, 0x400001, 0, 0))
    theirs_msg = event.ClientMessage(window=0x400001, client_type=301, data=(32, [302, 77, 0x400001, 0, 0]))
    assert msg == theirs_msg._binary
    req = wire.selection_request(0x400001, 0x600001, 555, 555, 555)
    theirs_req = event.SelectionRequest(
        time=X.CurrentTime, owner=0x400001, requestor=0x600001, selection=555, target=555, property=555
    )
    assert req == theirs_req._binary
    wire.send_event(d, 0x400001, msg, X.SubstructureNotifyMask)
    assert d.only == request.SendEvent._request.to_binary(
        propagate=False, destination=0x400001, event_mask=X.SubstructureNotifyMask, event=theirs_msg
    )


def test_change_event_mask() -> None:
    d = Sent()
    mask = X.SubstructureNotifyMask | X.StructureNotifyMask
    wire.change_event_mask(d, 0x3B7, mask)
    assert d.only == request.ChangeWindowAttributes._request.to_binary(window=0x3B7, attrs={"event_mask": mask})


def test_requests_with_replies() -> None:
    d = Sent()
    wire.get_property(d, 0x3B7, 312, Xatom.CARDINAL)
    wire.query_pointer(d, 0x3B7)
    wire.translate_coords(d, 0x3B7, 0x3B7, -3, 700)
    ours = [bytes(r._binary) for r, _ in d.requests]
    assert ours == [
        request.GetProperty._request.to_binary(
            delete=False, window=0x3B7, property=312, type=Xatom.CARDINAL, long_offset=0, long_length=1
        ),
        request.QueryPointer._request.to_binary(window=0x3B7),
        request.TranslateCoords._request.to_binary(src_wid=0x3B7, dst_wid=0x3B7, src_x=-3, src_y=700),
    ]
    assert all(wait for _, wait in d.requests)
    assert request.GetInputFocus._request.to_binary() == wire._GET_INPUT_FOCUS


def _reply(cls: Any, **fields: object) -> tuple[bytes, Any]:
    """A reply as the server sends it, and python-xlib's reading of it."""
    raw = cls._reply.to_binary(**fields)
    parsed, _rest = cls._reply.parse_binary(raw, Sent(), rawdict=True)
    return raw, parsed


@pytest.mark.parametrize(
    ("prop_type", "value", "expected"),
    [(Xatom.CARDINAL, (32, [4242]), 4242), (Xatom.WINDOW, (32, [0x1A00007, 5]), 0x1A00007), (0, (8, b""), None),
     (Xatom.STRING, (8, b"abcd"), None), (Xatom.CARDINAL, (32, []), None)],
)  # fmt: skip
def test_a_property_reply_reads_as_python_xlib_reads_it(prop_type: int, value: object, expected: int | None) -> None:
    raw, theirs = _reply(request.GetProperty, sequence_number=9, property_type=prop_type, bytes_after=0, value=value)
    assert wire.card32(raw) == expected
    fmt, values = theirs["value"]
    assert expected == (int(values[0]) if theirs["property_type"] and fmt == 32 and len(values) else None)
    assert wire.property_exists(raw) == bool(theirs["property_type"])


def test_pointer_and_translate_replies() -> None:
    raw, theirs = _reply(
        request.QueryPointer, same_screen=1, sequence_number=3, root=0x3B7, child=0x1A00007, root_x=-5, root_y=300,
        win_x=1, win_y=2, mask=X.Button1Mask | X.ShiftMask,
    )  # fmt: skip
    assert wire.pointer(raw) == (theirs["root_x"], theirs["root_y"], theirs["child"], theirs["mask"])
    assert wire.pointer(raw) == (-5, 300, 0x1A00007, X.Button1Mask | X.ShiftMask)
    raw, theirs = _reply(request.TranslateCoords, same_screen=1, sequence_number=4, child=0x600001, x=10, y=-2)
    assert wire.child_at(raw) == theirs["child"] == 0x600001


def test_a_reply_request_reads_its_bytes_once_python_xlib_matched_them() -> None:
    d = Sent()
    reply = wire.query_pointer(d, 0x3B7)
    raw, _ = _reply(request.QueryPointer, same_screen=1, sequence_number=12, root=1, child=0, root_x=1, root_y=2,
                    win_x=0, win_y=0, mask=0)  # fmt: skip
    assert hasattr(reply, "_reply")  # how python-xlib tells a reply request in its queue
    reply._parse_response(raw)  # what python-xlib's reader does with the matching reply
    assert reply.sequence_number == 12
    assert reply.raw() == raw


@pytest.mark.parametrize(
    ("prop_type", "value"),
    [(Xatom.STRING, (8, b"Mousepad\x00mousepad\x00")), (Xatom.CARDINAL, (16, [1, 65535, 7])),
     (Xatom.WINDOW, (32, [0x1A00007, 0x3B7, 0xFFFFFFFF])), (Xatom.STRING, (8, b""))],
)  # fmt: skip
def test_a_whole_property_reads_as_python_xlib_reads_it(prop_type: int, value: tuple[int, object]) -> None:
    raw, theirs = _reply(request.GetProperty, sequence_number=5, property_type=prop_type, bytes_after=12, value=value)
    got = wire.property_value(raw)
    assert got is not None
    fmt, ours, after = got
    assert (fmt, after) == (value[0], 12)
    assert (type(ours), ours) == (type(theirs["value"][1]), theirs["value"][1])
    absent, _ = _reply(request.GetProperty, sequence_number=5, property_type=0, bytes_after=0, value=(8, b""))
    assert wire.property_value(absent) is None
