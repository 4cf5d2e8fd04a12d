"""The clipboard's items on a pipe, and starting the keeper (``x11.clipboard.keeper``) that serves them.

Wire format: one JSON line ``[[target, type, format, length], ...]``, then the items' bytes back to
back (format 32 items as 4-byte little-endian values).
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Final

__all__ = ("Item", "decode", "encode", "spawn_keeper")

#: How long starting the keeper (reading the items, forking) may take.
_START_TIMEOUT_S: Final = 10.0


@dataclass(frozen=True, slots=True)
class Item:
    """One target's data as the owner gave it: its type atom name, format and raw value."""

    type: str
    format: int
    data: bytes | tuple[int, ...]


def encode(items: Mapping[str, Item]) -> bytes:
    header: list[list[object]] = []
    blobs: list[bytes] = []
    for target, item in items.items():
        raw = item.data if isinstance(item.data, bytes) else struct.pack(f"<{len(item.data)}I", *item.data)
        header.append([target, item.type, item.format, len(raw)])
        blobs.append(raw)
    return json.dumps(header).encode() + b"\n" + b"".join(blobs)


def decode(stream: IO[bytes]) -> dict[str, Item]:
    header = json.loads(stream.readline())
    items: dict[str, Item] = {}
    for target, kind, fmt, length in header:
        raw = stream.read(int(length))
        data: bytes | tuple[int, ...] = raw if fmt == 8 else struct.unpack(f"<{len(raw) // 4}I", raw)
        items[str(target)] = Item(str(kind), int(fmt), data)
    return items


def spawn_keeper(display_name: str, timestamp: int, items: Mapping[str, Item]) -> int | None:
    """Start a keeper for ``items``; its pid, or None. It takes the selection as of ``timestamp``
    (when deskhand took it), which the X server refuses if anyone copied since.

    The keeper detaches (its own session, and it is no child of ours: the process we start forks
    it and exits at once), so it outlives the server and nobody has to reap it.
    """
    proc = subprocess.Popen(  # our own interpreter and module
        [sys.executable, "-m", "deskhand.backends.linux.x11.clipboard.keeper", display_name, str(timestamp)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    try:
        out, _ = proc.communicate(encode(items), timeout=_START_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    text = out.decode(errors="replace").strip()
    return int(text) if proc.returncode == 0 and text.isdigit() else None
