"""A D-Bus reply reader for the AT-SPI hot path: only what a client of method calls needs.

jeepney's ``Parser`` builds a full ``Message`` (header enums, every header field, a body type
parsed again from the signature for each message). An observation reads hundreds of small
replies, and that generality was most of its CPU time. ``ReplyReader`` reads the fixed header,
picks out the three header fields a caller needs (reply serial, error name, signature), skips
every message that is not a reply, and parses bodies with readers compiled once per signature
(``atspi.wire_body``).

Values have jeepney's shapes, so callers cannot tell the two apart: structs are tuples, arrays
lists, ``a{..}`` dicts, ``ay`` bytes, variants ``(signature, value)`` and booleans ``bool``.
Strings that are not valid UTF-8 are decoded with replacement characters instead of failing.
"""

from __future__ import annotations

import struct
from typing import Any, Final, NamedTuple

from deskhand.backends.linux.atspi.wire_body import body_reader

METHOD_RETURN: Final = 2
ERROR: Final = 3
_FIELD_ERROR_NAME: Final = 4
_FIELD_REPLY_SERIAL: Final = 5
_FIELD_SIGNATURE: Final = 8


class Reply(NamedTuple):
    """One reply: the serial of the call it answers, its error name ("" for a method return)
    and its body (a tuple of the values, as jeepney gives them)."""

    serial: int
    error: str
    body: tuple[Any, ...]


class ReplyReader:
    """Splits a D-Bus byte stream into messages and parses the replies among them."""

    __slots__ = ("_buf", "_pos")

    def __init__(self, data: bytes = b"") -> None:
        self._buf = data
        self._pos = 0

    def feed(self, data: bytes) -> None:
        """Add bytes read from the socket."""
        if self._pos:
            self._buf = self._buf[self._pos :] + data
            self._pos = 0
        else:
            self._buf += data

    def next_reply(self) -> Reply | None:
        """The next complete reply (messages of other types are dropped), or None until more
        bytes arrive. A body that does not parse comes back as a reply with the error
        ``org.deskhand.MalformedReply``, so one bad message never breaks the stream."""
        buf = self._buf
        while True:
            pos = self._pos
            if len(buf) - pos < 16:
                return None
            endian = "<" if buf[pos] == 0x6C else ">"
            kind = buf[pos + 1]
            body_len, _serial, fields_len = struct.unpack_from(endian + "III", buf, pos + 4)
            body_at = pos + 16 + fields_len + (-fields_len % 8)
            end = body_at + body_len
            if len(buf) < end:
                return None
            self._pos = end
            if kind != METHOD_RETURN and kind != ERROR:  # noqa: PLR1714 (faster than a tuple test)
                continue
            reply_serial, error, signature = _header_fields(buf, pos, pos + 16 + fields_len, endian)
            body: tuple[Any, ...] = ()
            if signature:
                try:
                    body = body_reader(signature, endian)(buf[body_at:end], 0)[0]
                except (struct.error, IndexError, KeyError, ValueError) as e:
                    return Reply(reply_serial, "org.deskhand.MalformedReply", (str(e),))
            if kind == ERROR:
                return Reply(reply_serial, error or "error", body)
            return Reply(reply_serial, "", body)


def _header_fields(buf: bytes, pos: int, end: int, endian: str) -> tuple[int, str, str]:
    """(reply serial, error name, signature) from the header field array at ``pos + 16``.
    Alignment is relative to the message start ``pos`` (itself 8-aligned in the stream)."""
    reply_serial, error, signature = -1, "", ""
    p = pos + 16
    u32 = endian + "I"
    while p < end:
        p += -(p - pos) % 8
        code = buf[p]
        sig_len = buf[p + 1]
        kind = buf[p + 2]
        p += 3 + sig_len  # code, signature length, signature, NUL
        if kind == 0x75 or kind == 0x68:  # noqa: PLR1714  'u' (serial, fd count) or 'h'
            p += -(p - pos) % 4
            if code == _FIELD_REPLY_SERIAL:
                reply_serial = struct.unpack_from(u32, buf, p)[0]
            p += 4
        elif kind == 0x67:  # 'g'
            n = buf[p]
            if code == _FIELD_SIGNATURE:
                signature = buf[p + 1 : p + 1 + n].decode("ascii")
            p += n + 2
        else:  # 's' or 'o'
            p += -(p - pos) % 4
            n = struct.unpack_from(u32, buf, p)[0]
            if code == _FIELD_ERROR_NAME:
                error = buf[p + 4 : p + 4 + n].decode("utf-8", "replace")
            p += n + 5
    return reply_serial, error, signature
