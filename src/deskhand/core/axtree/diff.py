"""The diff text between two snapshots of the same epoch (section 3.4).

Lines are compared by element id, never by text position: a new id is ``+<line>``, a changed
line of a kept id is ``~<line>`` (the marker comes before the tab indentation), and ids that
disappeared are summarized as ranges such as ``Removed element IDs: 1-2, 7-9``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

DIFF_HEADER_PREFIX: Final = "The following is a diff from the previous accessibility tree"
NO_CHANGE_PREFIX: Final = "There has been no change in the accessibility tree"
REMOVED_PREFIX: Final = "Removed element IDs: "


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One rendered tree line (with its tabs and handle) and its element id."""

    id: int
    text: str


@dataclass(frozen=True, slots=True)
class DiffResult:
    marked: tuple[str, ...]
    removed: tuple[int, ...]

    @property
    def is_empty(self) -> bool:
        return not self.marked and not self.removed


def header(window_title: str) -> str:
    return (
        f'{DIFF_HEADER_PREFIX} for Window: "{window_title}" with ~ and + representing changed and '
        "added elements, respectively. Removed elements are summarized by ID range."
    )


def no_change(window_title: str) -> str:
    return f'{NO_CHANGE_PREFIX} for Window: "{window_title}".'


def compare(old: Sequence[DiffLine], new: Sequence[DiffLine]) -> DiffResult:
    """Mark added and changed lines of ``new`` in order and list the removed ids, sorted."""
    old_by_id = _by_id(old, "old")
    new_ids = set(_by_id(new, "new"))
    marked: list[str] = []
    for line in new:
        before = old_by_id.get(line.id)
        if before is None:
            marked.append(f"+{line.text}")
        elif before != line.text:
            marked.append(f"~{line.text}")
    removed = sorted(i for i in old_by_id if i not in new_ids)
    return DiffResult(tuple(marked), tuple(removed))


def removed_summary(ids: Iterable[int]) -> str | None:
    """``Removed element IDs: 1-2, 7-9`` for sorted, deduplicated ids; None when empty."""
    ordered = sorted(set(ids))
    if not ordered:
        return None
    ranges: list[str] = []
    start = end = ordered[0]
    for value in ordered[1:]:
        if value == end + 1:
            end = value
            continue
        ranges.append(_range(start, end))
        start = end = value
    ranges.append(_range(start, end))
    return REMOVED_PREFIX + ", ".join(ranges)


def diff_text(old: Sequence[DiffLine], new: Sequence[DiffLine], window_title: str, tail: Sequence[str]) -> str:
    """The header (or the no-change sentence), removed ranges, marked lines and the context tail."""
    result = compare(old, new)
    if result.is_empty:
        lines = [no_change(window_title)]
    else:
        lines = [header(window_title)]
        summary = removed_summary(result.removed)
        if summary is not None:
            lines.append(summary)
        lines.extend(result.marked)
    return "\n".join([*lines, *tail])


def _range(start: int, end: int) -> str:
    return str(start) if start == end else f"{start}-{end}"


def _by_id(lines: Sequence[DiffLine], which: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for line in lines:
        if line.id in out:
            raise ValueError(f"duplicate {which} line id {line.id}")
        out[line.id] = line.text
    return out
