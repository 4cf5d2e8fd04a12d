"""Where a window-relative app's bounds go on the screen (``observe.tree``'s reads): the origin
its window's content starts at (``content_origin``), and the shift of a whole tree by it."""

from __future__ import annotations

from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core.axtree.model import Element
from deskhand.core.geometry import Rect, span

__all__ = ["content_origin", "shift"]


def content_origin(root: Element, xwin: WindowInfo, surface: bool = False) -> tuple[int, int] | None:
    """Where on the screen the bounds of a window-relative app (GTK 4 answers ``GetExtents``
    relative to its window whatever the coordinate type) start: the X window's client area less
    the margins GTK keeps around its content (client-side decorations' resize borders and
    shadows): the window's ``_GTK_FRAME_EXTENTS`` when it sets them, else taken as even on
    opposite sides; negative on Wayland (KWin's surface shadows around the content rect). A
    window whose bounds are larger than its client area (a sway view's rect is its content, not
    the surface's margins: GTK 3 client-side decorations) starts that much before it: where its
    children start when they span the client area's size exactly, else by even margins. A Wayland
    client's bounds not at (0, 0) of its surface (``surface``: Gecko answers its window at its
    margins, (26, 23)) place it by them; None when that puts it where it is, and for bounds not
    at (0, 0) on X11 (on the screen already)."""
    frame = root.frame
    if frame is None:
        return None
    c = xwin.client
    if (frame.x, frame.y) != (0, 0):
        origin = round(c.x - frame.x), round(c.y - frame.y)
        return origin if surface and origin != (0, 0) else None
    if (frame.width, frame.height) == (c.width, c.height):
        return round(c.x), round(c.y)  # relative to the whole surface (GTK 3 on GNOME)
    if xwin.gtk_margins is not None:
        left, right, top, bottom = xwin.gtk_margins
        if min(xwin.gtk_margins) < 0:  # a Wayland surface's shadows around its content rect (KWin)
            around = (frame.width, frame.height) == (c.width - left - right, c.height - top - bottom)
            return (round(c.x + left), round(c.y + top)) if around else (round(c.x), round(c.y))
        return round(c.x + left), round(c.y + top)
    if frame.width > c.width or frame.height > c.height:
        inner = span(ch.frame for ch in root.children if ch.frame is not None and ch.frame.width and ch.frame.height)
        if inner is not None and (round(inner.width), round(inner.height)) == (round(c.width), round(c.height)):
            return round(c.x - inner.x), round(c.y - inner.y)
        return round(c.x - max(0.0, frame.width - c.width) / 2), round(c.y - max(0.0, frame.height - c.height) / 2)
    return round(c.x + max(0.0, c.width - frame.width) / 2), round(c.y + max(0.0, c.height - frame.height) / 2)


def shift(root: Element, dx: int, dy: int) -> list[str]:
    """Move every frame in ``root``'s tree by (dx, dy), each element once; the object paths of
    the elements moved."""
    paths: list[str] = []
    stack, seen = [root], set()
    while stack:
        el = stack.pop()
        if id(el) in seen:
            continue
        seen.add(id(el))
        if el.frame is not None:
            el.frame = Rect(el.frame.x + dx, el.frame.y + dy, el.frame.width, el.frame.height)
        path = getattr(el.ref, "path", None)
        if isinstance(path, str):
            paths.append(path)
        stack.extend(el.children)
    return paths
