"""JSON schemas, descriptions and annotations of the 11 semantic tools (native-contract.md 1.4).

Every schema has ``additionalProperties: false`` and no root-level ``anyOf``; the either/or rules
(element_index or x and y, flat or nested drag points) are enforced at call time by
:mod:`deskhand.host.validate`.
"""

from __future__ import annotations

from typing import Final

from deskhand.core.pointer import TOOL_BUTTON_NAMES
from deskhand.core.scroll import MAX_PAGES, TOOL_DIRECTION_NAMES
from deskhand.core.textmatch import SELECTION_MODES

#: The fixed receipt of every mutating tool; actions never observe implicitly.
ACTION_RECEIPT: Final = "Action completed. Call `get_app_state` to fetch the updated UI state."

HANDLE_PATTERN: Final = r"^g(0|[1-9]\d*):(0|[1-9]\d*)$"
PASTE_FORMATS: Final = ("text", "md", "html")

READ_ONLY_TOOLS: Final = ("list_apps", "get_app_state")
MUTATING_TOOLS: Final = (
    "click", "perform_secondary_action", "set_value", "select_text", "scroll", "drag",
    "press_key", "type_text", "paste",
)  # fmt: skip
TOOL_NAMES: Final = READ_ONLY_TOOLS + MUTATING_TOOLS

Schema = dict[str, object]

_APP: Final[Schema] = {
    "type": "string",
    "description": "The target app: display name, app id (.desktop id), executable path, or pid as decimal digits.",
}
_HANDLE: Final[Schema] = {
    "type": "string",
    "pattern": HANDLE_PATTERN,
    "description": "Element handle such as g1:23 from the latest get_app_state.",
}


def _coord(axis: str) -> Schema:
    return {
        "type": "number",
        "minimum": 0,
        "description": f"{axis} in pixels of the latest get_app_state screenshot.",
    }


_BUTTON: Final[Schema] = {
    "type": "string",
    "enum": list(TOOL_BUTTON_NAMES),
    "description": "Mouse button, default left.",
}
_POINT: Final[Schema] = {
    "type": "object",
    "properties": {"x": _coord("X"), "y": _coord("Y")},
    "required": ["x", "y"],
    "additionalProperties": False,
}


def _object(properties: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    out: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


SCHEMAS: Final[dict[str, Schema]] = {
    "list_apps": _object({}),
    "get_app_state": _object(
        {
            "app": _APP,
            "disableDiff": {"type": "boolean", "description": "Return the full tree instead of a diff."},
            "disable_diff": {"type": "boolean", "description": "Alias of disableDiff."},
        },
        ("app",),
    ),
    "click": _object(
        {
            "app": _APP,
            "element_index": _HANDLE,
            "x": _coord("X"),
            "y": _coord("Y"),
            "click_count": {"type": "integer", "minimum": 1, "maximum": 3, "description": "1, 2 or 3; default 1."},
            "mouse_button": _BUTTON,
        },
        ("app",),
    ),
    "perform_secondary_action": _object(
        {"app": _APP, "element_index": _HANDLE, "action": {"type": "string", "description": "Action name as shown."}},
        ("app", "element_index", "action"),
    ),
    "set_value": _object(
        {"app": _APP, "element_index": _HANDLE, "value": {"type": "string", "description": "New value; may be empty."}},
        ("app", "element_index", "value"),
    ),
    "select_text": _object(
        {
            "app": _APP,
            "element_index": _HANDLE,
            "text": {"type": "string", "description": "The exact text to find (case-sensitive, must be unique)."},
            "prefix": {"type": "string", "description": "Text immediately before the match."},
            "suffix": {"type": "string", "description": "Text immediately after the match."},
            "selection": {"type": "string", "enum": list(SELECTION_MODES), "description": "Default text."},
            "selection_type": {"type": "string", "enum": list(SELECTION_MODES), "description": "Alias of selection."},
        },
        ("app", "element_index", "text"),
    ),
    "scroll": _object(
        {
            "app": _APP,
            "direction": {"type": "string", "enum": list(TOOL_DIRECTION_NAMES)},
            "element_index": _HANDLE,
            "x": _coord("X"),
            "y": _coord("Y"),
            "pages": {"type": "number", "exclusiveMinimum": 0, "maximum": int(MAX_PAGES), "description": "Default 1."},
        },
        ("app", "direction"),
    ),
    "drag": _object(
        {
            "app": _APP,
            "from_x": _coord("Start x"),
            "from_y": _coord("Start y"),
            "to_x": _coord("End x"),
            "to_y": _coord("End y"),
            "from": {**_POINT, "description": "Start point (alias of from_x/from_y)."},
            "to": {**_POINT, "description": "End point (alias of to_x/to_y)."},
            "mouse_button": _BUTTON,
        },
        ("app",),
    ),
    "press_key": _object(
        {"app": _APP, "key": {"type": "string", "description": "xdotool-style keys, e.g. ctrl+a or Return Return."}},
        ("app", "key"),
    ),
    "type_text": _object(
        {"app": _APP, "text": {"type": "string", "description": "Text to type; empty does nothing."}},
        ("app", "text"),
    ),
    "paste": _object(
        {
            "app": _APP,
            "text": {"type": "string"},
            "format": {"type": "string", "enum": list(PASTE_FORMATS), "description": "text, md or html."},
        },
        ("app", "text", "format"),
    ),
}

DESCRIPTIONS: Final[dict[str, str]] = {
    "list_apps": "List running and recently used apps that can be targeted.",
    "get_app_state": "Observe an app: its accessibility tree as text (a diff unless disabled) and a window screenshot.",
    "click": "Click an element (element_index) or a screenshot point (x, y).",
    "perform_secondary_action": "Perform a named secondary action of an element.",
    "set_value": "Set the value of an element.",
    "select_text": "Select a unique occurrence of text in an element, or place the caret before or after it.",
    "scroll": "Scroll an element or a screenshot point by pages.",
    "drag": "Drag from one screenshot point to another.",
    "press_key": "Press xdotool-style key chords in the app.",
    "type_text": "Type text into the focused element.",
    "paste": "Paste text, Markdown or HTML through the clipboard; the previous clipboard is restored.",
}


def tool_annotations(tool: str) -> dict[str, bool]:
    read_only = tool in READ_ONLY_TOOLS
    return {"readOnlyHint": read_only, "destructiveHint": False, "idempotentHint": read_only, "openWorldHint": False}


def tool_specs() -> dict[str, tuple[str, Schema, dict[str, bool]]]:
    """name -> (description, input schema, annotations), for the MCP server to advertise."""
    return {name: (DESCRIPTIONS[name], SCHEMAS[name], tool_annotations(name)) for name in TOOL_NAMES}
