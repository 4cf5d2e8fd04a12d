"""Advisory notices appended to ``axText`` after a blank line (section 3.2, last bullet).

Pure: a backend gathers plain facts about one observation (the full tree's lines, the key
window's frame and the screen, whether another window covers the key window, the capture's
hash and the previous one's) and ``notices`` turns them into one-line notices, each stating a
fact and what to do about it. No notice starts with a handle, a diff marker or a diff header,
so appending them never changes how a diff or a no-change text is read.

Apps without accessibility (Tk, SDL, Xt/Xaw, plain X11) still bind: their state is the ``App=``
and ``Window:`` lines and ``NO_ACCESSIBILITY`` instead of the shell-tree advice. An app whose
toolkit has accessibility (``A11Y_TOOLKITS``) but is missing from the bus has it turned off: it
binds the same way, and its notice (``no_accessibility``) says how to turn it on for that toolkit
(GIMP 2.10 started without ``GTK_MODULES=gail:atk-bridge``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from deskhand.core.geometry import Rect

#: At most this many actionable lines outside the menu bar make a tree "chrome only".
SHELL_TREE_MAX_ACTIONABLE: Final = 2

SHELL_TREE_ADVICE: Final = (
    "Notice: this app exposes almost nothing but window chrome to accessibility; "
    "work from the screenshot (click by coordinates) and keyboard shortcuts."
)
NO_ACCESSIBILITY: Final = (
    "Notice: this app exposes no accessibility tree (its toolkit has none); work from the "
    "screenshot: click, drag and scroll by its pixel coordinates, and use keys and typing."
)
#: A Java (AWT/Swing) app off the bus: Java has no bridge of its own (the ATK wrapper is a package).
JAVA_NO_ACCESSIBILITY: Final = (
    "Notice: this Java app exposes no accessibility tree: Java reaches AT-SPI only through the ATK "
    "wrapper (Debian: libatk-wrapper-java). Restart it with "
    "-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper and "
    "/usr/share/java/java-atk-wrapper.jar on its class path (Debian's wrapper scripts: JAVA_ARGS and "
    "JAVA_CLASSPATH), or set assistive_technologies in the JDK's accessibility.properties; until then "
    "work from the screenshot: click, drag and scroll by its pixel coordinates, and use keys and typing."
)
#: Toolkits that expose accessibility when it is on (names from the backends' detection).
A11Y_TOOLKITS: Final = frozenset({"gtk2", "gtk3", "gtk4", "qt5", "qt6", "gecko", "chromium", "libreoffice"})
_TURN_ON: Final = "turn accessibility on for the session (org.a11y.Status IsEnabled=true on the session bus)"
_A11Y_FIX: Final = {
    "gtk2": f"GTK 2: {_TURN_ON}, load the atk-bridge module (GTK_MODULES=gail:atk-bridge, without NO_AT_BRIDGE=1), "
    "and restart it",
    "gtk3": f"GTK 3: start it without NO_AT_BRIDGE=1 once you {_TURN_ON}, then restart it",
    "gtk4": f"GTK 4: start it without GTK_A11Y=none and NO_AT_BRIDGE=1 once you {_TURN_ON}, then restart it",
    "qt5": "Qt 5: restart it with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (or QT_ACCESSIBILITY=1)",
    "qt6": "Qt 6: restart it with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (or QT_ACCESSIBILITY=1)",
    "gecko": f"Firefox (Gecko): {_TURN_ON} or set GNOME_ACCESSIBILITY=1, then restart it",
    "chromium": f"Chromium: {_TURN_ON}, then restart it (--force-renderer-accessibility alone does not register it)",
    "libreoffice": f"LibreOffice: {_TURN_ON} and restart it with its GTK 3 plugin (SAL_USE_VCLPLUGIN=gtk3)",
}

OFF_SCREEN: Final = (
    "Notice: part of this window lies outside the screen; points there cannot be clicked, "
    "so use element handles for controls in that part or move the window on screen first."
)
ALL_OFF_SCREEN: Final = (
    "Notice: this window lies entirely outside the screen; coordinate clicks cannot reach it, "
    "so use element handles or move the window on screen first."
)
COVERED: Final = (
    "Notice: another window covers part of this window; the screenshot shows this window's own "
    "content, and actions bring it to the front before they send input."
)
IDENTICAL_CAPTURE: Final = (
    "Notice: the screenshot is identical to the previous one and the app showed no reaction to the "
    "last action; it may not have reached the app (check the target, or wait and observe again)."
)


def waited_for_change(waited_ms: float, *, changed: bool) -> str:
    """The notice of an observation that first waited for the app to change (``waitForChangeMs``)."""
    if changed:
        return f"Notice: the app changed after {round(waited_ms)} ms of waiting; this state is from after it settled."
    return f"Notice: the app did not change within {round(waited_ms)} ms of waiting."


_TREE_LINE: Final = re.compile(r"^(\t*)g\d+:\d+(.*)$")
#: `` <roleText> (<traits>)`` at the head of a line's suffix (role texts are lowercase words).
_TRAITS: Final = re.compile(r"^(?: [a-z][a-z ]*)? \(([a-z, ]+)\)")
#: Role texts (AT-SPI names and lowercased AX role descriptions) of elements one acts on.
_ACTIONABLE_ROLES: Final = frozenset(
    {
        "button",
        "push button",
        "toggle button",
        "menu button",
        "pop up button",
        "check box",
        "checkbox",
        "switch",
        "radio button",
        "menu item",
        "check menu item",
        "radio menu item",
        "combo box",
        "text field",
        "search field",
        "secure text field",
        "text area",
        "entry",
        "password text",
        "spin button",
        "slider",
        "incrementor",
        "stepper",
        "link",
        "page tab",
        "tab",
        "row",
        "table row",
        "list item",
        "tree item",
        "cell",
        "table cell",
        "disclosure triangle",
        "color well",
    }
)
_ROLES_LONGEST_FIRST: Final = sorted(_ACTIONABLE_ROLES, key=len, reverse=True)


@dataclass(frozen=True, slots=True)
class Facts:
    """What a backend knows about one observation."""

    #: The full tree text's lines (header and context lines are ignored).
    lines: Sequence[str]
    #: The key window's frame and the screen, in the same (global) coordinates; None: unknown.
    window: Rect | None = None
    screen: Rect | None = None
    #: Another window is stacked over part of the key window.
    covered: bool = False
    #: The capture's hash and the previous capture's (same app and window); None: no capture.
    capture_hash: str | None = None
    previous_capture_hash: str | None = None
    #: False when the tree read was cut short (a chrome-only tree then proves nothing).
    tree_complete: bool = True
    #: False when the app has no accessibility tree at all (``NO_ACCESSIBILITY``).
    accessible: bool = True
    #: The app's toolkit (``A11Y_TOOLKITS`` names, "java", ...); None: unknown.
    toolkit: str | None = None
    #: An action was sent to the app since the previous capture.
    acted: bool = False
    #: The app did something after that action (accessibility events, drawing in its window).
    reacted: bool = False


def notices(facts: Facts) -> list[str]:
    """The notices for ``facts``, in a fixed order: no accessibility or shell tree, off screen,
    covered, identical."""
    out: list[str] = []
    if not facts.accessible:
        out.append(no_accessibility(facts.toolkit))
    elif facts.tree_complete and actionable_lines(facts.lines) <= SHELL_TREE_MAX_ACTIONABLE:
        out.append(SHELL_TREE_ADVICE)
    if facts.window is not None and facts.screen is not None:
        inside = _overlap(facts.window, facts.screen)
        if inside is None:
            out.append(ALL_OFF_SCREEN)
        elif inside != facts.window:
            out.append(OFF_SCREEN)
    if facts.covered:
        out.append(COVERED)
    # identical is news only after an action the app showed no sign of receiving
    identical = facts.capture_hash is not None and facts.capture_hash == facts.previous_capture_hash
    if identical and facts.acted and not facts.reacted:
        out.append(IDENTICAL_CAPTURE)
    return out


def has_accessibility(toolkit: str | None) -> bool:
    """Whether apps of ``toolkit`` expose an accessibility tree when it is on."""
    return toolkit in A11Y_TOOLKITS


def no_accessibility(toolkit: str | None) -> str:
    """The notice of an app observed without a tree: its toolkit has none, or it has accessibility
    turned off (then the fix for that toolkit: the app binds screenshot-only until restarted)."""
    if toolkit == "java":
        return JAVA_NO_ACCESSIBILITY
    fix = _A11Y_FIX.get(toolkit or "")
    if fix is None:
        return NO_ACCESSIBILITY
    return (
        "Notice: this app is not on the accessibility bus: its toolkit has accessibility turned off. "
        f"{fix}. Until then work from the screenshot: click, drag and scroll by its pixel coordinates, "
        "and use keys and typing."
    )


def accessibility_off(app: str, pid: int, toolkit: str | None) -> str:
    """The error text for an app missing from the accessibility bus, with the fix for its toolkit."""
    head = f"{app} (pid {pid}) is not on the accessibility bus"
    fix = _A11Y_FIX.get(toolkit or "")
    if fix is None:
        return f"{head}; its toolkit may have accessibility turned off (NO_AT_BRIDGE, QT_ACCESSIBILITY)."
    return f"{head}: its toolkit has accessibility turned off. {fix}."


def actionable_lines(lines: Sequence[str]) -> int:
    """How many tree lines outside the menu bar are controls one acts on.

    A line is actionable when its role is one of ``_ACTIONABLE_ROLES``, it has the ``settable``
    trait, or it lists secondary actions. The menu bar line and everything nested under it are
    skipped."""
    count = 0
    menu_depth: int | None = None
    for line in lines:
        m = _TREE_LINE.match(line)
        if m is None:
            continue
        depth, suffix = len(m.group(1)), m.group(2)
        if menu_depth is not None:
            if depth > menu_depth:
                continue
            menu_depth = None
        if _role_is(suffix, "menu bar"):
            menu_depth = depth
            continue
        if _actionable(suffix):
            count += 1
    return count


def _actionable(suffix: str) -> bool:
    traits = _TRAITS.match(suffix)
    if (traits and "settable" in traits.group(1).split(", ")) or "Secondary Actions: " in suffix:
        return True
    return any(_role_is(suffix, role) for role in _ROLES_LONGEST_FIRST)


def _role_is(suffix: str, role: str) -> bool:
    """The line's suffix starts with `` <role>`` followed by its end, a space or a comma."""
    head = " " + role
    return suffix.startswith(head) and (len(suffix) == len(head) or suffix[len(head)] in " ,")


def _overlap(a: Rect, b: Rect) -> Rect | None:
    x0, y0 = max(a.x, b.x), max(a.y, b.y)
    x1, y1 = min(a.x + a.width, b.x + b.width), min(a.y + a.height, b.y + b.height)
    if x1 <= x0 or y1 <= y0:
        return None
    return Rect(x0, y0, x1 - x0, y1 - y0)
