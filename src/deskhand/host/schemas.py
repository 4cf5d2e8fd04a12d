"""The JSON-schema pieces the semantic tools' schemas are built from (native-contract.md 1.4).

Every tool schema (one row each in :mod:`deskhand.host.tools`) is an :func:`object_schema`: it has
``additionalProperties: false`` and no root-level ``anyOf``; the either/or rules (element_index or
x and y, flat or nested drag points) are enforced at call time by :mod:`deskhand.host.validate`.
"""

from __future__ import annotations

from typing import Final

from deskhand.core.pointer import TOOL_BUTTON_NAMES

#: The fixed receipt of every mutating tool; actions never observe implicitly.
ACTION_RECEIPT: Final = "Action completed. Call `get_app_state` to fetch the updated UI state."

HANDLE_PATTERN: Final = r"^g(0|[1-9]\d*):(0|[1-9]\d*)$"
PASTE_FORMATS: Final = ("text", "md", "html")

Schema = dict[str, object]

APP: Final[Schema] = {
    "type": "string",
    "description": "The target app: display name, app id (.desktop id), executable path, or pid as decimal digits.",
}
HANDLE: Final[Schema] = {
    "type": "string",
    "pattern": HANDLE_PATTERN,
    "description": "Element handle such as g1:23 from the latest get_app_state.",
}


def coordinate(axis: str) -> Schema:
    return {
        "type": "number",
        "minimum": 0,
        "description": f"{axis} in pixels of the latest get_app_state screenshot.",
    }


BUTTON: Final[Schema] = {
    "type": "string",
    "enum": list(TOOL_BUTTON_NAMES),
    "description": "Mouse button, default left.",
}
POINT: Final[Schema] = {
    "type": "object",
    "properties": {"x": coordinate("X"), "y": coordinate("Y")},
    "required": ["x", "y"],
    "additionalProperties": False,
}


def object_schema(properties: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    out: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


def tool_annotations(*, mutates: bool) -> dict[str, bool]:
    """The MCP tool annotations: observations are read-only and idempotent, actions neither."""
    return {
        "readOnlyHint": not mutates,
        "destructiveHint": False,
        "idempotentHint": not mutates,
        "openWorldHint": False,
    }
