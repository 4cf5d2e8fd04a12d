"""Element handles ``g<epoch>:<id>``, the epoch counter and id reconciliation (section 3.3).

* The epoch is a daemon-global counter starting at 1; one is consumed whenever the previous
  snapshot cannot be reused (process identity or key window changed, or either is unproven).
* Within an epoch an element keeps its id only when its locator key occurs exactly once in
  both the old and the new tree; everything else gets ``next_id``, which only grows.
* Before an action, the element behind a handle is fetched again and its fingerprint (role,
  name, bounds) compared with the observed one (step 6 of section 3.3): any difference is
  ``stale_element``, so an action never lands on a ghost.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

#: The handle grammar of the facade (``g0`` is accepted there; natively epochs start at 1).
#: A whole handle (use ``fullmatch``): ASCII digits only, no leading zeros.
HANDLE_PATTERN: Final = re.compile(r"g(0|[1-9][0-9]*):(0|[1-9][0-9]*)", re.ASCII)

#: Bounds may differ by this much (points, per edge) and still be the same element's.
BOUNDS_TOLERANCE: Final = 1.0

BAD_HANDLE_MESSAGE: Final = (
    "element_index must be the opaque handle copied from the beginning of a get_app_state line (for example g17:4)"
)


@dataclass(frozen=True, slots=True, order=True)
class Handle:
    """An element handle: the snapshot epoch and the element id within it."""

    epoch: int
    id: int

    def __str__(self) -> str:
        return f"g{self.epoch}:{self.id}"

    @classmethod
    def parse(cls, text: str) -> Handle:
        """Parse ``gN:id`` (plain decimals, no leading zeros) or raise ``bad_payload``."""
        match = HANDLE_PATTERN.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise NativeError("bad_payload", BAD_HANDLE_MESSAGE, dispatched=False)
        return cls(int(match.group(1)), int(match.group(2)))


class EpochCounter:
    """The daemon-global snapshot counter: 1, 2, 3, ... and never reused."""

    def __init__(self, start: int = 1) -> None:
        if start < 1:
            raise ValueError("epochs start at 1")
        self._next = start

    def consume(self) -> int:
        epoch = self._next
        self._next += 1
        return epoch

    @property
    def peek(self) -> int:
        """The epoch the next ``consume`` returns."""
        return self._next


@dataclass(frozen=True, slots=True)
class RefreshPolicy:
    reuse_epoch: bool
    return_full: bool


def refresh_policy(
    *,
    previous_identity: object | None,
    current_identity: object | None,
    previous_window: int | None,
    current_window: int | None,
    has_baseline: bool,
    disable_diff: bool,
) -> RefreshPolicy:
    """Reuse the epoch only for the same proven process and the same known key window.

    A diff is returned only if ``not disable_diff and has_baseline and reuse_epoch``;
    ``disable_diff`` forces a full text but keeps the epoch.
    """
    same_process = current_identity is not None and previous_identity == current_identity
    same_window = previous_window is not None and previous_window == current_window
    reuse = has_baseline and same_process and same_window
    return RefreshPolicy(reuse_epoch=reuse, return_full=disable_diff or not has_baseline or not reuse)


@dataclass(frozen=True, slots=True)
class Reconciliation:
    #: The stable id of each current item, in order.
    ids: tuple[int, ...]
    #: The first id never issued in this epoch.
    next_id: int


def reconcile(
    previous: Mapping[int, Hashable | None],
    current: Sequence[Hashable | None],
    next_id: int,
) -> Reconciliation:
    """Assign stable ids to ``current`` keys given the ``previous`` snapshot's ``{id: key}``.

    A key of None never inherits (a row of an unverifiable window). Raises ValueError when
    ``next_id`` is negative or not above every previous id, since that would reuse an id.
    """
    if next_id < 0 or any(old_id >= next_id for old_id in previous):
        raise ValueError("next_id must exceed every issued id")
    old_by_key: dict[Hashable, list[int]] = {}
    for old_id, key in previous.items():
        if key is not None:
            old_by_key.setdefault(key, []).append(old_id)
    current_counts = Counter(key for key in current if key is not None)
    cursor = next_id
    ids: list[int] = []
    for key in current:
        old = old_by_key.get(key) if key is not None else None
        if old is not None and len(old) == 1 and current_counts[key] == 1:
            ids.append(old[0])
        else:
            ids.append(cursor)
            cursor += 1
    return Reconciliation(tuple(ids), cursor)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """What identifies an element between its observation and an action on it."""

    #: The platform's role (compared for equality only).
    role: object
    name: str
    #: Global bounds; None when the element has none (off screen, or no geometry).
    bounds: Rect | None


def check_fingerprint(handle: str, observed: Fingerprint, live: Fingerprint | None) -> Rect | None:
    """Raise ``stale_element`` (before dispatch) unless ``live`` is the ``observed`` element, and
    return where it is now.

    ``live`` is None when the element could not be fetched again (it no longer exists). The
    same object with the same role and name is the same element even when it moved or was
    resized (a row below one that expanded, a cell re-laid out): the action then goes to its
    bounds now, never to the observed spot, which may hold something else. Without bounds now
    (GTK tree rows report none for a moment after a change) the observed ones stay. When the
    observation had no bounds for it (a read cut short, or none reported), role and name decide.
    """
    if live is None:
        what = "it no longer exists"
    elif live.role != observed.role:
        what = "its role changed"
    elif live.name != observed.name:
        what = f"its name changed to {live.name!r}" if len(live.name) <= 60 else "its name changed"
    else:
        if observed.bounds is not None and live.bounds is not None and not _same_bounds(observed.bounds, live.bounds):
            return live.bounds
        return observed.bounds
    raise NativeError(
        "stale_element",
        f"Element {handle} is stale: {what} since the last get_app_state. Observe the app again.",
        dispatched=False,
    )


def _same_bounds(a: Rect | None, b: Rect | None) -> bool:
    if a is None or b is None:
        return a is b
    edges = zip(
        (a.x, a.y, a.x + a.width, a.y + a.height),
        (b.x, b.y, b.x + b.width, b.y + b.height),
        strict=True,
    )
    return all(abs(p - q) <= BOUNDS_TOLERANCE for p, q in edges)
