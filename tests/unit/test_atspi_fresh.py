"""When a cached node's children can be trusted (``atspi.tree.children_known``).

The cache answers each item's child count and index live; a node's cached children are its
children only when they are exactly indices 0..count-1. Chromium's shape after a navigation
(the new document missing, the old one still cached under its parent with index -1) is not.
"""

from __future__ import annotations

from deskhand.backends.linux.atspi.nodes import Node, Snapshot
from deskhand.backends.linux.atspi.tree import children_known


def snap(parent_count: int, kids: list[tuple[str, int]]) -> tuple[Snapshot, Node]:
    parent = Node("/p", 39, "", "", 0, frozenset(), child_count=parent_count, children=[k for k, _ in kids])
    nodes = {"/p": parent}
    for path, index in kids:
        nodes[path] = Node(path, 39, "", "", 0, frozenset(), parent="/p", index=index)
    return Snapshot(":1.1", nodes, [], "cache"), parent


def test_exact_indices_are_trusted() -> None:
    s, p = snap(3, [("/a", 0), ("/b", 1), ("/c", 2)])
    assert children_known(s, p)


def test_a_leaf_with_no_children_is_trusted() -> None:
    s, p = snap(0, [])
    assert children_known(s, p)


def test_a_child_missing_from_the_cache_is_not() -> None:
    s, p = snap(3, [("/a", 0), ("/c", 2)])
    assert not children_known(s, p)


def test_chromium_after_a_navigation_is_not() -> None:
    # count 3 and three cached children, but the old document left (index -1) and the new
    # one (index 1) is not cached
    s, p = snap(3, [("/a", 0), ("/c", 2), ("/old", -1)])
    assert not children_known(s, p)


def test_a_lazy_container_without_cached_children_is_not() -> None:
    s, p = snap(-1, [])
    assert not children_known(s, p)


def test_a_menu_that_manages_its_descendants_keeps_the_cached_children() -> None:
    # GTK menus report a child count of -1; their items are cached with index -1
    s, p = snap(-1, [("/new", -1), ("/open", -1)])
    assert children_known(s, p)


def test_an_absurd_count_is_never_enumerated() -> None:
    # LibreOffice Calc's sheet: a few cells cached, a count of 2**31 - 1
    s, p = snap(2147483647, [("/a1", 0), ("/b1", 1)])
    assert children_known(s, p)
