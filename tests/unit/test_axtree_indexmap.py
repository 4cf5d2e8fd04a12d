"""The integer-index map (section 3.5).

``test_replapi_*`` are the counterparts of section 7.1 ``replApi.test.ts``: "Indices follow diffs,
removals, no-change, and new generations" and "Quoted instructions never mint handles; invalid
targets never reach the bridge". The property test checks that applying a diff's index updates
to the old map gives the new full-tree map.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deskhand.core.axtree import AppTree, Element, IndexMap, Observer, WindowTree, frame_envelope
from deskhand.core.errors import DeskhandError

FULL = 'App=org.example (pid 1)\nWindow: "W", App: E.\ng3:0 window\n\tg3:1 button A\n\tg3:2 button B\n\tg3:5 text x'
DIFF_HEADER = (
    'The following is a diff from the previous accessibility tree for Window: "W" with ~ and + representing '
    "changed and added elements, respectively. Removed elements are summarized by ID range."
)


def remembered(*texts: str) -> dict[int, str]:
    index = IndexMap()
    for text in texts:
        index.remember(text)
    return dict(index)


def test_replapi_full_tree_maps_element_ids_not_line_numbers() -> None:
    assert remembered(FULL) == {0: "g3:0", 1: "g3:1", 2: "g3:2", 5: "g3:5"}


def test_replapi_indices_follow_diffs_and_removals() -> None:
    diff = f"{DIFF_HEADER}\nRemoved element IDs: 1-2\n~\tg3:5 text y\n+\t\tg3:6 button C"
    assert remembered(FULL, diff) == {0: "g3:0", 5: "g3:5", 6: "g3:6"}


def test_replapi_indices_survive_no_change() -> None:
    no_change = (
        'There has been no change in the accessibility tree for Window: "W".\n\n'
        "The focused UI element is g3:1 button A."
    )
    assert remembered(FULL, no_change) == remembered(FULL)


def test_replapi_a_new_generation_clears_the_map() -> None:
    assert remembered(FULL, 'App=x (pid 1)\nWindow: "W", App: E.\ng4:0 window') == {0: "g4:0"}


def test_replapi_a_new_generation_inside_a_diff_clears_the_map() -> None:
    assert remembered(FULL, f"{DIFF_HEADER}\n+g9:7 window") == {7: "g9:7"}


def test_replapi_a_full_tree_replaces_the_map() -> None:
    assert remembered(FULL, 'App=x (pid 1)\nWindow: "W", App: E.\ng3:9 window') == {9: "g3:9"}


def test_replapi_quoted_instructions_never_mint_handles() -> None:
    text = frame_envelope("g3:0 window\n\tg3:1 button A", "g3:77 is the send button\ng3:78 too")
    assert remembered(text) == {0: "g3:0", 1: "g3:1"}


def test_replapi_focus_and_selected_text_lines_are_not_handles() -> None:
    text = f"{FULL}\n\nThe focused UI element is g3:1 button A."
    assert 1 in remembered(text)
    assert remembered("App=x (pid 1)\n\nSelected text: [g3:4 hi]") == {}


def test_removed_ranges_delete_only_mapped_ids() -> None:
    assert remembered(FULL, f"{DIFF_HEADER}\nRemoved element IDs: 0, 2-4") == {1: "g3:1", 5: "g3:5"}


class TestResolve:
    def test_handles_pass_through(self) -> None:
        assert IndexMap().resolve("g12:3") == "g12:3"

    def test_integers_map_through_the_aliases(self) -> None:
        index = IndexMap()
        index.remember(FULL)
        assert index.resolve(5) == "g3:5"

    def test_unmapped_integer_message(self) -> None:
        with pytest.raises(DeskhandError) as caught:
            IndexMap().resolve(4)
        assert caught.value.message == (
            "Element 4 has no current observed handle. "
            "Call getAXState({disableDiffing:true}) before using an integer index."
        )
        assert caught.value.dispatched is False

    @pytest.mark.parametrize("target", ["g03:1", "3", -1, 1.5, True, None, 2**53])
    def test_invalid_targets_never_reach_the_bridge(self, target: object) -> None:
        with pytest.raises(DeskhandError) as caught:
            IndexMap().resolve(target)
        assert caught.value.message == "Expected an observed integer element index or an opaque gN:id handle"


# Property: applying a diff's index updates to the old map gives the new full-tree map.

_LOCATORS = st.sampled_from(["a", "b", "c", "d", "e", "f"])
_TITLES = st.sampled_from(["Save", "Open", "", "Close"])


@st.composite
def elements(draw: st.DrawFn, depth: int = 0) -> Element:
    role = draw(st.sampled_from(["AXButton", "AXGroup", "AXTextField", "AXRow", "AXStaticText"]))
    kids = draw(st.lists(elements(depth + 1), max_size=3)) if depth < 3 else []
    return Element(
        role,
        title=draw(_TITLES) or None,
        value=draw(st.sampled_from([None, "x", "y", 0.5])),
        selected=draw(st.booleans()),
        locator=draw(_LOCATORS),
        children=kids,
    )


def tree_of(children: list[Element]) -> AppTree:
    return AppTree("org.example", "E", 1, [WindowTree(9, "W", Element("AXWindow", locator="w", children=children))])


@settings(max_examples=150, deadline=None)
@given(st.lists(elements(), max_size=5), st.lists(elements(), max_size=5))
def test_applying_a_diff_to_the_old_map_gives_the_new_full_map(old: list[Element], new: list[Element]) -> None:
    observer = Observer()
    first = observer.observe(tree_of(old), app_key="e", identity="p", key_window_id=9)
    second = observer.observe(tree_of(new), app_key="e", identity="p", key_window_id=9)
    assert second.is_diff
    assert second.epoch == first.epoch
    followed = remembered(frame_envelope(first.text), frame_envelope(second.text))
    assert followed == remembered(frame_envelope(second.full_text))
    assert set(followed) == set(second.ids)
