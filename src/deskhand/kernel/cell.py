"""One ``js`` cell as the session runs it: its native calls (checked, dispatched one at a time,
answered to the worker), the content it emits (checked against the output limits), and the
result it ends with.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Protocol

from deskhand.core import deadline as call_deadline
from deskhand.core.counters import CallCounters
from deskhand.host.result import Block, ImageBlock, TextBlock, ToolResult
from deskhand.host.tools import TOOL_NAMES, TOOLS
from deskhand.kernel.limits import MAX_NATIVE_CALLS
from deskhand.kernel.texts import CALL_LIMIT, INVALID_CONTENT, INVALID_OPERATION, OUTPUT_LIMIT

MAX_BLOCKS: Final = 128
MAX_OUTPUT_BYTES: Final = 16 * 1024 * 1024
#: The 11 native names a cell may call (``INVOCABLE_TOOLS``): the host's tool registry.
INVOCABLE: Final = frozenset(TOOL_NAMES)

_IMAGE_MIME = re.compile(r"^image/(png|jpeg|webp)$")
_MAX_SAFE_INTEGER = 2**53 - 1


class ToolCaller(Protocol):
    """The kernel's one dependency: a guarded dispatcher for the 11 native names."""

    async def call_tool(self, name: str, args: dict[str, object]) -> ToolResult: ...


@dataclass(frozen=True, slots=True)
class CellResult:
    """What one ``js`` call returns: emitted blocks in order, then the error text on failure.

    ``structured`` holds the contract's counters (``nativeCallsStarted``, ...,
    ``bindingsReset``, ``recovery``) on a failed cell, and is None on success.
    """

    content: tuple[Block, ...]
    is_error: bool = False
    structured: dict[str, object] | None = None

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


def failed(text: str) -> CellResult:
    """A failed cell's result: only the error text."""
    return CellResult((TextBlock(text),), is_error=True)


@dataclass(eq=False, slots=True)
class Cell:
    """One running cell: its result (set once it ends), counters, content and native calls."""

    id: int
    result: asyncio.Future[CellResult]
    counters: CallCounters = field(default_factory=CallCounters)
    content: list[Block] = field(default_factory=list)
    output_bytes: int = 0
    calls: int = 0
    requests: set[int] = field(default_factory=set)
    accepting: bool = True
    dispatch: asyncio.Lock = field(default_factory=asyncio.Lock)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    deadline: asyncio.TimerHandle | None = None
    #: Set when the cell ends with an error (reset, cancellation, timeout): its in-flight native
    #: call's deadline passes at once, so it stops at its next check (``core.deadline``).
    stop: threading.Event = field(default_factory=threading.Event)

    def check_call(self, message: dict[str, object]) -> tuple[int, str, dict[str, object]] | str:
        """The native call a worker's ``invoke`` asks for, or the text the cell ends with when
        the request is invalid or past the call limit."""
        request_id, name, args = message.get("requestId"), message.get("name"), message.get("args")
        self.calls += 1
        if (
            not isinstance(request_id, int)
            or isinstance(request_id, bool)
            or abs(request_id) > _MAX_SAFE_INTEGER
            or request_id in self.requests
            or name not in INVOCABLE
            or not isinstance(args, dict)
        ):
            return INVALID_OPERATION
        if self.calls > MAX_NATIVE_CALLS:
            return CALL_LIMIT
        self.requests.add(request_id)
        return request_id, str(name), args

    async def call(
        self,
        caller: ToolCaller,
        send: Callable[[dict[str, object]], object],
        request_id: int,
        name: str,
        args: dict[str, object],
    ) -> None:
        """Dispatch one native call once the previous one finished, and ``send`` its response."""
        async with self.dispatch:
            if not self.accepting:
                return
            mutates = TOOLS[name].mutates
            self.counters.start(mutates=mutates)
            try:
                # the native call gets the cell's remaining time as its deadline (core.deadline)
                left = self.deadline.when() - asyncio.get_running_loop().time() if self.deadline else None
                with call_deadline.within(left, stop=self.stop):
                    result = await caller.call_tool(name, args)
            except Exception as error:  # any transport failure becomes the JS error text
                self.counters.threw(mutates=mutates)
                if self.accepting:
                    send({"type": "response", "cellId": self.id, "requestId": request_id, "error": str(error)})
                return
            self.counters.finish(is_error=result.is_error, not_dispatched=result.not_dispatched, mutates=mutates)
            if self.accepting:
                send({"type": "response", "cellId": self.id, "requestId": request_id, "result": result_json(result)})

    def emit(self, content: object) -> str | None:
        """Keep one emitted block; the text the cell ends with when it is invalid or over the limits."""
        block = _block(content)
        if block is None:
            return INVALID_CONTENT
        self.output_bytes += len(json.dumps(content, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
        if self.output_bytes > MAX_OUTPUT_BYTES or len(self.content) >= MAX_BLOCKS:
            return OUTPUT_LIMIT
        self.content.append(block)
        return None


def result_json(result: ToolResult) -> dict[str, object]:
    """The JSON a cell's facade receives for one native call (``ReplToolResult``)."""
    content: list[dict[str, object]] = []
    for block in result.content:
        if isinstance(block, TextBlock):
            content.append({"type": "text", "text": block.text})
        else:
            data = base64.b64encode(block.data).decode("ascii")
            content.append({"type": "image", "data": data, "mimeType": block.mime_type})
    out: dict[str, object] = {"content": content}
    if result.is_error:
        out["isError"] = True
    if result.not_dispatched:
        out["nativeCallNotDispatched"] = True
    if result.native_error is not None:
        out["nativeError"] = result.native_error.to_json()
    for key in ("app", "apps", "result", "windows"):
        if key in result.structured:
            out[key] = result.structured[key]
    return out


def _block(content: object) -> Block | None:
    if not isinstance(content, dict):
        return None
    kind = content.get("type")
    if kind == "text":
        text = content.get("text")
        return TextBlock(text) if isinstance(text, str) else None
    if kind == "image":
        data, mime = content.get("data"), content.get("mimeType")
        if not isinstance(data, str) or not isinstance(mime, str) or not _IMAGE_MIME.match(mime):
            return None
        try:
            return ImageBlock(base64.b64decode(data, validate=True), mime)
        except (binascii.Error, ValueError):
            return None
    return None
