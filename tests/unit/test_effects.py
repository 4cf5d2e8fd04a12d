"""The effect vocabulary of seed 2 (sdk-contract.md 2.1) and the one rule that decides an effect."""

from __future__ import annotations

import pytest

from deskhand.core.effects import EFFECTS, Evidence, Outcome, judge, refused


def test_the_seed_enum_order() -> None:
    assert EFFECTS == ("confirmed", "partial", "unverifiable", "suspected_noop", "refused")


def test_evidence_confirms_and_reaches_the_json_with_the_measured_values() -> None:
    seen = Evidence("value_readback", "text reads 'plums'")
    outcome = judge("accessibility", [seen], before="pears", after="plums")
    assert outcome.to_json() == {
        "effect": "confirmed",
        "route": "accessibility",
        "evidence": [{"kind": "value_readback", "detail": "text reads 'plums'"}],
        "before": "pears",
        "after": "plums",
    }
    assert outcome.summary() == "effect: confirmed (value_readback: text reads 'plums'); route: accessibility"


def test_without_evidence_an_expected_change_is_a_suspected_noop_and_anything_else_unverifiable() -> None:
    assert judge("accessibility", [], expected_change=True).effect == "suspected_noop"
    assert judge("synthetic_events", []).to_json() == {"effect": "unverifiable", "route": "synthetic_events"}
    assert refused("wheel").summary() == "effect: refused; route: wheel"


def test_confirmed_without_evidence_cannot_be_built() -> None:
    with pytest.raises(ValueError, match="needs evidence"):
        Outcome("confirmed", "accessibility")
    with pytest.raises(ValueError, match="needs evidence"):
        Outcome("confirmed", "synthetic_events", (Evidence("event_receipt", "the app answered a ping"),))


def test_a_receipt_alone_does_not_confirm() -> None:
    receipt = Evidence("event_receipt", "the app processed the key events")
    outcome = judge("synthetic_events", [receipt])
    assert outcome.effect == "unverifiable" and outcome.evidence == (receipt,)
