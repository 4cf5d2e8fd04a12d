"""Points, sizes and rectangles in global logical points (top-left origin)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> Point:
        return Point(self.x + self.width / 2, self.y + self.height / 2)

    def contains(self, p: Point) -> bool:
        return self.x <= p.x < self.x + self.width and self.y <= p.y < self.y + self.height


def span(rects: Iterable[Rect]) -> Rect | None:
    """The smallest rectangle holding every one of ``rects`` (None for none)."""
    found = list(rects)
    if not found:
        return None
    x0, y0 = min(r.x for r in found), min(r.y for r in found)
    x1, y1 = max(r.x + r.width for r in found), max(r.y + r.height for r in found)
    return Rect(x0, y0, x1 - x0, y1 - y0)
