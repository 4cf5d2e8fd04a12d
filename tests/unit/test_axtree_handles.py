"""Handles, the epoch counter, reconciliation and the refresh policy (section 3.3).

Tests named ``test_axtreediff_*`` are the counterparts of section 7.2 ``AXTreeDiffTests``.
"""

from __future__ import annotations

import pytest

from deskhand.core.axtree.handles import EpochCounter, Fingerprint, Handle, check_fingerprint, reconcile, refresh_policy
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect


class TestHandle:
    @pytest.mark.parametrize(("text", "epoch", "element"), [("g7:0", 7, 0), ("g3:25", 3, 25), ("g0:0", 0, 0)])
    def test_parse_and_format(self, text: str, epoch: int, element: int) -> None:
        handle = Handle.parse(text)
        assert (handle.epoch, handle.id) == (epoch, element)
        assert str(handle) == text

    @pytest.mark.parametrize(
        "text",
        ["g07:1", "g7:01", "7:1", "g7", "g7:1 ", "G7:1", "g-1:2", "", "g7:1:2", "g7:1\n", "g\u0661:2", "g7:\uff11"],
    )
    def test_malformed_handles_are_bad_payload(self, text: str) -> None:
        with pytest.raises(NativeError) as caught:
            Handle.parse(text)
        assert caught.value.code == "bad_payload"
        assert caught.value.message == (
            "element_index must be the opaque handle copied from the beginning of a get_app_state line "
            "(for example g17:4)"
        )


def test_epoch_counter_starts_at_1_and_only_grows() -> None:
    counter = EpochCounter()
    assert [counter.consume() for _ in range(3)] == [1, 2, 3]
    assert counter.peek == 4


def test_axtreediff_unique_locator_retains_stable_id() -> None:
    first = reconcile({}, ["window/search"], 0)
    assert first.ids == (0,)
    again = reconcile({0: "window/search"}, ["window/search"], first.next_id)
    assert again.ids == (0,)
    assert again.next_id == 1


def test_axtreediff_added_ids_are_monotonic_and_removed_ids_never_reused() -> None:
    first = reconcile({}, ["a", "b"], 0)
    assert first.ids == (0, 1)
    second = reconcile({0: "a", 1: "b"}, ["a", "c"], first.next_id)
    assert second.ids == (0, 2)
    assert second.next_id == 3
    third = reconcile({0: "a", 2: "c"}, ["a", "b"], second.next_id)
    assert third.ids == (0, 3)  # "b" came back but 1 is never reissued


def test_axtreediff_ambiguous_duplicate_locators_never_inherit() -> None:
    result = reconcile({4: "shared-row", 5: "shared-row"}, ["shared-row", "shared-row"], 6)
    assert result.ids == (6, 7)
    assert result.next_id == 8


def test_axtreediff_a_key_duplicated_only_in_the_new_tree_does_not_inherit() -> None:
    assert reconcile({0: "row"}, ["row", "row"], 1).ids == (1, 2)


def test_axtreediff_a_key_duplicated_only_in_the_old_tree_does_not_inherit() -> None:
    assert reconcile({0: "row", 1: "row"}, ["row"], 2).ids == (2,)


def test_axtreediff_transient_rows_never_inherit() -> None:
    assert reconcile({6: None}, [None], 7).ids == (7,)


def test_axtreediff_reconciliation_rejects_a_next_id_that_would_reuse() -> None:
    with pytest.raises(ValueError, match="next_id"):
        reconcile({4: "a"}, ["a"], 4)
    with pytest.raises(ValueError, match="next_id"):
        reconcile({}, ["a"], -1)


class TestRefreshPolicy:
    """The refresh-policy matrix of AXTreeDiffTests."""

    def policy(self, prev: object, cur: object, prev_w: int | None, cur_w: int | None, **kw: bool) -> tuple[bool, bool]:
        result = refresh_policy(
            previous_identity=prev,
            current_identity=cur,
            previous_window=prev_w,
            current_window=cur_w,
            has_baseline=kw.get("has_baseline", True),
            disable_diff=kw.get("disable_diff", False),
        )
        return result.reuse_epoch, result.return_full

    def test_axtreediff_same_proven_key_window_reuses(self) -> None:
        assert self.policy("A", "A", 42, 42) == (True, False)

    def test_axtreediff_other_key_window_rotates(self) -> None:
        assert self.policy("A", "A", 42, 99) == (False, True)

    def test_axtreediff_unknown_key_window_rotates(self) -> None:
        assert self.policy("A", "A", 42, None) == (False, True)
        assert self.policy("A", "A", None, None) == (False, True)

    def test_axtreediff_disable_diff_forces_full_without_rotating(self) -> None:
        assert self.policy("A", "A", 42, 42, disable_diff=True) == (True, True)

    def test_axtreediff_missing_baseline_is_full(self) -> None:
        assert self.policy(None, "A", None, 42, has_baseline=False) == (False, True)

    def test_axtreediff_relaunch_with_reused_pid_and_window_rotates(self) -> None:
        assert self.policy(("app", "/bin/app", 100), ("app", "/bin/app", 200), 42, 42) == (False, True)

    def test_axtreediff_unproven_identity_rotates(self) -> None:
        assert self.policy(None, None, 42, 42) == (False, True)


class TestFingerprint:
    """Step 6 of section 3.3: the element fetched again must be the one observed."""

    SEEN = Fingerprint(43, "Send A", Rect(10.0, 20.0, 80.0, 30.0))

    def test_the_same_element_passes(self) -> None:
        check_fingerprint("g1:5", self.SEEN, Fingerprint(43, "Send A", Rect(10.0, 20.0, 80.0, 30.0)))

    def test_rounding_within_a_point_passes(self) -> None:
        check_fingerprint("g1:5", self.SEEN, Fingerprint(43, "Send A", Rect(10.6, 19.5, 80.0, 30.9)))

    @pytest.mark.parametrize(
        ("live", "why"),
        [
            (None, "no longer exists"),
            (Fingerprint(29, "Send A", Rect(10.0, 20.0, 80.0, 30.0)), "role changed"),
            (Fingerprint(43, "Send B", Rect(10.0, 20.0, 80.0, 30.0)), "name changed to 'Send B'"),
        ],
    )
    def test_any_difference_is_stale_element_before_dispatch(self, live: Fingerprint | None, why: str) -> None:
        with pytest.raises(NativeError) as err:
            check_fingerprint("g1:5", self.SEEN, live)
        assert err.value.code == "stale_element"
        assert err.value.dispatched is False
        assert err.value.message.startswith("Element g1:5 is stale: ")
        assert why in err.value.message

    def test_a_moved_element_is_the_same_one_and_the_action_goes_where_it_is_now(self) -> None:
        moved = Rect(10.0, 60.0, 80.0, 30.0)
        assert check_fingerprint("g1:5", self.SEEN, Fingerprint(43, "Send A", moved)) == moved
        assert check_fingerprint("g1:5", self.SEEN, Fingerprint(43, "Send A", Rect(10.4, 20.0, 80.0, 30.0))) == (
            self.SEEN.bounds
        )
        assert check_fingerprint("g1:5", self.SEEN, Fingerprint(43, "Send A", None)) == self.SEEN.bounds

    def test_an_element_observed_without_bounds_is_checked_by_role_and_name(self) -> None:
        seen = Fingerprint(33, "File", None)
        check_fingerprint("g2:0", seen, Fingerprint(33, "File", None))
        check_fingerprint("g2:0", seen, Fingerprint(33, "File", Rect(0.0, 19.0, 39.0, 25.0)))
        with pytest.raises(NativeError, match="name changed"):
            check_fingerprint("g2:0", seen, Fingerprint(33, "Edit", Rect(0.0, 19.0, 39.0, 25.0)))
