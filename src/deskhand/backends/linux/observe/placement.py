"""Where a window-relative app's bounds go on the screen (``observe.tree``'s reads): the origin
its window's content starts at and how it was found (``content_origin``, an :class:`Origin`), the
shift of a whole tree by it, and the notice for a window placed by a guess (``decorations_notice``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core.axtree.model import Element
from deskhand.core.geometry import Rect, span

__all__ = ["DECORATIONS_NOTICE", "Origin", "content_origin", "decorations_notice", "shift"]

#: How many levels of wrappers filling a window's whole frame ``content_origin`` looks through for
#: the children that span its content (Chromium on sway: two).
WRAPPER_DEPTH: Final = 4

#: How ``content_origin`` found where a window's content starts: "inset", the bounds start where
#: the content sits in its surface (Gecko); "surface", the bounds are the client area's size;
#: "margins", the window's or the compositor's margins (``_GTK_FRAME_EXTENTS``, KWin's, GNOME's);
#: "span", its children (or a whole-frame wrapper's) span the client area exactly; "guess",
#: nothing says: even margins on opposite sides (or, a frame that fits none of KWin's sizes, the content rect's corner).
Found = Literal["inset", "surface", "margins", "span", "guess"]

#: The state's notice when a window's accessible frame is larger than the window on the screen and
#: nothing said where its content starts: the app draws decorations (a shadow) around it.
DECORATIONS_NOTICE: Final = (
    "This window draws its own decorations: its accessible frame is {fw}x{fh}, the window on the screen "
    "{vw}x{vh}, so the positions of its elements may be off by up to {dw}x{dh} px. A click by handle on "
    "a small target may miss it: check its effect, or use keys."
)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a window's content starts on the screen, and how ``content_origin`` found it."""

    at: tuple[int, int]
    by: Found
    #: the size of the window's accessible frame (its root's bounds)
    frame: tuple[int, int]

    @property
    def guessed(self) -> bool:
        """Whether nothing said where the content starts."""
        return self.by == "guess"


def decorations_notice(origin: Origin | None, window: tuple[int, int]) -> str | None:
    """The notice for a window of size ``window`` on the screen placed at ``origin``: when its
    frame outgrows it by more than 2 px (Chromium's client-side shadow on sway: 945x1060 for a
    913x1018 window) and placement had to guess; None otherwise (children spanning the window, a
    surface inset or margins place it)."""
    if origin is None or not origin.guessed:
        return None
    (fw, fh), (vw, vh) = origin.frame, window
    if fw - vw <= 2 and fh - vh <= 2:
        return None
    return DECORATIONS_NOTICE.format(fw=fw, fh=fh, vw=vw, vh=vh, dw=max(0, fw - vw), dh=max(0, fh - vh))


def content_origin(root: Element, xwin: WindowInfo, surface: bool = False) -> Origin | None:
    """Where on the screen the bounds of a window-relative app (GTK 4 answers ``GetExtents``
    relative to its window whatever the coordinate type) start, and how that was found (``Found``):
    the X window's client area less the margins GTK keeps around its content (client-side
    decorations' resize borders and shadows): the window's ``_GTK_FRAME_EXTENTS`` when it sets
    them, else taken as even on opposite sides; negative on Wayland (KWin's surface shadows around
    the content rect). A window whose bounds are larger than its client area (a sway view's rect is
    its content, not the surface's margins: GTK 3 client-side decorations) starts that much before
    it: where its children (or those of a wrapper filling its frame) start when they span the
    client area's size exactly, else by even margins. A Wayland client's bounds not at (0, 0) of
    its surface (``surface``: Gecko answers its window at its margins, (26, 23)) place it by them;
    None when that puts it where it is, and for bounds not at (0, 0) on X11 (on the screen
    already)."""
    frame = root.frame
    if frame is None:
        return None
    c = xwin.client
    size = round(frame.width), round(frame.height)

    def found(x: float, y: float, by: Found) -> Origin:
        return Origin((round(x), round(y)), by, size)

    if (frame.x, frame.y) != (0, 0):
        origin = found(c.x - frame.x, c.y - frame.y, "inset")
        return origin if surface and origin.at != (0, 0) else None
    if (frame.width, frame.height) == (c.width, c.height):
        return found(c.x, c.y, "surface")  # relative to the whole surface (GTK 3 on GNOME)
    if xwin.gtk_margins is not None:
        left, right, top, bottom = xwin.gtk_margins
        if min(xwin.gtk_margins) < 0:  # a Wayland surface's shadows around its content rect (KWin)
            around = (frame.width, frame.height) == (c.width - left - right, c.height - top - bottom)
            return found(c.x + left, c.y + top, "margins") if around else found(c.x, c.y, "guess")
        return found(c.x + left, c.y + top, "margins")
    if frame.width > c.width or frame.height > c.height:
        inner = _content_span(root, (round(c.width), round(c.height)))
        if inner is not None:
            return found(c.x - inner.x, c.y - inner.y, "span")
        return found(c.x - max(0.0, frame.width - c.width) / 2, c.y - max(0.0, frame.height - c.height) / 2, "guess")
    return found(c.x + max(0.0, c.width - frame.width) / 2, c.y + max(0.0, c.height - frame.height) / 2, "guess")


def _content_span(root: Element, size: tuple[int, int]) -> Rect | None:
    """Where the window's content sits in its surface: the span of the children of ``root``, or of
    a wrapper below it that fills the root's frame (``WRAPPER_DEPTH`` levels down), when that span
    is the content's ``size`` exactly; None when no level's is. GTK 3's header bar and body are the
    root's children; Chromium's client view (and its Close button) sit in two panels that fill the
    whole surface (measured on sway: a 1000x800 frame for a 968x758 view, the content at (16, 10),
    its shadow deeper below than above, so even margins put its elements 11 px too high)."""
    level = [root]
    for _ in range(WRAPPER_DEPTH):
        for el in level:
            inner = span(ch.frame for ch in el.children if ch.frame is not None and ch.frame.width and ch.frame.height)
            if inner is not None and (round(inner.width), round(inner.height)) == size:
                return inner
        level = [ch for el in level for ch in el.children if ch.frame == root.frame]
        if not level:
            return None
    return None


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
