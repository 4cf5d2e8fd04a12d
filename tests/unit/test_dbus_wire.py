"""The AT-SPI reply reader against jeepney: same values from the same bytes, in any chunking."""

from __future__ import annotations

from typing import Any

import pytest
from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_call, new_method_return
from jeepney.low_level import Endianness, Message, Parser

from deskhand.backends.linux.atspi.wire import Reply, ReplyReader

CALL = new_method_call(DBusAddress("/org/a11y/atspi/accessible/1", bus_name=":1.5", interface="x.Y"), "M")
CALL.header.serial = 9

#: Reply bodies of the shapes AT-SPI sends (and a few it does not, for the general cases).
BODIES: list[tuple[str | None, tuple[Any, ...]]] = [
    (None, ()),
    ("u", (7,)),
    ("au", ([0x4001, 0x2],)),
    ("au", ([],)),
    ("a(so)", ([(":1.5", "/org/a11y/atspi/accessible/3"), (":1.5", "/org/a11y/atspi/accessible/44")],)),
    ("v", (("s", "Apply"),)),
    ("v", (("d", 0.25),)),
    ("v", (("(so)", (":1.5", "/a")),)),
    ("as", (["org.a11y.atspi.Accessible", "org.a11y.atspi.Component"],)),
    # Repeated and differing string arrays in one body (string arrays are decoded once per content).
    ("asasasas", (["a", "bc"], ["a", "bc"], ["a", "bcd"], [])),
    # Pairs of strings read in one step, at every alignment.
    ("y(so)", (3, ("", "/"))),
    ("sa(ss)", ("xyz", [("", "héllo"), ("abcde", ""), ("a", "b")])),
    ("a(sas)", ([("x", ["é", ""]), ("y", ["é", ""]), ("z", ["é"])],)),
    ("(iiii)", ((10, -20, 300, 40),)),
    ("a(sss)", ([("click", "", "<Alt>a"), ("activate", "Activate", "")],)),
    ("s", ("héllo wörld ✓",)),
    ("ii", (3, 9)),
    (
        "a((so)(so)(so)iiassusau)",
        (
            [
                (
                    (":1.5", "/org/a11y/atspi/accessible/2"),
                    (":1.5", "/org/a11y/atspi/accessible/root"),
                    (":1.5", "/org/a11y/atspi/accessible/1"),
                    0,
                    1,
                    ["org.a11y.atspi.Accessible", "org.a11y.atspi.Action"],
                    "Details",
                    62,
                    "",
                    [0x1234, 0x1],
                ),
                (("", "/"), ("", "/"), ("", "/"), -1, 0, [], "", 0, "", []),
            ],
        ),
    ),
    ("a{sv}", ({"CurrentValue": ("d", 1.5), "Name": ("s", "x")},)),
    ("a{sa{sv}}", ({"a": {"b": ("u", 1)}, "c": {}},)),
    ("ay", (b"\x00\x01\xff",)),
    ("ybnqxtdg", (255, True, -3, 65535, -(1 << 40), 1 << 60, -2.5, "a(so)")),
    ("ad", ([1.0, 2.5, -0.125],)),
    ("(yqxd)", ((1, 2, -3, 4.5),)),
    ("a(yi)", ([(1, -1), (2, 7)],)),
    ("y(ii)", (9, (1, 2))),
    ("ab", ([True, False],)),
    ("aas", ([["a", "bc"], [], ["d"]],)),
]


def _jeepney_view(msg: Message) -> tuple[int, str, tuple[Any, ...]]:
    error = ""
    if msg.header.message_type == MessageType.error:
        error = str(msg.header.fields.get(HeaderFields.error_name, "error"))
    return int(msg.header.fields.get(HeaderFields.reply_serial, -1)), error, tuple(msg.body)


def _stream(endian: Endianness) -> bytes:
    msgs: list[Message] = []
    for i, (sig, body) in enumerate(BODIES):
        msgs.append(new_method_return(CALL, sig, body))
        if i % 5 == 0:  # a signal and a call between replies: not replies, so skipped
            msgs.append(new_method_call(DBusAddress("/a", bus_name=":1.9", interface="x.Y"), "N", "s", ("z",)))
        if i % 7 == 0:
            msgs.append(new_error(CALL, "org.freedesktop.DBus.Error.UnknownMethod", "s", ("no such method",)))
    out = b""
    for serial, m in enumerate(msgs, start=100):
        m.header.endianness = endian
        m.header.fields[HeaderFields.reply_serial] = serial
        out += m.serialise(serial=serial)
    return out


def _jeepney(data: bytes) -> list[tuple[int, str, tuple[Any, ...]]]:
    p = Parser()
    p.add_data(data)
    msgs = list(iter(p.get_next_message, None))
    return [_jeepney_view(m) for m in msgs if m.header.message_type in (MessageType.method_return, MessageType.error)]


def _ours(data: bytes, chunk: int) -> list[tuple[int, str, tuple[Any, ...]]]:
    reader = ReplyReader()
    out: list[tuple[int, str, tuple[Any, ...]]] = []
    for at in range(0, len(data), chunk):
        reader.feed(data[at : at + chunk])
        while (r := reader.next_reply()) is not None:
            out.append(tuple(r))  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize("endian", [Endianness.little, Endianness.big])
@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_same_replies_as_jeepney(endian: Endianness, chunk: int) -> None:
    data = _stream(endian)
    expected = _jeepney(data)
    assert len(expected) == len(BODIES) + len(range(0, len(BODIES), 7))  # the replies and the errors
    assert _ours(data, chunk) == expected


def test_error_reply_carries_its_name() -> None:
    err = new_error(CALL, "org.freedesktop.DBus.Error.ServiceUnknown", "s", ("gone",))
    err.header.fields[HeaderFields.reply_serial] = 42
    reader = ReplyReader(err.serialise(serial=3))
    assert reader.next_reply() == Reply(42, "org.freedesktop.DBus.Error.ServiceUnknown", ("gone",))
    assert reader.next_reply() is None


def test_a_body_that_does_not_match_its_signature_is_a_failed_reply_and_the_stream_goes_on() -> None:
    bad = bytearray(new_method_return(CALL, "s", ("abc",)).serialise(serial=1))
    bad[-1] = 0x41  # the string's NUL terminator
    good = new_method_return(CALL, "u", (5,))
    reader = ReplyReader(bytes(bad) + good.serialise(serial=2))
    first = reader.next_reply()
    assert first is not None
    assert first.error == "org.deskhand.MalformedReply"
    assert reader.next_reply() == Reply(9, "", (5,))


def test_invalid_utf8_is_replaced_not_raised() -> None:
    raw = bytearray(new_method_return(CALL, "s", ("ab",)).serialise(serial=1))
    raw[-3] = 0xFF  # 'a' -> an invalid byte
    reply = ReplyReader(bytes(raw)).next_reply()
    assert reply is not None
    assert reply.body == ("\ufffdb",)
