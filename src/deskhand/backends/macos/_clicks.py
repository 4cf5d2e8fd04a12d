"""Clicking an element by handle on macOS: the AX primitives of the core's tier runner.

The tiers, press-repeat, the pre-click hover and the rules that end a click are
``deskhand.core.clicktiers``. Presses are ``PRESS_ACTIONS`` (first present wins) and
``AXShowMenu``; ``kAXErrorCannotComplete`` (the 2 s messaging timeout) is an unknown outcome that
ends the click; any other AX error on a first press is its typed error (``_axerrors``), before
anything happened. Not yet supplied (next steps): list-row selection, descendants and the hit test.

UNTESTED HERE: it calls ``_ax`` (pyobjc) and runs only on a Mac; ``mypy --platform darwin`` checks it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from deskhand.backends.macos import _ax, _axerrors
from deskhand.core.clicktiers import Outcome
from deskhand.core.geometry import Point

__all__ = ("PRESS_ACTIONS", "AXElement")

PRESS_ACTIONS: Final = ("AXPress", "AXConfirm", "AXOpen")


class AXElement:
    """``core.clicktiers.ElementPrimitives`` over AX; actions are AX action names."""

    def __init__(self, authorize: Callable[[], object]) -> None:
        self._authorize = authorize

    def authorize(self) -> None:
        self._authorize()

    def prefers_pointer(self, node: Any) -> bool:
        return False

    def select_row(self, node: Any) -> Outcome:
        return "refused"  # next step: AXSelectedChildren of the row's AXList (6.3 tier 1)

    def press_action(self, node: Any) -> str | None:
        return _first_action(node, PRESS_ACTIONS)

    def menu_action(self, node: Any) -> str | None:
        return _first_action(node, ("AXShowMenu",))

    def perform(self, node: Any, action: str) -> Outcome:
        """``kAXErrorCannotComplete`` (the 2 s messaging timeout) is unknown; another error is typed."""
        status = _ax.perform(node, action)
        if status == _axerrors.SUCCESS:
            return "done"
        if status == _axerrors.CANNOT_COMPLETE:
            return "unknown"
        raise _axerrors.to_error(status, action, dispatched=False)

    def children(self, node: Any) -> tuple[Any, ...]:
        return ()  # next step: AXChildren (6.3 tier 3)

    def hit_test(self, node: Any, at: Point) -> Any:
        return None  # next step: _ax.element_at (6.3 tier 4)


def _first_action(node: Any, names: tuple[str, ...]) -> str | None:
    raw = _ax.read(node)
    actions = raw.actions if raw else ()
    return next((name for name in names if name in actions), None)
