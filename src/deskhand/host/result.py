"""What one tool call returns to its caller (the MCP server, the js kernel's bridge, the SDK)."""

from __future__ import annotations

from dataclasses import dataclass, field

from deskhand.core.errors import JsError


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str


@dataclass(frozen=True, slots=True)
class ImageBlock:
    data: bytes
    mime_type: str


Block = TextBlock | ImageBlock


@dataclass(frozen=True, slots=True)
class ToolResult:
    """Content blocks in order; on failure ``is_error`` and the JS-visible ``native_error``.

    ``not_dispatched`` is the contract's NATIVE_CALL_NOT_DISPATCHED flag: the call was refused
    before any native effect could happen (bad arguments, denied app, missing grant, ...).
    """

    content: tuple[Block, ...] = ()
    is_error: bool = False
    structured: dict[str, object] = field(default_factory=dict)
    native_error: JsError | None = None
    not_dispatched: bool = False

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))
