"""Whether typed text shows in a field's text read back: the pure rule behind typing's read-back.

Key events reach a field one by one, so a field that reads differently after typing may hold
only the start of the text: a browser that was slow to move the focus for ``ctrl+l`` puts the
first keys into the page and the rest into its address bar. A changed text is therefore weighed:
the text's first segment (up to its first line break or tab, which may move the caret into
another element: a new paragraph, the next cell) must show once more than before, or the segment
inserted (what differs between the texts before and after, ``inserted``) must be at least as long
(fields rewrite what they are given: autocorrect, a password's bullets). Anything less is
``SOME``: part of the text arrived.

A sectioned field (a spin button: a time edit reading ``00H:01m:30s``) overwrites its sections
and draws its own separators, so its text never grows by what was typed: there the digits typed,
in order, showing among the field's digits after (``digits_shown``) show the text.

An element that holds the text only after typing (a field the focus moved to) shows it when its
text contains the text's longest segment, or its last one (where the caret ends), if at least
``MIN_SEGMENT_CHARS`` long.

How much arrived (``arrived``): when the field's text around the typed span is known (what was
before the selection the keys replaced, and after it), the characters between them are matched
against the first segment in order; keys an app dropped (Dolphin's location bar, whose completion
rewrote the field while keys were still coming: ``/tmp/p/...`` for ``/tmp/kp/...``) are the ones
missing. A field rewritten around the span (the app replaced it all) gives no count.

Where the text is (``text_child``): an editable combo box takes the focus while its line edit, a
child, holds the text (Qt: Dolphin's location bar, focused as ``combo box`` with no Text
interface); the child read is a focused one with a Text interface, else one with an EditableText
interface.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Final, Literal, NamedTuple

__all__ = (
    "ALL",
    "MIN_SEGMENT_CHARS",
    "SOME",
    "Child",
    "Shown",
    "arrived",
    "digits_shown",
    "inserted",
    "segments",
    "shown_by_change",
    "shown_in",
    "text_child",
)

#: Characters that end a segment: each may take the caret into another element.
_BREAKS: Final = re.compile(r"\r\n|[\r\n\t]")
#: The shortest last segment that counts as found in another element's text.
MIN_SEGMENT_CHARS: Final = 3

Shown = Literal["all", "some"]
ALL: Final[Shown] = "all"
SOME: Final[Shown] = "some"


def segments(text: str) -> list[str]:
    """``text`` split at line breaks and tabs (empty segments kept, so the first is the first)."""
    return _BREAKS.split(text)


def inserted(before: str, after: str) -> str:
    """What ``after`` holds in place of ``before``'s middle: both texts without their common
    start and end (the end never overlapping the start)."""
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return after[start : len(after) - end]


def shown_by_change(text: str, before: str | None, after: str | None, sectioned: bool = False) -> Shown | None:
    """How much of ``text`` the change from ``before`` to ``after`` shows (module docstring;
    ``sectioned``: a spin button's field): None when the texts are equal or one is unknown."""
    if before is None or after is None or after == before:
        return None
    first = segments(text)[0]
    if len(inserted(before, after)) >= len(first) or (first and after.count(first) > before.count(first)):
        return ALL
    return ALL if sectioned and digits_shown(text, after) else SOME


def shown_in(text: str, found: str) -> bool:
    """Whether ``found`` (another element's text) holds ``text``'s longest or last segment."""
    parts = [part for part in segments(text) if part]
    if not parts:
        return False
    last = parts[-1]
    return max(parts, key=len) in found or (len(last) >= MIN_SEGMENT_CHARS and last in found)


def arrived(text: str, after: str, head: str = "", tail: str = "") -> int | None:
    """How many of ``text``'s characters show, in their order, in ``after`` between ``head`` and
    ``tail`` (the field's text before and after the span the typing replaced); None when ``after``
    no longer starts with ``head`` and ends with ``tail`` (module docstring)."""
    if len(after) < len(head) + len(tail) or not after.startswith(head) or not after.endswith(tail):
        return None
    middle = after[len(head) : len(after) - len(tail)]
    blocks = SequenceMatcher(None, text, middle, autojunk=False).get_matching_blocks()
    return sum(block.size for block in blocks)


class Child(NamedTuple):
    """What ``text_child`` reads of one child of the focused element."""

    text: bool  # it has the Text interface
    editable: bool  # it has the EditableText interface
    focused: bool  # its states say FOCUSED


def text_child(children: Sequence[Child]) -> int | None:
    """Which child of a focused combo box without text holds its text (module docstring): the
    first focused one with text, else the first editable one."""
    for i, child in enumerate(children):
        if child.text and child.focused:
            return i
    return next((i for i, child in enumerate(children) if child.text and child.editable), None)


def digits_shown(text: str, after: str) -> bool:
    """Whether ``text`` has digits and they show, in order, among ``after``'s digits (a sectioned
    field's text after typing: ``0:01:30`` shows in ``00H:01m:30s``)."""
    typed = [c for c in text if c.isdigit()]
    if not typed:
        return False
    rest = iter(c for c in after if c.isdigit())
    return all(any(d == c for c in rest) for d in typed)
