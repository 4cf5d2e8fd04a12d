"""What one tool call returns to its caller (the MCP server, the js kernel's bridge, the SDK), and the
results the host builds from an executor's answers and from errors."""

from __future__ import annotations

from dataclasses import dataclass, field

from deskhand.backends.base import ActionResult, AppEntry, AppState, WindowEntry
from deskhand.core.axtree.render import frame_envelope
from deskhand.core.errors import DeskhandError, JsError, to_js_error
from deskhand.host.schemas import ACTION_RECEIPT

NO_APPS_TEXT = "No running applications are available to control."


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


def error_result(exc: BaseException, *, not_dispatched: bool | None = None) -> ToolResult:
    """The ToolResult of a failed call; the not-dispatched flag only for pre-dispatch refusals.

    ``not_dispatched`` overrides the flag for an exception that carries none (a bug caught by the
    safety net, whose phase only the caller knows).
    """
    if not_dispatched is None:
        not_dispatched = isinstance(exc, DeskhandError) and exc.not_dispatched
    js = to_js_error(exc)
    structured: dict[str, object] = {"code": exc.code} if isinstance(exc, DeskhandError) else {}
    return ToolResult(
        (TextBlock(js.message),),
        is_error=True,
        structured=structured,
        native_error=js,
        not_dispatched=not_dispatched,
    )


def list_apps_result(apps: list[AppEntry]) -> ToolResult:
    text = "\n".join(f"{a.display_name or a.id} — {a.id}" for a in apps) or NO_APPS_TEXT
    return ToolResult((TextBlock(text),), structured={"apps": [a.to_json() for a in apps]})


def list_windows_result(entries: list[WindowEntry]) -> ToolResult:
    rows = [w.to_json() for w in entries]
    text = "\n".join(f"{w.window_id} pid {w.pid} {w.app} — {w.title}" for w in entries) or "No windows."
    return ToolResult((TextBlock(text),), structured={"windows": rows})


def state_result(state: AppState, app: str) -> ToolResult:
    blocks: list[TextBlock | ImageBlock] = [TextBlock(frame_envelope(state.text))]
    if state.image is not None:
        blocks.append(ImageBlock(state.image.data, state.image.mime_type))
    return ToolResult(tuple(blocks), structured={"app": app})


def action_result(action: ActionResult) -> ToolResult:
    """The contract's receipt text, then what was seen of the effect; ``structured["result"]`` is
    what a ``js`` App method resolves to (the outcome over the action's own fields)."""
    if action.outcome is None:
        result: dict[str, object] = {"effect": "unverifiable", **action.structured}
        text = ACTION_RECEIPT
    else:
        result = {**action.structured, **action.outcome.to_json()}
        text = f"{ACTION_RECEIPT}\n{action.outcome.summary()}"
    return ToolResult((TextBlock(text),), structured={**action.structured, "result": result})
