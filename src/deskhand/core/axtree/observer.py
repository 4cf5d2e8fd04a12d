"""The stateful, pure observer a backend calls once per observation (sections 3.2 to 3.4).

One ``Observer`` lives per executor. It owns the daemon-global epoch counter and, per view (one
session's view of one process of an app: a ``ViewKey``), the last snapshot: its epoch, process
identity, key window, ids, locator keys and lines. Views never share a snapshot, so one session's
or one process's observation changes neither the handles, the diff nor the key window of another.
``observe`` numbers a fresh ``AppTree`` and returns its full text or a diff; ``element``
resolves a handle with the checks of section 3.3 in order.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from deskhand.core.axtree.diff import DiffLine, diff_text
from deskhand.core.axtree.handles import EpochCounter, Handle, Reconciliation, reconcile, refresh_policy
from deskhand.core.axtree.model import AppTree, Element
from deskhand.core.axtree.render import (
    LocatorKey,
    Walk,
    context_tail,
    focused_element,
    full_text,
    key_window_title,
    walk,
)
from deskhand.core.errors import NativeError

REQUERY: Final = "Re-query the latest state with get_app_state before sending more actions."


@dataclass(frozen=True, slots=True)
class ViewKey:
    """Whose observation state: one session's view of one process of an app.

    Printed as the app id, which is what the contract's texts name."""

    app_id: str
    pid: int = 0
    #: the host session observing (0: the first, and the only one of stdio and the SDK)
    session: int = 0

    def __str__(self) -> str:
        return self.app_id


@dataclass(frozen=True, slots=True)
class Observation:
    """What one observation returns."""

    #: The native axText: the full tree or the diff (no envelope).
    text: str
    #: The full tree text, always (for advice checks and logs).
    full_text: str
    epoch: int
    is_diff: bool
    truncated: bool
    #: Every emitted id and the element behind it (a row for its inlined cell texts).
    ids: Mapping[int, Element]


@dataclass(frozen=True, slots=True)
class _Snapshot:
    app_name: str
    epoch: int
    identity: object | None
    key_window_id: int | None
    next_id: int
    elements: Mapping[int, Element]
    keys: Mapping[int, LocatorKey]
    lines: tuple[DiffLine, ...]
    #: The tree this snapshot numbered, with its walk and ids: the same tree object observed
    #: again in the same epoch (an image-only observation reusing the last read) is not walked again.
    tree: AppTree | None = None
    walked: Walk | None = None
    reconciled: Reconciliation | None = None


class Observer:
    """Numbers observations and resolves handles; holds no OS state."""

    def __init__(self, epochs: EpochCounter | None = None) -> None:
        self.epochs = epochs or EpochCounter()
        self._snapshots: dict[Hashable, _Snapshot] = {}

    def observe(
        self,
        tree: AppTree,
        *,
        app_key: Hashable,
        identity: object | None,
        key_window_id: int | None,
        disable_diff: bool = False,
        unchanged: bool = False,
    ) -> Observation:
        """Render ``tree``, reconcile ids against the view's last snapshot, and store it.

        ``app_key``: the view (a ``ViewKey``; any hashable printed as the app's name).

        ``identity`` is an opaque comparable process identity (None when unproven);
        ``key_window_id`` is the key window's platform id (None when unknown). ``unchanged``: the
        caller vouches that ``tree`` was not modified since it was last observed, if it was; the
        very same object is then not walked again in the same epoch.
        """
        previous = self._snapshots.get(app_key)
        policy = refresh_policy(
            previous_identity=previous.identity if previous else None,
            current_identity=identity,
            previous_window=previous.key_window_id if previous else None,
            current_window=key_window_id,
            has_baseline=previous is not None,
            disable_diff=disable_diff,
        )
        baseline = previous if policy.reuse_epoch else None
        epoch = baseline.epoch if baseline is not None else self.epochs.consume()

        if (
            unchanged
            and baseline is not None
            and baseline.tree is tree
            and baseline.walked is not None
            and baseline.reconciled is not None
            and None not in baseline.keys.values()  # a key of None never inherits its id
        ):
            # the very tree numbered last time, in the same epoch: a walk would give the same ids
            result, ids = baseline.walked, baseline.reconciled
        else:
            result = walk(tree)
            ids = reconcile(
                baseline.keys if baseline is not None else {},
                [node.key for node in result.nodes],
                baseline.next_id if baseline is not None else 0,
            )
        lines = tuple(
            DiffLine(stable, "\t" * node.depth + f"{Handle(epoch, stable)}{node.suffix}")
            for stable, node in zip(ids.ids, result.nodes, strict=True)
        )
        focus_line = None
        if result.focus is not None:
            position, suffix = result.focus
            focus_line = f"{Handle(epoch, ids.ids[position])}{suffix}"
        focused = focused_element(tree)
        tail = context_tail(focus_line, focused.selected_text if focused else None)
        title = key_window_title(tree, key_window_id)
        full = full_text(tree, title, [line.text for line in lines], tail)
        is_diff = baseline is not None and not policy.return_full
        text = diff_text(baseline.lines, lines, title, tail) if baseline is not None and is_diff else full

        elements = {stable: node.element for stable, node in zip(ids.ids, result.nodes, strict=True)}
        self._snapshots[app_key] = _Snapshot(
            app_name=tree.app_name,
            epoch=epoch,
            identity=identity,
            key_window_id=key_window_id,
            next_id=ids.next_id,
            elements=elements,
            keys={stable: node.key for stable, node in zip(ids.ids, result.nodes, strict=True)},
            lines=lines,
            tree=tree,
            walked=result,
            reconciled=ids,
        )
        return Observation(
            text=text,
            full_text=full,
            epoch=epoch,
            is_diff=is_diff,
            truncated=result.truncated,
            ids=MappingProxyType(elements),
        )

    def element(self, app_key: Hashable, handle: str, *, identity: object | None) -> Element:
        """The element behind ``handle``, checked in the contract's order.

        Raises ``bad_payload`` for a malformed handle, then ``stale_snapshot`` (no snapshot),
        ``stale_process`` (identity differs or is unproven), ``stale_snapshot`` (another
        epoch) and ``bad_index`` (the id is not in the sparse member set).
        """
        parsed = Handle.parse(handle)
        snapshot = self._snapshots.get(app_key)
        if snapshot is None:
            raise NativeError("stale_snapshot", f"The user changed '{app_key}'. {REQUERY}", dispatched=False)
        if snapshot.identity is None or identity is None or identity != snapshot.identity:
            raise NativeError("stale_process", f"The target process changed. {REQUERY}", dispatched=False)
        if parsed.epoch != snapshot.epoch:
            raise NativeError("stale_snapshot", f"Snapshot handle {handle} is stale. {REQUERY}", dispatched=False)
        element = snapshot.elements.get(parsed.id)
        if element is None:
            count = len(snapshot.elements)
            raise NativeError(
                "bad_index",
                f"Element handle {handle} not found in snapshot (has {count} elements).",
                dispatched=False,
            )
        return element

    def window_of(self, app_key: Hashable, element: Element) -> int | None:
        """The platform id of the window of the app's last observation that holds ``element``
        (None when no window does, or its id is unknown: 0)."""
        snapshot = self._snapshots.get(app_key)
        for window in snapshot.tree.windows if snapshot is not None and snapshot.tree is not None else ():
            stack, seen = [window.root], set()
            while stack:
                el = stack.pop()
                if el is element:
                    return window.window_id or None
                if id(el) not in seen:
                    seen.add(id(el))
                    stack.extend(el.children)
        return None

    def key_window(self, app_key: Hashable, *, identity: object | None) -> int | None:
        """The key window id of the app's last observation, for keyboard and paste (6.1, 6.5).

        Raises ``stale_snapshot`` before any observation and ``stale_process`` when ``identity``
        is not the observed one (or either is unproven).
        """
        snapshot = self._snapshots.get(app_key)
        if snapshot is None:
            raise NativeError(
                "stale_snapshot",
                f"'{app_key}' was not observed yet. Call get_app_state before typing or pressing keys.",
                dispatched=False,
            )
        if snapshot.identity is None or identity is None or identity != snapshot.identity:
            raise NativeError("stale_process", f"The target process changed. {REQUERY}", dispatched=False)
        return snapshot.key_window_id

    def epoch(self, app_key: Hashable) -> int | None:
        """The app's current epoch, or None before its first observation."""
        snapshot = self._snapshots.get(app_key)
        return snapshot.epoch if snapshot else None

    def forget(self, app_key: Hashable) -> None:
        """Drop the app's snapshot (its process exited); the epoch counter keeps growing."""
        self._snapshots.pop(app_key, None)
