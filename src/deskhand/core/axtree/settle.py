"""The UI settle rule: how long the next capture waits after a mutation (section 6.12).

Actions never observe by themselves. The next capture for the same app after a mutation
waits ``max(50 ms, 250 ms - elapsed)`` when that remainder is positive, else not at all, and
only once. A busy app (a progress indicator in the tree) uses the same 250 ms window.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

SETTLE_WINDOW_S: Final = 0.250
SETTLE_MIN_S: Final = 0.050

#: The remaining fixed pauses of the contract; there is no per-event delay on click or drag.
PRE_CLICK_HOVER_S: Final = 0.010
AX_PRESS_REPEAT_S: Final = 0.050
UNICODE_CHUNK_S: Final = 0.020
PRE_PASTE_S: Final = 0.040


def settle_delay(elapsed_s: float | None) -> float:
    """Seconds to wait before capturing, ``elapsed_s`` after the last mutation (None: none)."""
    if elapsed_s is None:
        return 0.0
    remainder = SETTLE_WINDOW_S - elapsed_s
    if remainder <= 0:
        return 0.0
    return max(SETTLE_MIN_S, remainder)


class SettleClock:
    """Remembers the last mutation per app (per view: ``observer.ViewKey``); the next capture takes it once."""

    def __init__(self) -> None:
        self._mutations: dict[Hashable, float] = {}

    def mark_mutation(self, app_key: Hashable, now_s: float) -> None:
        self._mutations[app_key] = now_s

    def pending(self, app_key: Hashable) -> float | None:
        """When the app's last mutation not yet taken by a capture happened (None: none is pending)."""
        return self._mutations.get(app_key)

    def take(self, app_key: Hashable, now_s: float) -> float:
        """The wait for this capture; later captures wait nothing until the next mutation."""
        at = self._mutations.pop(app_key, None)
        return settle_delay(None if at is None else now_s - at)

    def reset(self) -> None:
        self._mutations.clear()
