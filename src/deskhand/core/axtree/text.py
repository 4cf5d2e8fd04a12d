"""Word-level rules of the AX state text: sanitization, role text, values and action names.

Everything here is a pure function of one element (native-contract.md section 3.2); the
line assembly that uses these pieces lives in ``line.py``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Final

from deskhand.core.axtree.model import Element

#: Longest model-visible string before it is cut and marked with ``...``.
MAX_TEXT_CHARS: Final = 160

#: Raw actions never listed as secondary actions.
HIDDEN_ACTIONS: Final = frozenset(
    {"AXPress", "AXShowDefaultUI", "AXShowAlternateUI", "AXShowMenu", "AXConfirm", "AXScrollToVisible"}
)
#: Also hidden on menu roles.
HIDDEN_MENU_ACTIONS: Final = frozenset({"AXCancel", "AXPick"})
MENU_ROLES: Final = frozenset({"AXMenuBar", "AXMenuBarItem", "AXMenu", "AXMenuItem"})
VERTICAL_PAGE_ACTIONS: Final = frozenset({"AXScrollUpByPage", "AXScrollDownByPage"})
HORIZONTAL_PAGE_ACTIONS: Final = frozenset({"AXScrollLeftByPage", "AXScrollRightByPage"})

#: Roles on which a number is noise, not a value (toolkits give push buttons, labels and cells
#: a Value interface reading 0): a numeric value of theirs is not shown.
NUMBERLESS_ROLES: Final = frozenset(
    {
        "AXButton", "AXMenuItem", "AXMenuBarItem", "AXMenu", "AXMenuBar", "AXToolbar", "AXGroup",
        "AXUnknown", "AXWindow", "AXImage", "AXLink", "AXStaticText", "AXHeading", "AXWebArea",
        "AXList", "AXTable", "AXOutline", "AXRow", "AXCell", "AXTabGroup", "AXSplitGroup", "AXScrollArea",
    }
)  # fmt: skip

#: Role texts whose value is appended to the head without ``Value:``.
BARE_VALUE_ROLE_TEXTS: Final = frozenset({"scroll bar", "value indicator", "text entry area", "text area"})

#: Roles whose fixed role text wins over any role description.
FIXED_ROLE_TEXT: Final = {"AXRow": "row", "AXGroup": "container", "AXMenuBarItem": "", "AXLink": "link"}

#: Role texts used when no role description is given and the de-camel-cased role would
#: differ from what macOS shows (AXStaticText reads "text", as the synthetic row lines do).
DEFAULT_ROLE_TEXT: Final = {"AXStaticText": "text"}

_CAMEL_BREAK = re.compile(r"(?<=.)(?=[A-Z])")
_MATCHER_BREAK = re.compile(r"(?<=\S)(?=[A-Z])")


def sanitize(text: str) -> str:
    """Escape newlines as the two characters ``\\n``, trim, and cut at 160 characters plus ``...``."""
    cleaned = text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n").strip()
    if len(cleaned) > MAX_TEXT_CHARS:
        return cleaned[:MAX_TEXT_CHARS] + "..."
    return cleaned


def sanitized_or_none(text: str | None) -> str | None:
    """``sanitize`` for optional strings, with an empty result as None."""
    if text is None:
        return None
    cleaned = sanitize(text)
    return cleaned or None


def split_camel_case(token: str) -> str:
    """``ScrollDown`` -> ``Scroll Down``."""
    return _CAMEL_BREAK.sub(" ", token)


def strip_ax(token: str) -> str:
    return token[2:] if token.startswith("AX") else token


def pretty_action_name(raw: str) -> str:
    """The displayed secondary action: strip ``AX``, drop ``ByPage``, split camelCase.

    ``AXZoomWindow`` displays as "zoom the window" (a fixed exception of the contract).
    """
    if raw == "AXZoomWindow":
        return "zoom the window"
    return split_camel_case(strip_ax(raw).replace("ByPage", ""))


def matcher_action_name(raw: str) -> str:
    """A raw action's form for the secondary-action matcher (6.8): strip ``AX``, drop ``ByPage``,
    split camelCase.

    Unlike ``pretty_action_name``, ``AXZoomWindow`` stays "Zoom Window": the contract keeps that
    mismatch between the tree and the matcher. A raw name that already has spaces ("Expand or
    contract", an AT-SPI name) gets no second space before its capitals.
    """
    return _MATCHER_BREAK.sub(" ", strip_ax(raw).replace("ByPage", ""))


def match_secondary_action(requested: str, raw_names: Sequence[str]) -> int | None:
    """The index in ``raw_names`` that ``requested`` names, or None (then ``invalid_action``).

    First a case-insensitive exact match against the raw names, then against each raw name's
    matcher form (``matcher_action_name``), both in order; the request is trimmed. Hidden actions
    are raw names too: what the state text hides can still be performed by name.
    """
    wanted = requested.strip().lower()
    for i, raw in enumerate(raw_names):
        if raw.lower() == wanted:
            return i
    return next((i for i, raw in enumerate(raw_names) if matcher_action_name(raw).lower() == wanted), None)


def visible_actions(element: Element) -> list[str]:
    """Pretty names of the element's secondary actions after the hiding rules."""
    hidden = HIDDEN_ACTIONS | HIDDEN_MENU_ACTIONS if element.role in MENU_ROLES else HIDDEN_ACTIONS
    # A name without a letter or digit (Firefox lists unnamed actions) names nothing.
    raw = [name for name in element.actions if name not in hidden and any(ch.isalnum() for ch in name)]
    if element.role == "AXScrollArea" and any(name in VERTICAL_PAGE_ACTIONS for name in raw):
        raw = [name for name in raw if name not in HORIZONTAL_PAGE_ACTIONS]
    return [pretty_action_name(name) for name in raw]


def base_role_text(element: Element) -> str:
    """Role text before the per-line exceptions (links, menu bar items, radio groups)."""
    fixed = FIXED_ROLE_TEXT.get(element.role)
    if fixed is not None:
        return fixed
    if element.role == "AXWebArea":
        return element.role_description or "HTML content"
    if element.role_description:
        return element.role_description.lower()
    if element.subrole == "AXStandardWindow":
        return "standard window"
    if element.role in DEFAULT_ROLE_TEXT:
        return DEFAULT_ROLE_TEXT[element.role]
    return split_camel_case(strip_ax(element.role)).lower()


def is_boolean_element(element: Element, role_text: str) -> bool:
    """Checkbox, radio button and tab values render as ``on``/``off``."""
    return role_text == "tab" or element.role in {"AXCheckBox", "AXRadioButton"}


def format_number(number: float) -> str:
    """Integers without a fraction, everything else in its shortest round-trip form."""
    if isinstance(number, int):
        return str(number)
    if math.isfinite(number) and number.is_integer():
        return str(int(number))
    return repr(number)


def display_value(element: Element, role_text: str) -> str | None:
    """The model-visible value: booleans as ``on``/``off``, numbers bare, text sanitized."""
    value = element.value
    if value is None:
        return None
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int | float):
        if value in (0, 1) and is_boolean_element(element, role_text):
            return "on" if value else "off"
        if element.role in NUMBERLESS_ROLES:
            return None
        return format_number(value)
    return sanitized_or_none(value)


def value_is_bare(element: Element, role_text: str, title: str | None) -> bool:
    """Static text without a title and the listed role texts show their value without ``Value:``."""
    if title is None and element.role == "AXStaticText":
        return True
    return role_text in BARE_VALUE_ROLE_TEXTS


def display_identifier(identifier: str | None) -> str | None:
    """Identifiers starting ``_NS:`` are AppKit internals and stay hidden."""
    if not identifier or identifier.startswith("_NS:"):
        return None
    return sanitized_or_none(identifier)


def traits(element: Element) -> list[str]:
    """``selected``, ``expanded``, ``disabled``, then ``settable`` and its value type."""
    out: list[str] = []
    if element.selected:
        out.append("selected")
    if element.expanded:
        out.append("expanded")
    if not element.enabled:
        out.append("disabled")
    if element.settable is not None:
        out.extend(("settable", element.settable))
    return out


def display_window_title(title: str | None, app_name: str) -> str:
    """The window title, or the app name when it is empty or starts with ``"<AppName> –"``."""
    if not title or title.startswith(f"{app_name} –"):
        return app_name
    return title


def markdown_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
