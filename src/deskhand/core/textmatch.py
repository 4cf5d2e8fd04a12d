"""selectText matching: one exact occurrence with adjacent context, in UTF-16 units.

native-contract.md 6.9 and sdk-contract.md 6.2 (``unique_range``):

* case-sensitive, with canonical equivalence (a precomposed ``é`` matches ``e`` + U+0301), as
  Foundation's default string search does; a match never splits a combining sequence;
* every occurrence counts, overlapping ones too (``aaa`` / ``aa`` gives 2);
* ``prefix`` must equal the exact text directly before the occurrence and ``suffix`` the text
  directly after it;
* exactly one qualifying occurrence, else ``text_not_found`` or ``ambiguous_text``.

Ranges are (location, length) in UTF-16 code units, as AX reports them. AT-SPI counts code points:
use :func:`utf16_to_code_point` and :func:`code_point_to_utf16` at that boundary.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Final, Literal

from deskhand.core.errors import ArgumentError, NativeError

SelectionMode = Literal["text", "cursor_before", "cursor_after"]
SELECTION_MODES: Final[tuple[SelectionMode, ...]] = ("text", "cursor_before", "cursor_after")

EMPTY_TEXT_MESSAGE: Final = "text must not be empty"
SELECTION_MESSAGE: Final = "selection must be text, cursor_before, or cursor_after"
#: The refusal text of sdk-contract 6.2; the contract gives codes only, so the count is ours.
NOT_FOUND_MESSAGE: Final = "Text and adjacent context must identify exactly one match; none was found."
AMBIGUOUS_MESSAGE: Final = "Text and adjacent context must identify exactly one match; {count} were found."


@dataclass(frozen=True, slots=True)
class TextRange:
    """A range in UTF-16 code units."""

    location: int
    length: int

    @property
    def end(self) -> int:
        return self.location + self.length


def utf16_length(text: str) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def code_point_to_utf16(text: str, index: int) -> int:
    """The UTF-16 offset of code-point index ``index`` (0..len(text))."""
    if not 0 <= index <= len(text):
        raise ValueError(f"code point index {index} is outside 0..{len(text)}")
    return utf16_length(text[:index])


def utf16_to_code_point(text: str, offset: int) -> int:
    """The code-point index at UTF-16 offset ``offset``; an offset inside a surrogate pair is an error."""
    units = 0
    for index, char in enumerate(text):
        if units == offset:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
        if units > offset:
            raise ValueError(f"UTF-16 offset {offset} splits a surrogate pair")
    if units == offset:
        return len(text)
    raise ValueError(f"UTF-16 offset {offset} is outside 0..{units}")


def parse_selection(value: object) -> SelectionMode:
    """``selection`` / ``selection_type``: absent means ``text``."""
    if value is None:
        return "text"
    for mode in SELECTION_MODES:
        if value == mode:
            return mode
    raise ArgumentError(SELECTION_MESSAGE)


def _segments(text: str) -> list[str]:
    """Split into a starter plus its combining marks, the units canonical matching never splits."""
    segments: list[str] = []
    for char in text:
        if segments and unicodedata.combining(char):
            segments[-1] += char
        else:
            segments.append(char)
    return segments


def find_occurrences(source: str, needle: str, prefix: str = "", suffix: str = "") -> list[TextRange]:
    """Every occurrence of ``needle`` (overlapping, canonical-equivalent) with exact adjacent context."""
    target = unicodedata.normalize("NFD", needle)
    if not target:
        return []
    normalized = ""
    boundaries: dict[int, int] = {0: 0}  # offset in ``normalized`` -> code-point index in ``source``
    index = 0
    for segment in _segments(source):
        normalized += unicodedata.normalize("NFD", segment)
        index += len(segment)
        boundaries[len(normalized)] = index
    hits: list[TextRange] = []
    for start, start_index in boundaries.items():
        end_index = boundaries.get(start + len(target))
        if end_index is None or not normalized.startswith(target, start):
            continue
        if not source.endswith(prefix, 0, start_index) or not source.startswith(suffix, end_index):
            continue
        location = utf16_length(source[:start_index])
        hits.append(TextRange(location, utf16_length(source[start_index:end_index])))
    return hits


def unique_range(source: str, needle: str, prefix: str = "", suffix: str = "") -> TextRange:
    """The one qualifying occurrence.

    Raises:
        ArgumentError: empty ``needle``.
        NativeError: ``text_not_found`` or ``ambiguous_text``.
    """
    if not needle:
        raise ArgumentError(EMPTY_TEXT_MESSAGE)
    hits = find_occurrences(source, needle, prefix, suffix)
    if not hits:
        raise NativeError("text_not_found", NOT_FOUND_MESSAGE, dispatched=False)
    if len(hits) > 1:
        raise NativeError("ambiguous_text", AMBIGUOUS_MESSAGE.format(count=len(hits)), dispatched=False)
    return hits[0]


def apply_mode(found: TextRange, mode: SelectionMode) -> TextRange:
    """``text`` keeps the range; ``cursor_before`` / ``cursor_after`` give a zero-length caret."""
    if mode == "cursor_before":
        return TextRange(found.location, 0)
    if mode == "cursor_after":
        return TextRange(found.end, 0)
    return found


def select_range(
    source: str, needle: str, *, prefix: str = "", suffix: str = "", mode: SelectionMode = "text"
) -> TextRange:
    """The UTF-16 range selectText sets on ``source``."""
    return apply_mode(unique_range(source, needle, prefix, suffix), mode)


def to_code_points(source: str, selection: TextRange) -> tuple[int, int]:
    """(start, end) code-point indices of a UTF-16 range, for AT-SPI."""
    return utf16_to_code_point(source, selection.location), utf16_to_code_point(source, selection.end)
