"""The Observer: epochs, diffs and handle checks (sections 3.3 and 3.4).

``test_axtreediff_*`` are counterparts of section 7.2 ``AXTreeDiffTests`` run end to end.
"""

from __future__ import annotations

import pytest

from deskhand.core.axtree import AppTree, Element, EpochCounter, Observer, WindowTree
from deskhand.core.axtree import observer as observer_module
from deskhand.core.errors import NativeError

REQUERY = "Re-query the latest state with get_app_state before sending more actions."


def tree(*children: Element, window_id: int = 7, title: str = "Docs") -> AppTree:
    root = Element("AXWindow", locator="w", children=list(children))
    return AppTree("org.example.Docs", "Docs", 42, [WindowTree(window_id, title, root)])


def button(name: str, locator: str | None = None) -> Element:
    return Element("AXButton", title=name, locator=locator or name)


def observe(observer: Observer, app: AppTree, **kw: object) -> object:
    options: dict[str, object] = {"app_key": "docs", "identity": "P1", "key_window_id": 7, **kw}
    return observer.observe(app, **options)  # type: ignore[arg-type]


class TestEpochs:
    def test_first_observation_is_full_with_epoch_1(self) -> None:
        result = Observer().observe(tree(button("Save")), app_key="docs", identity="P1", key_window_id=7)
        assert (result.epoch, result.is_diff) == (1, False)
        assert result.text == result.full_text
        assert result.text.split("\n")[2:] == ["g1:0 window", "\tg1:1 button Save"]

    def test_axtreediff_same_process_and_window_reuses_epoch_and_diffs(self) -> None:
        observer = Observer()
        observer.observe(tree(button("A")), app_key="docs", identity="P1", key_window_id=7)
        result = observer.observe(tree(button("A"), button("C")), app_key="docs", identity="P1", key_window_id=7)
        assert (result.epoch, result.is_diff) == (1, True)
        assert result.text.split("\n")[1:] == ["+\tg1:2 button C"]

    def test_axtreediff_no_change_text_with_focus_tail(self) -> None:
        observer = Observer()
        field = Element("AXTextField", title="Name", locator="n", focused=True)
        observer.observe(tree(field), app_key="docs", identity="P1", key_window_id=7)
        result = observer.observe(tree(field), app_key="docs", identity="P1", key_window_id=7)
        assert result.text == (
            'There has been no change in the accessibility tree for Window: "Docs".\n\n'
            "The focused UI element is g1:1 text field Name."
        )

    def test_axtreediff_value_change_keeps_the_id_and_marks_it_changed(self) -> None:
        observer = Observer()
        observer.observe(
            tree(Element("AXTextField", value="old", locator="v")), app_key="docs", identity="P1", key_window_id=7
        )
        result = observer.observe(
            tree(Element("AXTextField", value="Updated", locator="v")), app_key="docs", identity="P1", key_window_id=7
        )
        assert result.text.split("\n")[1:] == ["~\tg1:1 text field Value: Updated"]

    def test_axtreediff_removed_ids_are_never_reused(self) -> None:
        observer = Observer()
        observer.observe(tree(button("A"), button("B"), button("C")), app_key="docs", identity="P1", key_window_id=7)
        second = observer.observe(tree(button("A")), app_key="docs", identity="P1", key_window_id=7)
        assert second.text.split("\n")[1] == "Removed element IDs: 2-3"
        third = observer.observe(tree(button("A"), button("B")), app_key="docs", identity="P1", key_window_id=7)
        assert third.text.split("\n")[1:] == ["+\tg1:4 button B"]
        assert sorted(third.ids) == [0, 1, 4]

    def test_axtreediff_ambiguous_duplicates_get_new_ids(self) -> None:
        observer = Observer()
        observer.observe(tree(button("A", "same"), button("B", "same")), app_key="docs", identity="P1", key_window_id=7)
        result = observer.observe(
            tree(button("A", "same"), button("B", "same")), app_key="docs", identity="P1", key_window_id=7
        )
        assert result.text.split("\n")[1:] == [
            "Removed element IDs: 1-2",
            "+\tg1:3 button A",
            "+\tg1:4 button B",
        ]

    def test_disable_diff_forces_full_text_but_keeps_the_epoch_and_ids(self) -> None:
        observer = Observer()
        observer.observe(tree(button("A")), app_key="docs", identity="P1", key_window_id=7)
        result = observer.observe(
            tree(button("A"), button("B")), app_key="docs", identity="P1", key_window_id=7, disable_diff=True
        )
        assert (result.epoch, result.is_diff) == (1, False)
        assert result.text.split("\n")[2:] == ["g1:0 window", "\tg1:1 button A", "\tg1:2 button B"]
        # The full text became the baseline: the next call diffs against it.
        again = observer.observe(tree(button("A"), button("B")), app_key="docs", identity="P1", key_window_id=7)
        assert again.text.startswith("There has been no change")

    @pytest.mark.parametrize(
        ("identity", "window"),
        [("P2", 7), ("P1", 8), (None, 7), ("P1", None)],
        ids=["identity changed", "key window changed", "identity unproven", "key window unknown"],
    )
    def test_axtreediff_epoch_rotates(self, identity: str | None, window: int | None) -> None:
        observer = Observer()
        observer.observe(tree(button("A")), app_key="docs", identity="P1", key_window_id=7)
        result = observer.observe(tree(button("A")), app_key="docs", identity=identity, key_window_id=window)
        assert (result.epoch, result.is_diff) == (2, False)
        assert result.text.split("\n")[2:] == ["g2:0 window", "\tg2:1 button A"]

    def test_epoch_counter_is_shared_by_apps(self) -> None:
        observer = Observer()
        assert observer.observe(tree(), app_key="a", identity="P", key_window_id=1).epoch == 1
        assert observer.observe(tree(), app_key="b", identity="Q", key_window_id=2).epoch == 2

    def test_forget_keeps_the_counter_growing(self) -> None:
        observer = Observer(EpochCounter())
        observer.observe(tree(), app_key="a", identity="P", key_window_id=1)
        observer.forget("a")
        assert observer.epoch("a") is None
        assert observer.observe(tree(), app_key="a", identity="P", key_window_id=1).epoch == 2

    def test_unverifiable_window_rows_never_inherit(self) -> None:
        observer = Observer()
        observer.observe(tree(button("A"), window_id=0), app_key="docs", identity="P1", key_window_id=7)
        result = observer.observe(tree(button("A"), window_id=0), app_key="docs", identity="P1", key_window_id=7)
        assert result.text.split("\n")[1:] == ["Removed element IDs: 0-1", "+g1:2 window", "+\tg1:3 button A"]

    def test_inlined_row_texts_keep_their_ids(self) -> None:
        cells = [Element("AXCell", children=[Element("AXStaticText", value=v)]) for v in ("a.txt", "3 KB")]
        row = Element("AXRow", locator="r", children=cells)
        observer = Observer()
        observer.observe(tree(row), app_key="docs", identity="P1", key_window_id=7)
        result = observer.observe(tree(row), app_key="docs", identity="P1", key_window_id=7)
        assert result.text.startswith("There has been no change")
        assert result.ids[2] is row


class TestElement:
    def observed(self) -> tuple[Observer, Element]:
        observer = Observer()
        save = button("Save")
        observer.observe(tree(save, button("Open")), app_key="docs", identity="P1", key_window_id=7)
        return observer, save

    def test_returns_the_element(self) -> None:
        observer, save = self.observed()
        assert observer.element("docs", "g1:1", identity="P1") is save

    def error(self, observer: Observer, app_key: str, handle: str, identity: object) -> NativeError:
        with pytest.raises(NativeError) as caught:
            observer.element(app_key, handle, identity=identity)
        assert caught.value.dispatched is False
        return caught.value

    def test_1_no_snapshot_is_stale_snapshot(self) -> None:
        error = self.error(Observer(), "docs", "g1:1", "P1")
        assert (error.code, error.message) == ("stale_snapshot", f"The user changed 'docs'. {REQUERY}")

    def test_2_identity_mismatch_is_stale_process_before_the_epoch_check(self) -> None:
        observer, _ = self.observed()
        for identity in ("P2", None):
            error = self.error(observer, "docs", "g9:1", identity)
            assert (error.code, error.message) == ("stale_process", f"The target process changed. {REQUERY}")

    def test_2_an_unproven_snapshot_identity_is_stale_process(self) -> None:
        observer = Observer()
        observer.observe(tree(button("A")), app_key="docs", identity=None, key_window_id=7)
        assert self.error(observer, "docs", "g1:1", None).code == "stale_process"

    def test_3_other_epoch_is_stale_snapshot(self) -> None:
        observer, _ = self.observed()
        error = self.error(observer, "docs", "g2:1", "P1")
        assert (error.code, error.message) == ("stale_snapshot", f"Snapshot handle g2:1 is stale. {REQUERY}")

    def test_4_removed_sparse_id_is_bad_index(self) -> None:
        observer, _ = self.observed()
        observer.observe(tree(button("Open")), app_key="docs", identity="P1", key_window_id=7)
        error = self.error(observer, "docs", "g1:1", "P1")
        assert (error.code, error.message) == (
            "bad_index",
            "Element handle g1:1 not found in snapshot (has 2 elements).",
        )
        assert observer.element("docs", "g1:2", identity="P1").title == "Open"

    def test_old_epoch_handles_are_stale_after_rotation(self) -> None:
        observer, _ = self.observed()
        observer.observe(tree(button("Save")), app_key="docs", identity="P1", key_window_id=8)
        assert self.error(observer, "docs", "g1:1", "P1").code == "stale_snapshot"
        assert observer.element("docs", "g2:1", identity="P1").title == "Save"

    def test_malformed_handle_is_bad_payload(self) -> None:
        observer, _ = self.observed()
        assert self.error(observer, "docs", "1", "P1").code == "bad_payload"


class TestSameTreeAgain:
    """An image-only observation may hand the observer the very tree it numbered last time."""

    def test_the_same_tree_object_keeps_its_ids_and_reads_as_no_change(self, monkeypatch: pytest.MonkeyPatch) -> None:
        observer = Observer()
        app = tree(button("A"), button("B"))
        first = observer.observe(app, app_key="docs", identity="P1", key_window_id=7)
        walks: list[AppTree] = []
        real_walk = observer_module.walk
        monkeypatch.setattr(observer_module, "walk", lambda t: walks.append(t) or real_walk(t))
        again = observer.observe(app, app_key="docs", identity="P1", key_window_id=7, unchanged=True)
        assert walks == []  # not walked again
        assert (again.epoch, again.is_diff, again.full_text) == (first.epoch, True, first.full_text)
        assert again.text == 'There has been no change in the accessibility tree for Window: "Docs".'
        assert dict(again.ids) == dict(first.ids)
        # an equal tree that is another object is walked, and keeps the ids by their keys
        other = observer.observe(
            tree(button("A"), button("B")), app_key="docs", identity="P1", key_window_id=7, unchanged=True
        )
        assert len(walks) == 1 and other.full_text == first.full_text
        # without the caller's word, the same object is walked again (it may have been changed in place)
        observer.observe(app, app_key="docs", identity="P1", key_window_id=7)
        assert len(walks) == 2

    def test_the_same_tree_in_a_new_epoch_is_walked(self, monkeypatch: pytest.MonkeyPatch) -> None:
        observer = Observer()
        app = tree(button("A"))
        observer.observe(app, app_key="docs", identity="P1", key_window_id=7)
        walks: list[AppTree] = []
        real_walk = observer_module.walk
        monkeypatch.setattr(observer_module, "walk", lambda t: walks.append(t) or real_walk(t))
        result = observer.observe(app, app_key="docs", identity="P2", key_window_id=7, unchanged=True)  # new process
        assert walks == [app] and result.epoch == 2 and not result.is_diff

    def test_an_unverifiable_window_is_numbered_anew_even_as_the_same_tree(self) -> None:
        observer = Observer()
        app = tree(button("A"), window_id=0)
        observer.observe(app, app_key="docs", identity="P1", key_window_id=7)
        result = observer.observe(app, app_key="docs", identity="P1", key_window_id=7, unchanged=True)
        assert result.text.split("\n")[1:] == ["Removed element IDs: 0-1", "+g1:2 window", "+\tg1:3 button A"]


class TestWindowsWithoutId:
    """A window without a platform id (0): its rows inherit ids only when it has a locator (an
    open menu of a menu bar, named by its menu bar item), so a menu's items keep their handles
    while it stays open."""

    def menu_tree(self, locator: str | None) -> AppTree:
        menu = Element("AXMenu", title="Insert", locator="open-menu:menu@7", children=[button("Chart")])
        main = Element("AXWindow", locator="w", children=[button("OK")])
        return AppTree("x", "X", 1, [WindowTree(0, "Insert", menu, locator=locator), WindowTree(7, "Docs", main)])

    @pytest.mark.parametrize(("locator", "kept"), [("open-menu:menu@7", True), (None, False)])
    def test_rows_keep_their_ids_only_with_a_locator(self, locator: str | None, kept: bool) -> None:
        observer = Observer()
        first = observer.observe(self.menu_tree(locator), app_key="a", identity="P", key_window_id=7).text
        again = observer.observe(
            self.menu_tree(locator), app_key="a", identity="P", key_window_id=7, disable_diff=True
        ).text

        def chart(text: str) -> str:
            return next(line.split()[0] for line in text.splitlines() if line.endswith("button Chart"))

        assert (chart(first) == chart(again)) is kept, (first, again)
