"""The integer-index map the facade keeps from state texts and diffs (section 3.5).

``IndexMap.remember(text)`` reads only the ``<app_state>`` block when present (handles quoted
in app instructions never count), clears the map on a full tree, maps each line's element id
to its ``gN:id`` handle, clears on a new generation, and deletes ``Removed element IDs`` ranges.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Final

from deskhand.core.axtree.diff import DIFF_HEADER_PREFIX, NO_CHANGE_PREFIX, REMOVED_PREFIX
from deskhand.core.axtree.handles import HANDLE_PATTERN
from deskhand.core.errors import DeskhandError

_LINE: Final = re.compile(r"^[+~]?[\t ]*(g(\d+):(\d+))(?=\s|$)")
_STATE_OPEN: Final = "<app_state>\n"
_STATE_CLOSE: Final = "\n</app_state>"
_MAX_SAFE_INTEGER: Final = 2**53 - 1

NOT_OBSERVED: Final = (
    "Element {index} has no current observed handle. "
    "Call getAXState({{disableDiffing:true}}) before using an integer index."
)
BAD_TARGET: Final = "Expected an observed integer element index or an opaque gN:id handle"


def state_block(text: str) -> str:
    """The text between ``<app_state>\\n`` and the last ``\\n</app_state>``, or all of it."""
    start = text.find(_STATE_OPEN)
    end = text.rfind(_STATE_CLOSE)
    if start < 0 or end < start + len(_STATE_OPEN):
        return text
    return text[start + len(_STATE_OPEN) : end]


class IndexMap(Mapping[int, str]):
    """``{element id: "gN:id"}`` for one bound app, updated from each observation text."""

    def __init__(self) -> None:
        self.generation: int | None = None
        self._handles: dict[int, str] = {}

    def __getitem__(self, key: int) -> str:
        return self._handles[key]

    def __iter__(self) -> Iterator[int]:
        return iter(self._handles)

    def __len__(self) -> int:
        return len(self._handles)

    def clear(self) -> None:
        """Forget every alias (a failed or image-only observation)."""
        self._handles.clear()

    def remember(self, text: str) -> None:
        """Update the map from a full state text, a diff, or a no-change text."""
        lines = state_block(text).split("\n")
        if not any(line.startswith((DIFF_HEADER_PREFIX, NO_CHANGE_PREFIX)) for line in lines):
            self._handles.clear()
        for line in lines:
            match = _LINE.match(line)
            if match is None:
                continue
            generation, element = int(match.group(2)), int(match.group(3))
            if generation != self.generation:
                self._handles.clear()
                self.generation = generation
            self._handles[element] = match.group(1)
        for line in lines:
            if line.startswith(REMOVED_PREFIX):
                self._remove_ranges(line[len(REMOVED_PREFIX) :])

    def resolve(self, target: object) -> str:
        """A ``gN:id`` handle passes through; an integer maps through the current aliases."""
        if isinstance(target, str) and HANDLE_PATTERN.fullmatch(target):
            return target
        if isinstance(target, int) and not isinstance(target, bool) and 0 <= target <= _MAX_SAFE_INTEGER:
            handle = self._handles.get(target)
            if handle is None:
                raise DeskhandError(NOT_OBSERVED.format(index=target), dispatched=False)
            return handle
        raise DeskhandError(BAD_TARGET, dispatched=False)

    def _remove_ranges(self, ranges: str) -> None:
        for part in ranges.split(", "):
            bounds = part.strip().split("-")
            if not all(b.isdigit() for b in bounds) or len(bounds) > 2:
                continue
            low, high = int(bounds[0]), int(bounds[-1])
            for element in [e for e in self._handles if low <= e <= high]:
                del self._handles[element]
