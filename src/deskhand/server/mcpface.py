"""What an MCP client sees besides the tools' behaviour: titles, output schemas, the server's
instructions, and how results become content (the guidance prompt and resources: ``guidance_mcp``).

``ImagePolicy`` is ``deskhand serve --image-responses``: ``allow`` passes images as they are,
``omit`` replaces each with a line of text (the accessibility text still carries every element
index), ``scale`` shrinks images whose long edge exceeds a limit and says by how much, so that
coordinates read off the smaller picture can be converted back.
"""

from __future__ import annotations

import base64
import importlib.util
import io
from typing import Final

import mcp_types as types

from deskhand.host.result import ImageBlock, TextBlock, ToolResult
from deskhand.server.options import ImagePolicy

INSTRUCTIONS: Final = (
    'deskhand operates native desktop apps. Use the `js` tool: `let app = await cua.getApp("Name")` '
    "selects an app and shows its accessibility state and guidance; act with app.click/typeText/"
    "pressKey/paste/drag/scroll and observe with app.getAXState() or app.getScreenshot(). "
    "Bindings persist between cells until js_reset. The deskhand prompt holds the full workflow."
)

TITLES: Final = {
    "js": "Run JavaScript against desktop apps",
    "js_reset": "Reset the JavaScript session",
    "list_apps": "List apps",
    "list_windows": "List windows",
    "get_app_state": "Get an app's state",
    "click": "Click",
    "perform_secondary_action": "Perform a secondary action",
    "set_value": "Set a value",
    "select_text": "Select text",
    "scroll": "Scroll",
    "drag": "Drag",
    "press_key": "Press a key",
    "type_text": "Type text",
    "paste": "Paste",
    "sequence": "Run a sequence of actions",
}

_APP_ENTRY: Final[dict[str, object]] = {
    "type": "object",
    "required": ["id", "displayName", "isRunning"],
    "properties": {
        "id": {"type": "string"},
        "displayName": {"type": "string"},
        "isRunning": {"type": "boolean"},
        "lastUsedDate": {"type": "string"},
        "useCount": {"type": "integer"},
    },
}

#: The tools whose every successful result carries structured content of this shape.
OUTPUT_SCHEMAS: Final[dict[str, dict[str, object]]] = {
    "list_apps": {
        "type": "object",
        "required": ["apps"],
        "properties": {"apps": {"type": "array", "items": _APP_ENTRY}},
    },
    "get_app_state": {
        "type": "object",
        "required": ["app"],
        "properties": {"app": {"type": "string", "description": "what later calls send as `app`"}},
    },
    "sequence": {
        "type": "object",
        "required": ["status"],
        "properties": {"status": {"type": "string"}},
    },
}


def dispatch_text(structured: dict[str, object]) -> str | None:
    """The dispatch counts and recovery advice of a failed cell as a sentence (for clients that
    show only text), or None when the result carries no counts."""
    if "nativeCallsStarted" not in structured:
        return None
    unknown = "unknown" if structured.get("nativeResultUnknown") else "known"
    reset = "were reset" if structured.get("bindingsReset") else "were kept"
    text = (
        f"Native calls: {structured.get('nativeCallsStarted')} started, "
        f"{structured.get('nativeCallsCompleted')} completed, "
        f"{structured.get('nativeCallsRejectedBeforeDispatch')} rejected before dispatch; "
        f"the last call's result is {unknown}; bindings {reset}."
    )
    recovery = structured.get("recovery")
    if recovery:
        text += f" Recovery: {recovery}"
    return text


def scale_unavailable() -> str | None:
    """Why ``--image-responses scale`` cannot run here (no Pillow), or None."""
    if importlib.util.find_spec("PIL") is None:
        return "--image-responses scale needs Pillow: pip install 'deskhand[images]'"
    return None


def _image_size(data: bytes) -> tuple[int, int] | None:
    try:
        from PIL import Image  # noqa: PLC0415 - optional (deskhand[images]): the size is a nicety

        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except Exception:  # no Pillow, or not an image it knows: no size then
        return None


def _scaled(block: ImageBlock, max_edge: int) -> list[types.ContentBlock]:
    from PIL import Image  # noqa: PLC0415

    size = _image_size(block.data)
    if size is None or max(size) <= max_edge:
        return [_image(block.data, block.mime_type)]
    factor = max_edge / max(size)
    new = (max(1, round(size[0] * factor)), max(1, round(size[1] * factor)))
    with Image.open(io.BytesIO(block.data)) as image:
        small = image.convert("RGB").resize(new, Image.Resampling.BILINEAR)
    out = io.BytesIO()
    small.save(out, "JPEG", quality=80)
    note = (
        f"[image scaled from {size[0]}x{size[1]} to {new[0]}x{new[1]} (--image-responses scale): "
        f"pixel coordinates for click, drag or scroll are in the original size; multiply what you "
        f"read here by {size[0] / new[0]:.4g}]"
    )
    return [types.TextContent(type="text", text=note), _image(out.getvalue(), "image/jpeg")]


def _image(data: bytes, mime_type: str) -> types.ImageContent:
    return types.ImageContent(type="image", data=base64.b64encode(data).decode("ascii"), mime_type=mime_type)


def to_mcp(result: ToolResult, images: ImagePolicy | None = None) -> types.CallToolResult:
    """Our result as MCP content blocks in order; a failure's counts and advice also as text."""
    policy = images or ImagePolicy()
    content: list[types.ContentBlock] = []
    for block in result.content:
        if isinstance(block, ImageBlock):
            if policy.mode == "omit":
                size = _image_size(block.data)
                dims = f", {size[0]}x{size[1]}" if size else ""
                text = f"[image omitted ({block.mime_type}{dims}): the server runs with --image-responses omit]"
                content.append(types.TextContent(type="text", text=text))
            elif policy.mode == "scale":
                content.extend(_scaled(block, policy.max_edge))
            else:
                content.append(_image(block.data, block.mime_type))
        elif isinstance(block, TextBlock):
            content.append(types.TextContent(type="text", text=block.text))
    structured = dict(result.structured) or None
    counts = dispatch_text(structured) if result.is_error and structured else None
    if counts is not None:
        content.append(types.TextContent(type="text", text=counts))
    return types.CallToolResult(content=content, structured_content=structured, is_error=result.is_error)
