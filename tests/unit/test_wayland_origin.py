"""A GTK 3 window with client-side decorations on Wayland (gedit, Evince): its bounds are relative
to its surface, shadows included, while sway's rect is the window's content only. Measured on
sway with Evince: the frame 652x652 for a 600x600 view, its header bar at (26, 23), its shadow
3 px deeper below than above. ``content_origin`` places the surface that far before the view."""

from __future__ import annotations

from deskhand.backends.linux.observe.placement import Origin, content_origin
from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core.axtree.model import Element
from deskhand.core.geometry import Rect


def _view(x: int, y: int, w: int, h: int) -> WindowInfo:
    """A sway view as the Wayland executor passes it (no margins known)."""
    return WindowInfo(5, 5, 7, "r.pdf", Rect(x, y, w, h), Rect(x, y, w, h), True, 0, gtk_margins=None)


def test_a_csd_window_s_surface_starts_where_its_children_say() -> None:
    header = Element("AXGroup", frame=Rect(26, 23, 600, 46))
    body = Element("AXSplitGroup", frame=Rect(26, 69, 600, 554))
    root = Element("AXWindow", frame=Rect(0, 0, 652, 652), children=[header, body])
    assert content_origin(root, _view(300, 200, 600, 600)) == Origin((274, 177), "span", (652, 652))


def test_without_children_spanning_the_view_the_margins_are_even() -> None:
    header = Element("AXGroup", frame=Rect(26, 23, 600, 46))  # alone: 46 px tall, not the view's 600
    root = Element("AXWindow", frame=Rect(0, 0, 652, 652), children=[header])
    assert content_origin(root, _view(300, 200, 600, 600)) == Origin((274, 174), "guess", (652, 652))


def test_a_window_without_margins_is_at_the_view() -> None:
    """GTK 4 and GTK 3 windows without client-side decorations: bounds the view's size."""
    root = Element("AXWindow", frame=Rect(0, 0, 600, 600), children=[Element("AXGroup", frame=Rect(0, 0, 600, 600))])
    assert content_origin(root, _view(300, 200, 600, 600)) == Origin((300, 200), "surface", (600, 600))


def test_a_window_answered_at_its_surface_margins_is_placed_by_them() -> None:
    """Gecko (Thunderbird) on sway: its window at (26, 23), the view's size; its elements move back."""
    root = Element("AXWindow", frame=Rect(26, 23, 1280, 1080))
    assert content_origin(root, _view(0, 0, 1280, 1080), surface=True) == Origin((-26, -23), "inset", (1280, 1080))
    on_screen = Element("AXWindow", frame=Rect(300, 200, 600, 600))  # bounds on the screen already
    assert content_origin(on_screen, _view(300, 200, 600, 600), surface=True) is None


def test_chromium_s_content_under_whole_frame_wrappers_places_it() -> None:
    """Chromium on sway (measured): its window 1000x800 for a 968x758 view; two panels fill the whole
    surface, and in the inner one the Close button and the client view at (16, 10), 968x758 (its
    shadow 10 px above, 32 below). Even margins would put every element 11 px too high: a click
    on a 21 px input landed on the page above it."""
    close = Element("AXButton", frame=Rect(952, 10, 32, 40))
    client = Element("AXGroup", frame=Rect(16, 10, 968, 758))
    inner = Element("AXGroup", frame=Rect(0, 0, 1000, 800), children=[close, client])
    outer = Element("AXGroup", frame=Rect(0, 0, 1000, 800), children=[inner])
    root = Element("AXWindow", frame=Rect(0, 0, 1000, 800), children=[outer])
    assert content_origin(root, _view(0, 0, 968, 758)) == Origin((-16, -10), "span", (1000, 800))


def test_a_wrapper_smaller_than_the_frame_is_not_looked_into() -> None:
    """Only a wrapper filling the whole frame stands for the window: a child panel's own children
    that happen to span the view's size do not place it."""
    panel = Element("AXGroup", frame=Rect(0, 0, 1000, 790), children=[Element("AXGroup", frame=Rect(16, 10, 968, 758))])
    root = Element("AXWindow", frame=Rect(0, 0, 1000, 800), children=[panel])
    assert content_origin(root, _view(0, 0, 968, 758)) == Origin((-16, -21), "guess", (1000, 800))
