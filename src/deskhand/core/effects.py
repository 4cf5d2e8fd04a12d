"""What an action did, as the caller is told it: the effect, the route and the evidence.

Seed 2 (sdk-contract.md 2.1) fixes the vocabulary: an action's ``effect`` is one of
``confirmed`` (its result was seen: a value read back, a signal from the target, a measured
distance), ``partial`` (some of it was seen), ``unverifiable`` (it was sent, and nothing could
show whether it arrived), ``suspected_noop`` (it was sent and the target is unchanged where a
change should show) or ``refused`` (nothing was sent). ``route`` says how it was sent. Evidence
items say what was compared, so an agent knows how far to trust the effect.

A backend builds an :class:`Outcome` for every action and never claims ``confirmed`` without a
piece of evidence; :func:`judge` is the one rule that turns what was seen into the effect. The
outcome reaches the caller unchanged: the ``js`` App methods resolve to :meth:`Outcome.to_json`,
the SDK returns it, and the direct tools' text carries :meth:`Outcome.summary`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, get_args

Effect = Literal["confirmed", "partial", "unverifiable", "suspected_noop", "refused"]

#: The native enum of seed 2 (index -> effect), used where an effect arrives as a number.
EFFECTS: Final[tuple[Effect, ...]] = get_args(Effect)

#: Seed 2's routes, plus the Linux ones that say more (each maps onto a seed route in
#: :data:`SEED_ROUTE`): how the action reached the app.
Route = Literal[
    "accessibility",  # an AT-SPI / AX action, value or text call
    "synthetic_events",  # XTest / CGEvent pointer or key events to the verified window
    "global_input",
    "system_api",
    "clipboard_paste",  # a clipboard transaction and the paste chord
    "scroll_bar",  # the scroll bar's accessible value (pixel-exact)
    "wheel",  # wheel notches
    "none",  # nothing needed doing (empty text)
]

SEED_ROUTE: Final[Mapping[str, str]] = {
    "clipboard_paste": "synthetic_events",
    "scroll_bar": "accessibility",
    "wheel": "synthetic_events",
    "none": "system_api",
}

#: What was compared to decide the effect.
EvidenceKind = Literal[
    "value_readback",  # the element's value or text read back after the action
    "window_change",  # the window or its tree changed as the action should make it
    "text_signal",  # the target's own text-changed / caret-moved events
    "event_receipt",  # the target answered (an input ping, a clipboard read)
    "scroll_measured",  # the scroll position measured before and after
    "state_change",  # an accessible state (checked, expanded, selected) changed
]

#: Evidence that shows the effect itself; an ``event_receipt`` shows only that the app got the input.
CONFIRMING: Final[frozenset[str]] = frozenset(get_args(EvidenceKind)) - {"event_receipt"}


@dataclass(frozen=True, slots=True)
class Evidence:
    """One thing that was seen after the action, in a line an agent can read."""

    kind: EvidenceKind
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one action: effect, route, evidence and the measured values."""

    effect: Effect
    route: Route
    evidence: tuple[Evidence, ...] = ()
    #: measured values: ``before``/``after`` of a value, ``achieved`` scroll pixels, ``length`` pasted ...
    measured: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.effect == "confirmed" and not any(e.kind in CONFIRMING for e in self.evidence):
            msg = "a confirmed effect needs evidence of the effect"
            raise ValueError(msg)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"effect": self.effect, "route": self.route}
        if self.evidence:
            out["evidence"] = [e.to_json() for e in self.evidence]
        out.update(self.measured)
        return out

    def summary(self) -> str:
        """One line for a tool's text: ``effect: confirmed (value_readback: …); route: accessibility``."""
        seen = "; ".join(f"{e.kind}: {e.detail}" for e in self.evidence)
        effect = f"{self.effect} ({seen})" if seen else self.effect
        return f"effect: {effect}; route: {self.route}"


def judge(route: Route, evidence: Sequence[Evidence], *, expected_change: bool = False, **measured: object) -> Outcome:
    """The one rule from what was seen to the effect.

    Evidence of the effect confirms. Without it, an action that should have changed something
    readable (``expected_change``: a value set, text typed into a readable field) is
    ``suspected_noop``; otherwise (a click on a canvas, keys to an app that exposes nothing) it is
    ``unverifiable``. Receipts are kept either way: they say the input got there.
    """
    seen = tuple(evidence)
    if any(e.kind in CONFIRMING for e in seen):
        return Outcome("confirmed", route, seen, measured)
    return Outcome("suspected_noop" if expected_change else "unverifiable", route, seen, measured)


def refused(route: Route, **measured: object) -> Outcome:
    """Nothing was sent."""
    return Outcome("refused", route, (), measured)
