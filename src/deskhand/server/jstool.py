"""The `js` and `js_reset` tools: their schemas and the dispatcher's validation (section 1.2-1.3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from deskhand.kernel import limits

JS_MAX_CODE_BYTES: Final = limits.MAX_CODE_BYTES
JS_DEFAULT_TIMEOUT_MS: Final = limits.DEFAULT_TIMEOUT_MS
JS_MAX_TIMEOUT_MS: Final = limits.MAX_TIMEOUT_MS

_KIB: Final = JS_MAX_CODE_BYTES // 1024
_CALLS: Final = limits.MAX_NATIVE_CALLS

JS_BAD_ARGS: Final = (
    f"js requires code (up to {_KIB} KiB), an optional title, and timeout_ms between 1 and {JS_MAX_TIMEOUT_MS}."
)
JS_NOT_OBJECT: Final = "js requires an object with code."
JS_RESET_BAD_ARGS: Final = "js_reset takes an empty object."
JS_RESET_DONE: Final = limits.RESET_DONE

JS_DESCRIPTION: Final = (
    "A persistent, isolated JavaScript session for native app automation. Top-level await is allowed; "
    f"a cell holds up to {_KIB} KiB of code and makes up to {_CALLS} native calls. Typical use: "
    '`let app = await cua.getApp("Mousepad")`, then `await app.click([x, y])`, `await app.drag(from, to)`, '
    '`await app.pressKey("ctrl+a")`, `await app.typeText("...")`, `await app.paste(text, {format: "md"})`, '
    "`await app.selectText(id, text)` and loops. Selecting an app emits its initial state plus API guidance. "
    "Observe with `app.getAXState()`, `app.getScreenshot()` or `app.getAXStateAndScreenshot()`; `emit:false` "
    "returns data without displaying it. `nodeRepl.write(value)` emits text and "
    "`await nodeRepl.emitImage(bytes)` emits an image. Top-level variables persist, including after "
    "ordinary errors. Await every action. Imports, Node, the filesystem and the network are unavailable; "
    "built-in objects are frozen. "
    "A timeout or cancellation resets bindings. Native apps only; there is no browser DOM or tab API."
)

JS_SCHEMA: Final[dict[str, object]] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["code"],
    "properties": {
        "code": {
            "type": "string",
            "description": (
                f"JavaScript to run. Top-level await is allowed. Up to {_KIB} KiB and {_CALLS} native calls."
            ),
        },
        "title": {"type": "string", "description": "A short description of the operation."},
        "timeout_ms": {"type": "integer", "minimum": 1, "maximum": JS_MAX_TIMEOUT_MS, "default": JS_DEFAULT_TIMEOUT_MS},
    },
}

JS_RESET_SCHEMA: Final[dict[str, object]] = {"type": "object", "additionalProperties": False, "properties": {}}

JS_ANNOTATIONS: Final = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": False,
}
JS_RESET_ANNOTATIONS: Final = {
    "readOnlyHint": False,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


@dataclass(frozen=True, slots=True)
class JsRequest:
    code: str
    title: str | None
    timeout_ms: int


class JsArgumentError(ValueError):
    """The js or js_reset arguments are invalid; the message is the contract's text."""


def parse_js(args: object) -> JsRequest:
    """Validate a `js` call exactly as the dispatcher does, before any kernel exists."""
    if not isinstance(args, dict):
        raise JsArgumentError(JS_NOT_OBJECT)
    if not set(args) <= {"code", "title", "timeout_ms"}:
        raise JsArgumentError(JS_BAD_ARGS)
    code = args.get("code")
    if not isinstance(code, str) or len(code.encode("utf-8", "surrogatepass")) > JS_MAX_CODE_BYTES:
        raise JsArgumentError(JS_BAD_ARGS)
    title = args.get("title")
    if title is not None and not isinstance(title, str):
        raise JsArgumentError(JS_BAD_ARGS)
    timeout = args.get("timeout_ms", JS_DEFAULT_TIMEOUT_MS)
    if isinstance(timeout, float) and timeout.is_integer():
        timeout = int(timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, int) or not 1 <= timeout <= JS_MAX_TIMEOUT_MS:
        raise JsArgumentError(JS_BAD_ARGS)
    return JsRequest(code, title, timeout)


def parse_js_reset(args: object) -> None:
    """`js_reset` takes an empty object and nothing else."""
    if not isinstance(args, dict) or args:
        raise JsArgumentError(JS_RESET_BAD_ARGS)
