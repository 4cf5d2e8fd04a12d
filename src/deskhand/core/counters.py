"""Native-call counters of one ``js`` cell (native-contract.md sections 1.2 and 4.2).

A cell counts every native call it starts, the calls that completed (a result without
``isError``) and those refused before dispatch (``isError`` plus the not-dispatched flag).
Any other failure, or a call that threw, makes the cell's result unknown. The structured
fields of a failed cell come from :meth:`CallCounters.to_json`.
"""

from __future__ import annotations

from dataclasses import dataclass

from deskhand.core.errors import RECOVERY_NOT_DISPATCHED, RECOVERY_OBSERVE


@dataclass(slots=True)
class CallCounters:
    """Mutable counters for one cell (or one host, for totals)."""

    started: int = 0
    completed: int = 0
    rejected_before_dispatch: int = 0
    #: A call returned ``isError`` without the not-dispatched flag, or the invoke threw.
    action_failed: bool = False
    #: The kernel was killed (timeout, cancel, protocol or limit violation, reset, crash).
    bindings_reset: bool = False

    def start(self) -> None:
        self.started += 1

    def finish(self, *, is_error: bool, not_dispatched: bool) -> None:
        """Record the result of a started call."""
        if not is_error:
            self.completed += 1
        elif not_dispatched:
            self.rejected_before_dispatch += 1
        else:
            self.action_failed = True

    def threw(self) -> None:
        """Record a started call whose invoke raised instead of returning a result."""
        self.action_failed = True

    @property
    def result_unknown(self) -> bool:
        return self.action_failed or self.started != self.completed + self.rejected_before_dispatch

    @property
    def recovery(self) -> str:
        if self.started == self.rejected_before_dispatch:
            return RECOVERY_NOT_DISPATCHED
        return RECOVERY_OBSERVE

    def to_json(self) -> dict[str, object]:
        """The ``structuredContent`` of a failed cell."""
        return {
            "nativeCallsStarted": self.started,
            "nativeCallsCompleted": self.completed,
            "nativeCallsRejectedBeforeDispatch": self.rejected_before_dispatch,
            "nativeResultUnknown": self.result_unknown,
            "bindingsReset": self.bindings_reset,
            "recovery": self.recovery,
        }
