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
    #: Started pure reads (``mutates=False``) that did not finish: they changed nothing, so they
    #: never make the result unknown.
    open_reads: int = 0
    #: Pure reads that failed or threw (nothing changed either).
    failed_reads: int = 0

    def start(self, *, mutates: bool = True) -> None:
        self.started += 1
        if not mutates:
            self.open_reads += 1

    def finish(self, *, is_error: bool, not_dispatched: bool, mutates: bool = True) -> None:
        """Record the result of a started call (a failed pure read is no unknown result)."""
        if not mutates:
            self.open_reads -= 1
        if not is_error:
            self.completed += 1
        elif not_dispatched:
            self.rejected_before_dispatch += 1
        elif mutates:
            self.action_failed = True
        else:
            self.failed_reads += 1  # a read that failed changed nothing

    def threw(self, *, mutates: bool = True) -> None:
        """Record a started call whose invoke raised instead of returning a result."""
        if mutates:
            self.action_failed = True
        else:
            self.open_reads -= 1
            self.failed_reads += 1

    @property
    def result_unknown(self) -> bool:
        return self.action_failed or self.started != self._accounted

    @property
    def _accounted(self) -> int:
        """Calls known to have changed nothing unexpected: completed, refused, and pure reads."""
        return self.completed + self.rejected_before_dispatch + self.open_reads + self.failed_reads

    @property
    def recovery(self) -> str:
        if self.started == self.rejected_before_dispatch + self.open_reads + self.failed_reads:
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
