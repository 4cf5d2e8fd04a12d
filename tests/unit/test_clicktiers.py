"""The element-click tier runner against a recording fake: what it calls, in order, and what it concludes.

native-contract.md 6.3 (tiers, the synthetic click's hover and pause) and 6.12 (50 ms between
presses, 10 ms after the hover); issue 12 item 5 (an action call of unknown outcome ends the click).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from deskhand.core import clicktiers
from deskhand.core.axtree.settle import AX_PRESS_REPEAT_S, PRE_CLICK_HOVER_S
from deskhand.core.clicktiers import Outcome
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect

FRAME = Rect(10, 20, 100, 40)
CENTRE = Point(60, 40)


@dataclass
class Node:
    name: str
    press: str | None = None
    menu: str | None = None
    children: list[Node] = field(default_factory=list)
    row: Outcome = "refused"
    text_entry: bool = False
    #: outcomes of successive performs on this node (default "done")
    outcomes: list[Outcome | NativeError] = field(default_factory=list)


class Recorder:
    """``ElementPrimitives`` + ``PointerPrimitives`` + sleep: every call appended to ``calls``."""

    def __init__(self, hit: Node | None = None) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.hit = hit

    # element primitives
    def authorize(self) -> None:
        self.calls.append(("authorize",))

    def prefers_pointer(self, node: Node) -> bool:
        return node.text_entry

    def select_row(self, node: Node) -> Outcome:
        self.calls.append(("select_row", node.name))
        return node.row

    def press_action(self, node: Node) -> str | None:
        return node.press

    def menu_action(self, node: Node) -> str | None:
        return node.menu

    def perform(self, node: Node, action: str) -> Outcome:
        self.calls.append(("perform", node.name, action))
        got = node.outcomes.pop(0) if node.outcomes else "done"
        if isinstance(got, NativeError):
            raise got
        return got

    def children(self, node: Node) -> Sequence[Node]:
        return node.children

    def hit_test(self, node: Node, at: Point) -> Node | None:
        self.calls.append(("hit_test", node.name, (at.x, at.y)))
        return self.hit

    # pointer primitives
    def hover(self, at: Point) -> None:
        self.calls.append(("hover", (at.x, at.y)))

    def click(self, at: Point, button: str, count: int) -> None:
        self.calls.append(("click", (at.x, at.y), button, count))

    def sleep(self, seconds: float) -> None:
        self.calls.append(("sleep", seconds))


def run(rec: Recorder, node: Node, *, button: str = "left", count: int = 1, frame: Rect | None = FRAME):
    return clicktiers.click_element(rec, rec, node, frame, button=button, count=count, sleep=rec.sleep)  # type: ignore[arg-type]


def actions(rec: Recorder) -> list[tuple[object, ...]]:
    """The calls that act on the app (and the pauses between them)."""
    return [c for c in rec.calls if c[0] in ("perform", "select_row", "hover", "click", "sleep")]


def test_a_pressable_element_is_pressed_count_times_50_ms_apart():
    rec = Recorder()
    done = run(rec, Node("ok", press="click"), count=3)
    assert done == clicktiers.Clicked("action", "click")
    assert rec.calls == [
        ("authorize",),
        ("perform", "ok", "click"),
        ("sleep", AX_PRESS_REPEAT_S),
        ("perform", "ok", "click"),
        ("sleep", AX_PRESS_REPEAT_S),
        ("perform", "ok", "click"),
    ]
    assert AX_PRESS_REPEAT_S == 0.050


def test_a_single_click_selects_the_row_first_and_stops_there():
    rec = Recorder()
    done = run(rec, Node("row", press="click", row="done"))
    assert done.route == "select_row"
    assert actions(rec) == [("select_row", "row")]


def test_a_multi_click_skips_the_row_tier():
    rec = Recorder()
    run(rec, Node("row", press="click", row="done"), count=2)
    assert [c[0] for c in actions(rec)] == ["perform", "sleep", "perform"]


def test_refused_tiers_fall_through_in_order_to_the_synthetic_click():
    deep = Node("deep", press="press", outcomes=["refused"])
    target = Node("t", children=[Node("a", children=[deep])])
    hit = Node("hit", press="click", outcomes=["refused"])
    rec = Recorder(hit=hit)
    done = run(rec, target, count=2)
    assert done == clicktiers.Clicked("synthetic", point=CENTRE)
    assert rec.calls == [
        ("authorize",),
        ("perform", "deep", "press"),  # descendant tier, refused at the first press
        ("hit_test", "t", (60.0, 40.0)),
        ("perform", "hit", "click"),  # hit-test tier, refused
        ("hover", (60.0, 40.0)),
        ("sleep", PRE_CLICK_HOVER_S),
        ("click", (60.0, 40.0), "left", 2),
    ]
    assert PRE_CLICK_HOVER_S == 0.010


def test_descendants_are_searched_breadth_first_to_depth_three():
    level4 = Node("l4", press="click")
    chain = Node("l3", children=[level4])
    chain = Node("l2", children=[chain])
    chain = Node("l1", children=[chain])
    rec = Recorder()
    done = run(rec, Node("t", children=[chain]))
    assert done.route == "synthetic"  # l4 is below the depth limit
    assert not [c for c in rec.calls if c[0] == "perform"]
    shallow = Node("b", press="open")
    rec = Recorder()
    done = run(rec, Node("t", children=[Node("a", children=[Node("deeper", press="click")]), shallow]))
    assert done == clicktiers.Clicked("descendant_action", "open")
    assert [c for c in rec.calls if c[0] == "perform"] == [("perform", "b", "open")]


def test_hit_test_presses_only_another_element():
    target = Node("t")
    rec = Recorder(hit=target)
    assert run(rec, target).route == "synthetic"
    assert not [c for c in rec.calls if c[0] == "perform"]
    rec = Recorder(hit=Node("inner", press="click"))
    assert run(rec, Node("t")) == clicktiers.Clicked("hit_test", "click")


def test_a_multi_press_refused_part_way_is_ax_failed_and_no_later_tier_runs():
    target = Node("t", press="click", outcomes=["done", "refused"], children=[Node("child", press="click")])
    rec = Recorder(hit=Node("hit", press="click"))
    with pytest.raises(NativeError) as err:
        run(rec, target, count=3)
    assert err.value.code == "ax_failed"
    assert err.value.dispatched is None
    assert "Press 2 of 3 failed after 1 succeeded" in err.value.message
    assert actions(rec) == [("perform", "t", "click"), ("sleep", AX_PRESS_REPEAT_S), ("perform", "t", "click")]


def test_a_later_press_raising_is_the_part_way_failure():
    boom = NativeError("stale_element", "gone", dispatched=False)
    rec = Recorder()
    with pytest.raises(NativeError) as err:
        run(rec, Node("t", press="click", outcomes=["done", boom]), count=2)
    assert (err.value.code, err.value.dispatched) == ("ax_failed", None)
    assert err.value.__cause__ is boom
    assert not [c for c in rec.calls if c[0] in ("hover", "click")]


def test_a_first_press_raising_keeps_its_own_error():
    boom = NativeError("stale_element", "gone", dispatched=False)
    rec = Recorder()
    with pytest.raises(NativeError) as err:
        run(rec, Node("t", press="click", outcomes=[boom]))
    assert err.value is boom
    assert not [c for c in rec.calls if c[0] in ("hover", "click")]


@pytest.mark.parametrize("count", [1, 2])
def test_a_press_of_unknown_outcome_ends_the_click(count):
    # The app stalled and the call timed out: it may still press; a synthetic click would be a second one.
    rec = Recorder(hit=Node("hit", press="click"))
    target = Node("t", press="click", outcomes=["unknown"], children=[Node("child", press="click")])
    with pytest.raises(NativeError) as err:
        run(rec, target, count=count)
    assert (err.value.code, err.value.dispatched) == ("ax_failed", None)
    assert "effect is unknown" in err.value.message
    assert actions(rec) == [("select_row", "t")] * (count == 1) + [("perform", "t", "click")]


def test_a_descendant_press_of_unknown_outcome_ends_the_click():
    rec = Recorder(hit=Node("hit", press="click"))
    target = Node("t", children=[Node("child", press="click", outcomes=["unknown"])])
    with pytest.raises(NativeError):
        run(rec, target)
    assert actions(rec) == [("select_row", "t"), ("perform", "child", "click")]
    assert not [c for c in rec.calls if c[0] == "hit_test"]


def test_a_row_selection_of_unknown_outcome_ends_the_click():
    rec = Recorder()
    with pytest.raises(NativeError) as err:
        run(rec, Node("row", press="click", row="unknown"))
    assert (err.value.code, err.value.dispatched) == ("ax_failed", None)
    assert actions(rec) == [("select_row", "row")]


def test_a_text_entry_gets_the_synthetic_click_without_any_ax_call():
    rec = Recorder()
    done = run(rec, Node("entry", press="activate", row="done", text_entry=True))
    assert done.route == "synthetic"
    assert rec.calls == [("hover", (60.0, 40.0)), ("sleep", PRE_CLICK_HOVER_S), ("click", (60.0, 40.0), "left", 1)]


def test_right_click_opens_the_menu_once_else_clicks_right():
    rec = Recorder()
    assert run(rec, Node("t", press="click", menu="showmenu"), button="right", count=2) == clicktiers.Clicked(
        "action", "showmenu"
    )
    assert rec.calls == [("authorize",), ("perform", "t", "showmenu")]
    rec = Recorder()
    assert run(rec, Node("t", press="click"), button="right").route == "synthetic"
    assert actions(rec)[-1] == ("click", (60.0, 40.0), "right", 1)
    assert not [c for c in rec.calls if c[0] == "perform"]


@pytest.mark.parametrize("button", ["middle", "back", "forward"])
def test_other_buttons_always_click_synthetically(button):
    rec = Recorder()
    assert run(rec, Node("t", press="click", menu="menu", row="done"), button=button).route == "synthetic"
    assert rec.calls == [("hover", (60.0, 40.0)), ("sleep", PRE_CLICK_HOVER_S), ("click", (60.0, 40.0), button, 1)]


def test_no_frame_and_no_action_is_no_action_before_dispatch():
    rec = Recorder()
    with pytest.raises(NativeError) as err:
        run(rec, Node("t"), frame=None)
    assert (err.value.code, err.value.dispatched) == ("no_action", False)
    assert not [c for c in rec.calls if c[0] in ("hover", "click", "hit_test")]


def test_press_repeat_first_refusal_returns_false():
    rec = Recorder()
    node = Node("t", press="click", outcomes=["refused"])
    assert clicktiers.press_repeat(rec, node, "click", 3, sleep=rec.sleep) is False  # type: ignore[arg-type]
    assert rec.calls == [("perform", "t", "click")]


class FocusRecorder(Recorder):
    """A ``FocusPrimitives`` too: ``takes`` keys, focused after ``focus_after`` (a call name)."""

    def __init__(self, *, takes: bool, focus_after: str | None, grab_ok: bool = True) -> None:
        super().__init__()
        self.takes, self.focus_after, self.grab_ok = takes, focus_after, grab_ok
        self.has_focus = focus_after == "action"

    def takes_keys(self, node: Node) -> bool:
        return self.takes

    def focused(self, node: Node) -> bool:
        self.calls.append(("focused", node.name))
        return self.has_focus

    def grab_focus(self, node: Node) -> bool:
        self.calls.append(("grab_focus", node.name))
        self.has_focus = self.focus_after == "grab_focus"
        return self.grab_ok

    def click(self, at: Point, button: str, count: int) -> None:
        super().click(at, button, count)
        self.has_focus = self.focus_after == "synthetic"


def run_focus(rec: FocusRecorder, node: Node) -> clicktiers.Clicked:
    done = run(rec, node)
    return clicktiers.ensure_focus(rec, rec, node, FRAME, done, sleep=rec.sleep)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("focus_after", "route"), [("action", "action"), ("grab_focus", "grab_focus"), ("synthetic", "synthetic")]
)
def test_a_click_on_an_element_that_takes_keys_runs_tiers_until_the_focus_is_there(focus_after, route):
    rec = FocusRecorder(takes=True, focus_after=focus_after)
    done = run_focus(rec, Node("document", press="press"))
    assert done.route == route
    grabbed = ("grab_focus", "document") in rec.calls
    clicked = ("click", (CENTRE.x, CENTRE.y), "left", 1) in rec.calls
    assert (grabbed, clicked) == {"action": (False, False), "grab_focus": (True, False), "synthetic": (True, True)}[
        focus_after
    ]


def test_a_refused_grab_goes_on_to_the_real_click():
    rec = FocusRecorder(takes=True, focus_after="synthetic", grab_ok=False)
    assert run_focus(rec, Node("document", press="press")).route == "synthetic"


def test_an_element_that_takes_no_keys_keeps_its_action_and_the_focus_is_not_read():
    rec = FocusRecorder(takes=False, focus_after=None)
    assert run_focus(rec, Node("button", press="press")).route == "action"
    assert not [c for c in rec.calls if c[0] in ("focused", "grab_focus", "click")]


def test_an_element_that_moved_once_hovered_is_clicked_where_it_is_now():
    # LibreOffice places a new window's cells 25 px too high until a pointer event reaches it
    rec = Recorder()
    node = Node("cell", text_entry=True)
    moved = Rect(FRAME.x, FRAME.y + 25, FRAME.width, FRAME.height)
    done = clicktiers.click_element(
        rec,
        rec,
        node,
        FRAME,
        button="left",
        count=1,
        sleep=rec.sleep,
        reframe=lambda: moved,  # type: ignore[arg-type]
    )
    assert done == clicktiers.Clicked("synthetic", point=moved.center)
    assert rec.calls == [
        ("hover", (60.0, 40.0)),
        ("sleep", PRE_CLICK_HOVER_S),
        ("hover", (60.0, 65.0)),
        ("sleep", PRE_CLICK_HOVER_S),
        ("click", (60.0, 65.0), "left", 1),
    ]


@pytest.mark.parametrize("now", [None, FRAME, Rect(0, 0, 0, 0)])
def test_an_element_that_did_not_move_or_cannot_be_read_is_clicked_where_observed(now: Rect | None):
    rec = Recorder()
    done = clicktiers.click_element(
        rec,
        rec,
        Node("cell", text_entry=True),
        FRAME,
        button="left",
        count=1,
        sleep=rec.sleep,
        reframe=lambda: now,  # type: ignore[arg-type]
    )
    assert done.point == CENTRE
    assert rec.calls == [("hover", (60.0, 40.0)), ("sleep", PRE_CLICK_HOVER_S), ("click", (60.0, 40.0), "left", 1)]


def test_a_click_after_which_the_focus_is_still_elsewhere_says_so():
    """Every tier ran (the action, the grab, a real click at the centre) and the element still
    does not have the focus (Chromium on sway: a click beside a 21 px input): ``focus_missed``."""
    rec = FocusRecorder(takes=True, focus_after=None)
    done = run_focus(rec, Node("field", press="click"))
    assert (done.route, done.focus_missed) == ("synthetic", True)
    assert rec.calls[-1] == ("focused", "field")  # read after the real click
    for after in ("action", "grab_focus", "synthetic"):
        assert run_focus(FocusRecorder(takes=True, focus_after=after), Node("f", press="click")).focus_missed is False


def test_a_click_missing_the_focus_is_reported_as_suspected_noop():
    from deskhand.backends.linux.act.clicks import FOCUS_MISSED, clicked_result  # noqa: PLC0415 (the Linux reply)

    missed = clicked_result(clicktiers.Clicked("synthetic", "click", CENTRE, focus_missed=True), {"x": 1.0})
    assert missed.structured["focus_missed"] == FOCUS_MISSED and "focus_moved_by" not in missed.structured
    assert missed.outcome is not None and missed.outcome.effect == "suspected_noop"
    moved = clicked_result(clicktiers.Clicked("synthetic", "click", CENTRE), {"x": 1.0})
    assert moved.structured["focus_moved_by"] == "synthetic" and moved.outcome is None
