"""Pasteboard payload planning and snapshot checks for the paste transaction (macOS; 6.10, sdk 6.3).

Pure: no pyobjc import. The core's ``PastePayload`` holds MIME representations; the pasteboard
speaks UTIs. This module maps one to the other (``text``/``md``/``html`` →
``public.utf8-plain-text`` / ``public.html``), checks a snapshot of the general pasteboard before
anything is written (every declared type must have data), and states ownership as the core sees
it: we own the pasteboard while its ``changeCount`` equals the one our write produced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from deskhand.core.errors import NativeError
from deskhand.core.markup import HTML_MIME, PLAIN_MIME
from deskhand.core.paste import PastePayload

UTI_PLAIN: Final = "public.utf8-plain-text"
UTI_HTML: Final = "public.html"
MIME_TO_UTI: Final[Mapping[str, str]] = MappingProxyType({PLAIN_MIME: UTI_PLAIN, HTML_MIME: UTI_HTML})

SNAPSHOT_INCOMPLETE: Final = "clipboard snapshot is incomplete; original clipboard was not modified"
SNAPSHOT_NO_ITEMS: Final = "clipboard has types but no items; original clipboard was not modified"
SNAPSHOT_CHANGED: Final = "clipboard changed during snapshot; original clipboard was not modified"

#: One saved pasteboard item: its (type, bytes) pairs in the item's own type order.
SavedItem = tuple[tuple[str, bytes], ...]


def pasteboard_types(payload: PastePayload) -> tuple[tuple[str, bytes], ...]:
    """(UTI, bytes) for every representation, richest first; each UTI once."""
    out: list[tuple[str, bytes]] = []
    for mime, data in payload.representations:
        uti = MIME_TO_UTI.get(mime, mime)
        if all(uti != seen for seen, _ in out):
            out.append((uti, data))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every item and type's bytes of the general pasteboard, taken at ``change_count``."""

    items: tuple[SavedItem, ...]
    change_count: int


def check_snapshot(
    items: Sequence[Sequence[tuple[str, bytes | None]]],
    *,
    declared_types: Sequence[str],
    count_before: int,
    count_after: int,
) -> Snapshot:
    """Validate a raw read of the pasteboard; nothing has been modified when this raises.

    Raises:
        NativeError: ``clipboard_snapshot_failed``: a type without data, types without items,
            or a ``changeCount`` that moved while reading.
    """
    if count_before != count_after:
        raise NativeError("clipboard_snapshot_failed", SNAPSHOT_CHANGED, dispatched=False)
    if not items and declared_types:
        raise NativeError("clipboard_snapshot_failed", SNAPSHOT_NO_ITEMS, dispatched=False)
    saved: list[SavedItem] = []
    for item in items:
        pairs: list[tuple[str, bytes]] = []
        for uti, data in item:
            if data is None:
                raise NativeError("clipboard_snapshot_failed", SNAPSHOT_INCOMPLETE, dispatched=False)
            pairs.append((uti, data))
        saved.append(tuple(pairs))
    return Snapshot(tuple(saved), count_before)


def owns(current_change_count: int, expected: int | None) -> bool:
    """Ownership: the pasteboard's changeCount is still the one our write produced."""
    return expected is not None and current_change_count == expected
