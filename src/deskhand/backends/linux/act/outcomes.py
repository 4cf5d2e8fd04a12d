"""The outcome an action reports when its module decided none: read off the route it took.

Modules that see their effect (a field read back, a scroll bar measured, a paste's signals) build
their ``core.effects.Outcome`` themselves. For the rest, the route is all there is to go by: an
AT-SPI action the app performed is a receipt, a synthetic click or a wheel notch is input that
nothing here can check, so each is ``unverifiable`` with what is known. Nothing becomes
``confirmed`` here except on evidence the result itself carries (an achieved scroll); a paste is
never confirmed (seed 2), its evidence says what was seen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from deskhand.backends.base import ActionResult
from deskhand.backends.linux.act.focus import Readback
from deskhand.core import effects
from deskhand.core.effects import Evidence

__all__ = ("with_outcome",)

#: Linux route names (the ``route`` field of a result) -> the route of ``core.effects``.
ROUTES: Final[dict[str, effects.Route]] = {
    "synthetic": "synthetic_events",
    "key_events": "synthetic_events",
    "input_method": "synthetic_events",
    "select_row": "accessibility",
    "action": "accessibility",
    "descendant_action": "accessibility",
    "hit_test": "accessibility",
    "grab_focus": "accessibility",
    "accessible_text": "accessibility",
    "scroll_bar_value": "scroll_bar",
    "wheel": "wheel",
    "none": "none",
}
_ACCESSIBLE_ACTION: Final = Evidence("event_receipt", "the app performed the accessible action")


def with_outcome(result: ActionResult) -> ActionResult:
    """``result`` with an outcome: its own, else the default for its route."""
    if result.outcome is not None:
        return result
    return replace(result, outcome=default(result.structured))


def default(structured: dict[str, object]) -> effects.Outcome:
    route = ROUTES.get(str(structured.get("route")), "synthetic_events")
    if "receipt" in structured:
        return _paste(structured)
    if route == "scroll_bar":
        return _scroll_bar(structured)
    if route == "accessibility" or "action" in structured:
        return effects.judge("accessibility", [_ACCESSIBLE_ACTION])
    return effects.judge(route, [])


def _scroll_bar(structured: dict[str, object]) -> effects.Outcome:
    achieved = structured.get("achieved")
    moved = isinstance(achieved, list) and any(v != 0 for v in achieved)
    seen = [Evidence("scroll_measured", f"the scroll bar moved {achieved} px")] if moved else []
    return effects.judge("scroll_bar", seen, expected_change=True, achieved=achieved)


def _paste(structured: dict[str, object]) -> effects.Outcome:
    receipt = structured.get("receipt")
    facts = receipt if isinstance(receipt, dict) else {}
    seen: list[Evidence] = []
    if facts.get("dataSupplied"):
        seen.append(Evidence("event_receipt", "the app read the pasted content from the clipboard"))
    if structured.get("ax_effect_observed"):
        seen.append(Evidence("text_signal", "the target signalled an edit after reading it"))
    # seed 2 (sdk-contract.md 6.3): a paste is never reported as confirmed; the evidence says what was seen
    effect: effects.Effect = "unverifiable" if facts.get("pastePosted") else "refused"
    return effects.Outcome(effect, "clipboard_paste", tuple(seen))


def typed(got: Readback, seen: list[Evidence], *, processed: bool) -> effects.Outcome:
    """Key events' outcome from the focused text read back (``Focus.read_back``) and what else was
    ``seen``: part of the text is ``partial``; unchanged text is ``suspected_noop`` only once the
    app is known to have ``processed`` the keys, else ``unverifiable``."""
    if got.found is not None:
        seen = [*seen, Evidence("value_readback", got.found)]
    elif got.partial is not None:
        measured = {"arrived": got.arrived[0], "typed": got.arrived[1]} if got.arrived is not None else {}
        evidence = (*seen, Evidence("value_readback", got.partial))
        return effects.Outcome("partial", "synthetic_events", evidence, measured)
    return effects.judge("synthetic_events", seen, expected_change=got.readable and processed)
