"""One element's line of the AX state text: the suffix after its handle (section 3.2).

The suffix is `` <roleText> (<traits>) <title> <rowSummary> <bareValue>`` followed by the fields
``Description``, ``Help``, ``URL``, ``Value``, ``ID``, ``Placeholder`` and ``Secondary Actions``.
The first field joins with ``", "`` when the head has a title, row summary or bare value and
with ``" "`` otherwise; later fields join with ``", "``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from deskhand.core.axtree import rows as compact
from deskhand.core.axtree import text as t
from deskhand.core.axtree.model import Element
from deskhand.core.geometry import Rect

#: At most this many rows count as visible in a row summary.
MAX_VISIBLE_ROWS: Final = 20
#: Cell texts are collected this many levels below a row's cells.
ROW_TEXT_DEPTH: Final = 4

SECONDARY_ACTIONS_FIELD: Final = "Secondary Actions: "
#: The part of a container's children that was read when it is too large to list.
PARTIAL_FIELD: Final = "Visible: "
ROW_SUMMARY_ROLES: Final = frozenset({"AXOutline", "AXList"})
LABEL_TITLE_ROLES: Final = frozenset({"AXButton", "AXPopUpButton", "AXImage", "AXGroup", "AXUnknown", "AXWebArea"})
ELIDABLE_ROLES: Final = frozenset({"AXGroup", "AXUnknown"})


@dataclass(frozen=True, slots=True)
class Line:
    """The rendered parts of one element."""

    #: Everything after the handle, e.g. `` button Save``.
    suffix: str
    #: The same without the ``Secondary Actions`` field, for the focused-element line.
    focus_suffix: str
    #: Cell texts of a row inlined as synthetic ``text`` lines when the row is not selected
    #: (all but the one that became the row's title).
    inline_texts: tuple[str, ...]
    #: Links with a URL and menu bar items do not render their children.
    suppress_children: bool
    #: A row of a grid rendered as one line (``rows.py``): what is acted on inside it is
    #: rendered below it, its cell texts are not.
    compact: bool
    #: A featureless AXGroup/AXUnknown wrapper: skipped, children render at its depth.
    elide: bool


@dataclass(frozen=True, slots=True)
class _Facts:
    """The sanitized pieces of one element that the line rules compare."""

    element: Element
    role_text: str
    title: str | None
    label: str | None
    value: str | None
    identifier: str | None
    link_text: str | None
    traits: list[str]
    actions: list[str]


def describe(element: Element, *, in_web_area: bool) -> Line:
    """Build the line of ``element``; ``in_web_area`` says whether an ancestor is an AXWebArea."""
    role = element.role
    base_role = t.base_role_text(element)
    label = t.sanitized_or_none(element.description)
    value = t.display_value(element, base_role)
    identifier = t.display_identifier(element.identifier)
    cells = compact.compact_cells(element) if role == "AXRow" else None
    row_texts = _row_texts(element) if role == "AXRow" and cells is None else ()
    title = _preferred_title(element, base_role, label=label, identifier=identifier, value=value, rows=row_texts)
    if cells is not None:
        title = compact.compact_title(title, cells)
    link_text = _markdown_link(element, title, label, value) if role == "AXLink" else None
    facts = _Facts(
        element=element,
        role_text=_line_role_text(element, base_role, link_text or title, label),
        title=link_text or title,
        label=label,
        value=value,
        identifier=identifier,
        link_text=link_text,
        traits=t.traits(element),
        actions=t.visible_actions(element),
    )
    bare = value if value and t.value_is_bare(element, facts.role_text, facts.title) else None
    summary = _row_summary(element)
    head = "".join(
        part
        for part in (
            f" {facts.role_text}" if facts.role_text else "",
            f" ({', '.join(facts.traits)})" if facts.traits else "",
            f" {facts.title}" if facts.title is not None else "",
            f" {summary}" if summary else "",
            f" {bare}" if bare else "",
        )
    )
    head_has_text = facts.title is not None or summary is not None or bare is not None
    fields = _fields(facts, bare=bare)
    action_field = [SECONDARY_ACTIONS_FIELD + ", ".join(facts.actions)] if facts.actions else []
    return Line(
        suffix=_join(head, fields + action_field, head_has_text=head_has_text),
        focus_suffix=_join(head, fields, head_has_text=head_has_text),
        inline_texts=row_texts if t.sanitized_or_none(element.title) else row_texts[1:],
        suppress_children=role == "AXMenuBarItem" or (role == "AXLink" and link_text is not None),
        compact=cells is not None,
        elide=_should_elide(facts, in_web_area=in_web_area),
    )


def _join(head: str, fields: list[str], *, head_has_text: bool) -> str:
    body = head
    for i, field in enumerate(fields):
        body += (", " if head_has_text else " ") if i == 0 else ", "
        body += field
    return body


def _fields(facts: _Facts, *, bare: str | None) -> list[str]:
    element, title, label, value = facts.element, facts.title, facts.label, facts.value
    fields: list[str] = []
    link_repeats_label = (
        facts.link_text is not None
        and label is not None
        and (facts.link_text.startswith(f"[{t.markdown_escape(label)}]("))
    )
    if label is not None and label != title and not link_repeats_label:
        fields.append(f"Description: {label}")
    help_text = t.sanitized_or_none(element.help)
    if help_text is not None and help_text not in (title, label):
        fields.append(f"Help: {help_text}")
    url = t.sanitized_or_none(element.url)
    if element.role == "AXWebArea" and url is not None and url not in (title, label):
        fields.append(f"URL: {url}")
    if bare is None and value and not (facts.role_text == "search text field" and title == value):
        fields.append(f"Value: {value}")
    if facts.identifier is not None and not (element.role in ROW_SUMMARY_ROLES and title == facts.identifier):
        fields.append(f"ID: {facts.identifier}")
    placeholder = t.sanitized_or_none(element.placeholder)
    if placeholder is not None and placeholder not in (title, label, value):
        fields.append(f"Placeholder: {placeholder}")
    partial = t.sanitized_or_none(element.partial)
    if partial is not None:
        fields.append(f"{PARTIAL_FIELD}{partial}")
    return fields


def _preferred_title(
    element: Element,
    base_role: str,
    *,
    label: str | None,
    identifier: str | None,
    value: str | None,
    rows: tuple[str, ...],
) -> str | None:
    title = t.sanitized_or_none(element.title)
    if title is not None:
        return title
    if element.role == "AXRow":
        return rows[0] if rows else None
    if element.role in ROW_SUMMARY_ROLES and identifier is not None:
        return identifier
    if element.role in LABEL_TITLE_ROLES and label is not None:
        return label
    if base_role == "search text field":
        return value
    return None


def _markdown_link(element: Element, title: str | None, label: str | None, value: str | None) -> str | None:
    url = t.sanitized_or_none(element.url)
    if url is None:
        return None
    text = next((candidate for candidate in (label, title, value) if candidate), None)
    if text is None:
        return None
    return f"[{t.markdown_escape(text)}]({url})"


def _line_role_text(element: Element, base_role: str, title: str | None, label: str | None) -> str:
    if element.role == "AXRadioGroup" and base_role == "radio group" and title is None and label is not None:
        return ""
    return base_role


def _should_elide(facts: _Facts, *, in_web_area: bool) -> bool:
    element = facts.element
    if element.role == "AXStaticText":
        return _empty_text(facts)
    if _bare_separator(facts):
        return True
    if element.role not in ELIDABLE_ROLES:
        return False
    child_count = len(element.children)
    if in_web_area and child_count > 1:
        return False  # structure inside web content is kept
    featureless = (
        facts.title is None
        and facts.label is None
        and facts.value is None
        and facts.identifier is None
        and not facts.actions
    )
    if not featureless:
        return False
    return not facts.traits or (child_count == 1 and facts.traits == ["settable", "string"])


def _bare_separator(facts: _Facts) -> bool:
    """A separator line between toolbar buttons or menu items (LibreOffice lists nine in one
    toolbar, each "separator (disabled)") that has no title, children or actions: noise, left out."""
    element = facts.element
    return (
        facts.role_text == "separator"
        and facts.title is None
        and not element.children
        and not facts.actions
        and not element.focused
    )


def _empty_text(facts: _Facts) -> bool:
    """A label that says nothing (no title, description, value, id, actions or children), is not
    focused and cannot be typed into: noise, left out."""
    element = facts.element
    return (
        facts.title is None
        and facts.label is None
        and facts.value is None
        and facts.identifier is None
        and not facts.actions
        and not element.children
        and not element.focused
        and element.settable is None
    )


def _row_summary(element: Element) -> str | None:
    if element.role not in ROW_SUMMARY_ROLES:
        return None
    rows = [child for child in element.children if child.role == "AXRow"]
    total = element.row_count if element.row_count is not None else len(rows)
    if not rows or total <= 0:
        return None
    visible = rows
    if element.frame is not None:
        on_screen = [row for row in rows if row.frame is not None and _intersects(row.frame, element.frame)]
        visible = on_screen or rows
    shown = min(len(visible), MAX_VISIBLE_ROWS)
    if shown >= total:
        return None
    return f"(showing 0-{shown - 1} of {total} items)"


def _intersects(a: Rect, b: Rect) -> bool:
    return a.x < b.x + b.width and b.x < a.x + a.width and a.y < b.y + b.height and b.y < a.y + a.height


def _row_texts(row: Element) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for cell in row.children:
        for text in _descendant_texts(cell, 0):
            seen.setdefault(text, None)
    return tuple(seen)


def _descendant_texts(element: Element, depth: int) -> list[str]:
    if depth >= ROW_TEXT_DEPTH:
        return []
    out: list[str] = []
    if element.role in {"AXStaticText", "AXTextField", "AXCell"}:
        text = t.display_value(element, "") or t.sanitized_or_none(element.title)
        if text:
            out.append(text)
    for child in element.children:
        out.extend(_descendant_texts(child, depth + 1))
    return out
