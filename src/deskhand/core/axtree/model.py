"""The platform-neutral accessibility element model that every backend fills and the renderer reads.

A backend maps its native roles, states and attributes onto these fields; everything the state
text shows (role text, traits, values, secondary actions) is decided from them by the core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from deskhand.core.geometry import Rect

ValueType = Literal["string", "boolean", "float"]


@dataclass(slots=True)
class Element:
    """One accessibility element as observed (not yet numbered)."""

    #: Contract role key in the macOS vocabulary the renderer understands, e.g. "AXButton",
    #: "AXTextField", "AXCheckBox", "AXRow", "AXGroup", "AXWindow", "AXScrollArea", "AXStaticText".
    role: str
    #: Human role text when the platform supplies one (AXRoleDescription; the AT-SPI role name).
    role_description: str | None = None
    subrole: str | None = None
    title: str | None = None
    description: str | None = None
    help: str | None = None
    url: str | None = None
    #: The element's value: text, number or boolean (checkbox/radio/tab state).
    value: str | float | bool | None = None
    identifier: str | None = None
    placeholder: str | None = None
    #: Set when the value can be set, with its type.
    settable: ValueType | None = None
    selected: bool = False
    expanded: bool = False
    enabled: bool = True
    focused: bool = False
    #: Raw action names as the platform names them ("AXPress", "AXScrollDownByPage", "click", ...).
    actions: tuple[str, ...] = ()
    #: Frame in global points (None when unknown or off screen).
    frame: Rect | None = None
    #: Selected text of this element when it is the focused text element.
    selected_text: str | None = None
    #: For lists/outlines: total row count when more rows exist than are children here.
    row_count: int | None = None
    #: Set when only part of the children could be read (a container too large to list, such
    #: as a spreadsheet): which part they are, e.g. "rows 1-20, columns 1-12 of 1048576 x 16384".
    partial: str | None = None
    children: list[Element] = field(default_factory=list)
    #: Immutable locator component for this element under its parent (role + index chain step);
    #: the full locator key is the chain of these from the root.
    locator: str = ""
    #: Backend-private reference used to act on the element later (e.g. AT-SPI bus name + path).
    ref: object = None


@dataclass(slots=True)
class WindowTree:
    """An observed top-level window with its element tree."""

    #: The window's platform id; 0 means unverifiable, and its rows never inherit ids unless
    #: the window has a ``locator``.
    window_id: int
    title: str
    root: Element
    frame: Rect | None = None
    #: What names a window without a platform id from one observation to the next (an open menu
    #: of a menu bar: its menu bar item's locator), so its rows keep their ids while it stays
    #: open; None for none.
    locator: str | None = None


@dataclass(slots=True)
class AppTree:
    """Everything one observation read from an app's accessibility tree."""

    app_label: str  # bundle id / app id, or name (the `App=` line)
    app_name: str
    pid: int
    windows: list[WindowTree]
    focused: Element | None = None
    #: The app's menu bar, rendered after all windows (its "Apple" menu is skipped).
    menu_bar: Element | None = None
    #: True when a cap or a deadline stopped the walk early.
    truncated: bool = False
    timed_out: bool = False


def detach_menu_bar(root: Element) -> Element | None:
    """Take the window's menu bar out of its tree and return it (the state text renders it after
    all windows).

    The menu bar is the first one in reading order that is on screen (has a frame). Other menu
    bars with no frame go too: a toolkit may list a second, zero-size one beside the one it
    shows (LibreOffice under GTK 3 lists its own menu bar under the root pane at height 0 and
    the GTK one above it), and printing both shows every menu twice. When none has a frame the
    first one is the menu bar.
    """
    parents: dict[int, Element] = {}
    bars: list[Element] = []
    stack = [root]
    while stack:
        el = stack.pop()
        if el.role == "AXMenuBar" and el is not root:
            bars.append(el)
            continue  # a menu bar inside a menu bar is its own business
        for child in reversed(el.children):
            parents.setdefault(id(child), el)
            stack.append(child)
    if not bars:
        return None
    chosen = next((b for b in bars if b.frame is not None), bars[0])
    for bar in bars:
        if bar is chosen or bar.frame is None:
            siblings = parents[id(bar)].children
            siblings[:] = [c for c in siblings if c is not bar]
    return chosen
