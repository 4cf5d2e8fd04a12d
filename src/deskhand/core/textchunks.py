"""type_text's Unicode key-event chunks: at most 64 UTF-16 units, never splitting a grapheme (6.6).

Grapheme clusters are approximated without a segmentation library: a cluster is a base character
followed by what attaches to it (combining marks, variation selectors, emoji modifiers, tag
characters, ZWJ plus the next character), CR LF stays together, and regional indicators pair up.
A single cluster longer than the limit becomes a chunk of its own rather than being split.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from deskhand.core.textmatch import utf16_length

MAX_CHUNK_UNITS: Final = 64
#: The pause between Unicode chunks.
CHUNK_PAUSE_S: Final = 0.020

_ZWJ: Final = "\u200d"


def _extends(char: str) -> bool:
    cp = ord(char)
    return (
        unicodedata.category(char) in ("Mn", "Me", "Mc")
        or 0xFE00 <= cp <= 0xFE0F  # variation selectors
        or 0xE0100 <= cp <= 0xE01EF
        or 0x1F3FB <= cp <= 0x1F3FF  # emoji skin-tone modifiers
        or 0xE0020 <= cp <= 0xE007F  # tag characters (subdivision flags)
        or char == _ZWJ
    )


def _is_regional_indicator(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def graphemes(text: str) -> list[str]:
    """Approximate extended grapheme clusters (see the module docstring)."""
    clusters: list[str] = []
    for char in text:
        if clusters:
            last = clusters[-1]
            joins = (
                _extends(char)
                or last.endswith(_ZWJ)
                or (last == "\r" and char == "\n")
                or (len(last) == 1 and _is_regional_indicator(last) and _is_regional_indicator(char))
            )
            if joins:
                clusters[-1] = last + char
                continue
        clusters.append(char)
    return clusters


def unicode_chunks(text: str, max_units: int = MAX_CHUNK_UNITS) -> list[str]:
    """Split ``text`` into chunks of at most ``max_units`` UTF-16 units on grapheme boundaries."""
    chunks: list[str] = []
    current, size = "", 0
    for cluster in graphemes(text):
        units = utf16_length(cluster)
        if current and size + units > max_units:
            chunks.append(current)
            current, size = "", 0
        current += cluster
        size += units
    if current:
        chunks.append(current)
    return chunks
