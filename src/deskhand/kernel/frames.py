"""Length-prefixed JSON frames between the kernel host and its worker process (both sides).

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON (one object).
Messages follow native-contract.md section 5.1: parent -> worker ``init``, ``ping``, ``run``,
``response``; worker -> parent ``ready``, ``pong``, ``invoke``, ``emit``, ``done``. This module
imports nothing from deskhand: the worker loads it without the package.
"""

from __future__ import annotations

import json
import re
import struct
from typing import Final

HEADER: Final = struct.Struct(">I")
#: Output is capped at 16 MiB per cell; one frame may carry at most this much.
MAX_FRAME: Final = 64 * 1024 * 1024


#: A UTF-16 surrogate in a Python string is always a lone one (JS strings may hold them; UTF-8 cannot).
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class FrameError(Exception):
    """The peer sent a frame that is not valid protocol data."""


def encode(message: dict[str, object]) -> bytes:
    """Frame one message. A lone surrogate becomes the visible text ``\\uD83D`` (six characters)."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    if _SURROGATE.search(text) is not None:
        text = _SURROGATE.sub(_escape_surrogate, text)
    body = text.encode("utf-8")
    return HEADER.pack(len(body)) + body


def _escape_surrogate(match: re.Match[str]) -> str:
    # Inside a JSON string: an escaped backslash, then the code unit's hex digits.
    return f"\\\\u{ord(match.group()):04X}"


def encode_raw(body: bytes) -> bytes:
    """Frame an already-serialized JSON object."""
    return HEADER.pack(len(body)) + body


def decode_length(header: bytes) -> int:
    (length,) = HEADER.unpack(header)
    if length > MAX_FRAME:
        raise FrameError(f"frame of {length} bytes exceeds {MAX_FRAME}")
    return int(length)


def decode_body(body: bytes) -> dict[str, object]:
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise FrameError(f"invalid JSON frame: {error}") from error
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise FrameError("a frame must be a JSON object with a string type")
    return message
