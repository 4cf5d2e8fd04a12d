"""AX attribute batches mapped onto the core's element model, and the bounded tree walk (macOS).

Pure: no pyobjc import. ``_ax.py`` reads one element per IPC round trip with
``AXUIElementCopyMultipleAttributeValues(BATCH)`` and converts the values at the boundary
(AXValue points/sizes → tuples, NSNumber → int/float/bool, NSString → str, NSURL → str, missing
attributes left out); this module decides everything else: role text inputs, value types, traits,
the child union of section 3.2 (AXChildren ∪ AXRows ∪ AXContents ∪ AXVisibleChildren, rows first
for list-like roles, visible rows only when the list says which are visible), locator steps and
the walk's caps. The native vocabulary *is* the core's (``AXButton``, ``AXTextField``), so roles
pass through unchanged.

Locator step: ``role#identifier`` when the element has a developer identifier (not ``_NS:``),
else ``role:k`` with ``k`` the number of earlier siblings of the same role. AXUIElementRefs
compare by ``==`` (CFEqual in pyobjc); they are never hashed here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from deskhand.core.axtree.model import Element, ValueType
from deskhand.core.geometry import Rect

#: One ``AXUIElementCopyMultipleAttributeValues`` call per element reads these.
BATCH: Final = (
    "AXRole", "AXSubrole", "AXRoleDescription", "AXTitle", "AXDescription", "AXHelp", "AXURL", "AXValue",
    "AXIdentifier", "AXPlaceholderValue", "AXSelected", "AXExpanded", "AXEnabled", "AXFocused", "AXPosition",
    "AXSize", "AXSelectedText", "AXChildren", "AXRows", "AXVisibleRows", "AXContents", "AXVisibleChildren",
)  # fmt: skip
CHILD_ATTRIBUTES: Final = ("AXChildren", "AXRows", "AXContents", "AXVisibleChildren")
LIST_ROLES: Final = frozenset({"AXOutline", "AXList", "AXTable", "AXBrowser"})
BOOLEAN_ROLES: Final = frozenset({"AXCheckBox", "AXRadioButton", "AXMenuItemCheckbox", "AXToggle", "AXSwitch"})
#: Roles whose AXValue settability is worth one more AX call (everything else shows no trait).
VALUE_ROLES: Final = frozenset(
    {
        "AXTextField", "AXTextArea", "AXComboBox", "AXSearchField", "AXSlider", "AXIncrementor", "AXScrollBar",
        "AXValueIndicator", "AXCheckBox", "AXRadioButton", "AXDateField", "AXColorWell", "AXPopUpButton",
        "AXStepper", "AXLevelIndicator", "AXSwitch", "AXToggle",
    }
)  # fmt: skip
#: Read caps: deeper and wider than the render caps (20 / 1500), because elided wrappers do not count there.
MAX_READ_DEPTH: Final = 40
MAX_READ_NODES: Final = 4000
MIXED: Final = "mixed"


@dataclass(frozen=True, slots=True)
class Raw:
    """What ``_ax.read`` returns for one element: converted attributes, action names, settability."""

    attrs: Mapping[str, object]
    actions: tuple[str, ...] = ()
    #: Whether AXValue is settable (only asked when :func:`needs_settable_check`).
    settable: bool = False


@dataclass(slots=True)
class WalkResult:
    root: Element | None
    focused: Element | None = None
    truncated: bool = False
    timed_out: bool = False
    read: int = 0
    #: Elements that failed to read (stale while walking, or the per-call timeout).
    failed: int = 0
    notes: list[str] = field(default_factory=list)


def needs_settable_check(attrs: Mapping[str, object]) -> bool:
    return attrs.get("AXRole") in VALUE_ROLES


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _pair(value: object) -> tuple[float, float] | None:
    if isinstance(value, tuple | list) and len(value) == 2 and all(isinstance(v, int | float) for v in value):
        return float(value[0]), float(value[1])
    return None


def frame_of(attrs: Mapping[str, object]) -> Rect | None:
    """AXPosition (global, top-left origin) + AXSize → Rect; None when either is missing."""
    pos, size = _pair(attrs.get("AXPosition")), _pair(attrs.get("AXSize"))
    if pos is None or size is None:
        return None
    return Rect(pos[0], pos[1], size[0], size[1])


def value_of(role: str, raw: object) -> tuple[str | float | bool | None, ValueType | None]:
    """The element's value and the type its ``settable`` trait names."""
    if role in BOOLEAN_ROLES and isinstance(raw, int | float) and not isinstance(raw, bool):
        return (MIXED if raw == 2 else bool(raw)), "boolean"
    if isinstance(raw, bool):
        return raw, "boolean"
    if isinstance(raw, int | float):
        return float(raw), "float"
    if isinstance(raw, str):
        return raw, "string"
    return None, None


def child_refs(attrs: Mapping[str, object]) -> list[object]:
    """The child union of section 3.2, deduplicated by ``==`` in document order."""
    role = attrs.get("AXRole")
    order = ["AXRows", *(a for a in CHILD_ATTRIBUTES if a != "AXRows")] if role in LIST_ROLES else CHILD_ATTRIBUTES
    rows = _refs(attrs.get("AXRows"))
    visible = _refs(attrs.get("AXVisibleRows"))
    hidden = [r for r in rows if r not in visible] if visible and len(visible) < len(rows) else []
    out: list[object] = []
    for name in order:
        for ref in _refs(attrs.get(name)):
            if ref not in out and ref not in hidden:
                out.append(ref)
    return out


def _refs(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


def row_count(attrs: Mapping[str, object]) -> int | None:
    """All rows of a list when it shows fewer (AXVisibleRows) than it has (AXRows)."""
    rows, visible = _refs(attrs.get("AXRows")), _refs(attrs.get("AXVisibleRows"))
    return len(rows) if visible and len(visible) < len(rows) else None


def locator_step(attrs: Mapping[str, object], same_role_before: int) -> str:
    role = str(attrs.get("AXRole") or "AXUnknown")
    ident = _text(attrs.get("AXIdentifier"))
    if ident is not None and not ident.startswith("_NS:"):
        return f"{role}#{ident}"
    return f"{role}:{same_role_before}"


def element_from(raw: Raw, *, locator: str, ref: object) -> Element:
    """One element from its batch (children are attached by :func:`walk`)."""
    a = raw.attrs
    role = str(a.get("AXRole") or "AXUnknown")
    value, vtype = value_of(role, a.get("AXValue"))
    focused = a.get("AXFocused") is True
    return Element(
        role=role,
        role_description=_text(a.get("AXRoleDescription")),
        subrole=_text(a.get("AXSubrole")),
        title=_text(a.get("AXTitle")),
        description=_text(a.get("AXDescription")),
        help=_text(a.get("AXHelp")),
        url=_text(a.get("AXURL")),
        value=value,
        identifier=_text(a.get("AXIdentifier")),
        placeholder=_text(a.get("AXPlaceholderValue")),
        settable=(vtype or "string") if raw.settable else None,
        selected=a.get("AXSelected") is True,
        expanded=a.get("AXExpanded") is True,
        enabled=a.get("AXEnabled") is not False,
        focused=focused,
        actions=raw.actions,
        frame=frame_of(a),
        selected_text=_text(a.get("AXSelectedText")) if focused else None,
        row_count=row_count(a),
        locator=locator,
        ref=ref,
    )


def walk(
    root: object,
    read: Callable[[object], Raw | None],
    *,
    now: Callable[[], float],
    deadline: float,
    max_depth: int = MAX_READ_DEPTH,
    max_nodes: int = MAX_READ_NODES,
    root_raw: Raw | None = None,
) -> WalkResult:
    """Read ``root``'s subtree depth first, one ``read`` per element, within the caps and ``deadline``.

    An element that fails to read is left out (its siblings stay); the deadline or the node cap
    marks the result truncated (and ``timed_out`` for the deadline) and keeps what was read.
    """
    result = WalkResult(None)
    first = root_raw if root_raw is not None else read(root)
    if first is None:
        result.failed = 1
        return result
    result.read = 1
    result.root = element_from(first, locator=locator_step(first.attrs, 0), ref=root)
    stack: list[tuple[Element, Raw, int]] = [(result.root, first, 0)]
    while stack:
        parent, raw, depth = stack.pop()
        if parent.focused and result.focused is None:
            result.focused = parent
        if depth >= max_depth:
            result.truncated = True
            continue
        kids: list[tuple[Element, Raw]] = []
        roles: dict[str, int] = {}
        for ref in child_refs(raw.attrs):
            if now() >= deadline:
                result.truncated = result.timed_out = True
                stack.clear()
                break
            if result.read >= max_nodes:
                result.truncated = True
                stack.clear()
                break
            got = read(ref)
            result.read += 1
            if got is None:
                result.failed += 1
                continue
            role = str(got.attrs.get("AXRole") or "AXUnknown")
            step = locator_step(got.attrs, roles.get(role, 0))
            roles[role] = roles.get(role, 0) + 1
            kid = element_from(got, locator=step, ref=ref)
            parent.children.append(kid)
            kids.append((kid, got))
        stack.extend((kid, got, depth + 1) for kid, got in reversed(kids))
    return result
