"""Readers of D-Bus message bodies, compiled once per signature (for ``atspi.wire.ReplyReader``).

A reader takes (buffer, position) and returns (value, position after it). Values have
jeepney's shapes: structs are tuples, arrays lists, ``a{..}`` dicts, ``ay`` bytes, variants
``(signature, value)`` and booleans ``bool``. Strings that are not valid UTF-8 are decoded with
replacement characters instead of failing.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, Final

#: A compiled reader: (buffer, position) -> (value, position after it).
_Read = Callable[[bytes, int], tuple[Any, int]]

#: Basic fixed-size types: struct code and size (alignment = size).
_FIXED: Final = {
    "y": ("B", 1),
    "b": ("I", 4),
    "n": ("h", 2),
    "q": ("H", 2),
    "i": ("i", 4),
    "u": ("I", 4),
    "x": ("q", 8),
    "t": ("Q", 8),
    "d": ("d", 8),
    "h": ("I", 4),
}
#: Alignment of every type by its first code.
_ALIGN: Final = {k: size for k, (_code, size) in _FIXED.items()} | {"s": 4, "o": 4, "a": 4, "g": 1, "v": 1}
_ALIGN.update({"(": 8, "{": 8})


class MalformedReplyError(ValueError):
    """A reply body that does not match its signature."""


_bodies: dict[tuple[str, str], _Read] = {}
_types: dict[tuple[str, str], _Read] = {}


def body_reader(signature: str, endian: str) -> _Read:
    """The reader of a whole body: ``signature`` is a sequence of complete types, read as a tuple."""
    key = (signature, endian)
    read = _bodies.get(key)
    if read is None:
        if len(_bodies) > 1000:
            _bodies.clear()
        read = _bodies[key] = _struct_reader(_split(signature), endian, align=False)
    return read


def _type_reader(sig: str, endian: str) -> _Read:
    """The reader of one complete type ``sig`` (cached: variants repeat a few signatures)."""
    key = (sig, endian)
    read = _types.get(key)
    if read is None:
        if len(_types) > 1000:
            _types.clear()
        read = _types[key] = _compile(sig, endian)
    return read


def _split(sig: str) -> list[str]:
    """A signature's complete types, in order."""
    out = []
    i = 0
    while i < len(sig):
        j = _type_end(sig, i)
        out.append(sig[i:j])
        i = j
    return out


def _type_end(sig: str, i: int) -> int:
    """The index just after the complete type that starts at ``sig[i]``."""
    c = sig[i]
    if c == "a":
        return _type_end(sig, i + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        depth = 0
        for j in range(i, len(sig)):
            if sig[j] in "({":
                depth += 1
            elif sig[j] in ")}":
                depth -= 1
                if depth == 0:
                    if sig[j] != close:
                        raise MalformedReplyError(f"Unbalanced signature {sig!r}")
                    return j + 1
        raise MalformedReplyError(f"Unbalanced signature {sig!r}")
    if c in _FIXED or c in "sogv":
        return i + 1
    raise MalformedReplyError(f"Unknown type code {c!r} in signature {sig!r}")


def _compile(sig: str, endian: str) -> _Read:
    c = sig[0]
    if c in _FIXED:
        return _fixed_reader(c, endian)
    if c in "so":
        u32 = struct.Struct(endian + "I").unpack_from

        def read_string(b: bytes, p: int) -> tuple[Any, int]:
            p += -p % 4
            n = u32(b, p)[0]
            p += 4
            if b[p + n] != 0:
                raise MalformedReplyError("A string is not NUL-terminated.")
            return b[p : p + n].decode("utf-8", "replace"), p + n + 1

        return read_string
    if c == "g":

        def read_signature(b: bytes, p: int) -> tuple[Any, int]:
            n = b[p]
            return b[p + 1 : p + 1 + n].decode("ascii"), p + n + 2

        return read_signature
    if c == "v":

        def read_variant(b: bytes, p: int) -> tuple[Any, int]:
            n = b[p]
            inner = b[p + 1 : p + 1 + n].decode("ascii")
            value, p = _type_reader(inner, endian)(b, p + n + 2)
            return (inner, value), p

        return read_variant
    if c == "(":
        return _struct_reader(_split(sig[1:-1]), endian, align=True)
    if c == "a":
        return _array_reader(sig[1:], endian)
    raise MalformedReplyError(f"Unknown type {sig!r}")


def _fixed_reader(c: str, endian: str) -> _Read:
    code, size = _FIXED[c]
    unpack = struct.Struct(endian + code).unpack_from
    if c == "b":

        def read_bool(b: bytes, p: int) -> tuple[Any, int]:
            p += -p % 4
            return bool(unpack(b, p)[0]), p + 4

        return read_bool

    def read_fixed(b: bytes, p: int) -> tuple[Any, int]:
        p += -p % size
        return unpack(b, p)[0], p + size

    return read_fixed


def _struct_reader(members: list[str], endian: str, *, align: bool) -> _Read:
    """Structs (and bodies) of fixed-size numbers are one ``unpack``; one or two members are
    read without a loop (most AT-SPI replies have one or two values)."""
    if members and all(m in _FIXED and m != "b" for m in members):
        return _fixed_struct_reader(members, endian, align=align)
    if align and len(members) == 2 and all(m in ("s", "o") for m in members):
        return _string_pair_reader(endian)
    readers = tuple(_type_reader(m, endian) for m in members)
    if len(readers) == 1:
        [first] = readers

        def read_one(b: bytes, p: int) -> tuple[Any, int]:
            if align:
                p += -p % 8
            v, p = first(b, p)
            return (v,), p

        return read_one
    if len(readers) == 2:
        first, second = readers

        def read_two(b: bytes, p: int) -> tuple[Any, int]:
            if align:
                p += -p % 8
            v, p = first(b, p)
            w, p = second(b, p)
            return (v, w), p

        return read_two

    def read_struct(b: bytes, p: int) -> tuple[Any, int]:
        if align:
            p += -p % 8
        out = []
        for read in readers:
            v, p = read(b, p)
            out.append(v)
        return tuple(out), p

    return read_struct


def _fixed_struct_reader(members: list[str], endian: str, *, align: bool) -> _Read:
    """Members at their natural alignment from an 8-aligned start, as one struct format."""
    fmt, size = endian, 0
    for m in members:
        code, width = _FIXED[m]
        pad = -size % width
        fmt += "x" * pad + code
        size += pad + width
    unpack = struct.Struct(fmt).unpack_from

    def read_fixed_struct(b: bytes, p: int) -> tuple[Any, int]:
        if align:
            p += -p % 8
        return unpack(b, p), p + size

    return read_fixed_struct


def _array_reader(elem: str, endian: str) -> _Read:
    u32 = struct.Struct(endian + "I").unpack_from
    align = _ALIGN[elem[0]]
    if elem == "y":

        def read_bytes(b: bytes, p: int) -> tuple[Any, int]:
            p += -p % 4
            n = u32(b, p)[0]
            p += 4
            return bytes(b[p : p + n]), p + n

        return read_bytes
    if elem in _FIXED and elem != "b":
        code, size = _FIXED[elem]

        def read_fixed_array(b: bytes, p: int) -> tuple[Any, int]:
            p += -p % 4
            n = u32(b, p)[0]
            p += 4
            p += -p % size
            if n % size:
                raise MalformedReplyError("An array length is not a multiple of its element size.")
            return list(struct.unpack_from(f"{endian}{n // size}{code}", b, p)), p + n

        return read_fixed_array
    if elem[0] == "{":
        key = _type_reader(elem[1], endian)
        value = _type_reader(elem[2:-1], endian)

        def read_dict(b: bytes, p: int) -> tuple[Any, int]:
            p += -p % 4
            n = u32(b, p)[0]
            p += 4
            p += -p % 8
            end = p + n
            out = {}
            while p < end:
                p += -p % 8
                k, p = key(b, p)
                out[k], p = value(b, p)
            return out, p

        return read_dict
    read_elem = _type_reader(elem, endian)
    if elem == "s":
        return _string_array_reader(read_elem, u32)

    def read_array(b: bytes, p: int) -> tuple[Any, int]:
        p += -p % 4
        n = u32(b, p)[0]
        p += 4
        p += -p % align
        end = p + n
        out = []
        while p < end:
            v, p = read_elem(b, p)
            out.append(v)
        return out, p

    return read_array


#: Distinct string arrays remembered by their bytes (then the memo starts over).
STRING_ARRAY_MEMO: Final = 512


def _string_array_reader(read_elem: _Read, u32: Any) -> _Read:
    """Arrays of strings, decoded once per distinct content: a cache reply repeats the same few
    interface lists thousands of times (one per object)."""
    memo: dict[bytes, tuple[str, ...]] = {}

    def read_strings(b: bytes, p: int) -> tuple[Any, int]:
        p += -p % 4
        n = u32(b, p)[0]
        p += 4
        end = p + n
        raw = bytes(b[p:end])
        known = memo.get(raw)
        if known is None:
            out = []
            while p < end:
                v, p = read_elem(b, p)
                out.append(v)
            if len(memo) >= STRING_ARRAY_MEMO:
                memo.clear()
            known = memo[raw] = tuple(out)
        return list(known), end

    return read_strings


def _string_pair_reader(endian: str) -> _Read:
    """A struct of two strings, e.g. an object reference ``(so)`` (bus name and path): read in
    one step (a cache reply holds three per object)."""
    u32 = struct.Struct(endian + "I").unpack_from

    def read_pair(b: bytes, p: int) -> tuple[Any, int]:
        p += -p % 8
        n = u32(b, p)[0]
        p += 4
        if b[p + n] != 0:
            raise MalformedReplyError("A string is not NUL-terminated.")
        first = b[p : p + n].decode("utf-8", "replace")
        p += n + 1
        p += -p % 4
        n = u32(b, p)[0]
        p += 4
        if b[p + n] != 0:
            raise MalformedReplyError("A string is not NUL-terminated.")
        return (first, b[p : p + n].decode("utf-8", "replace")), p + n + 1

    return read_pair
