"""The session trace: every cell, every native call, every state text and screenshot, on disk.

A trace directory holds ``trace.jsonl`` (one JSON object a line, appended and flushed per record,
so a crash loses at most the call in flight) and ``images/`` (each screenshot the caller received,
as the JPEG it was). Records, each with ``type``, ``seq`` and ``t`` (seconds since the trace began):

``session``  the first line: format version, wall-clock start, whether text is redacted, the cap.
``cell_start`` / ``cell``  a ``js`` cell's code and title; then its duration, error flag, result
             text, counters (``structured``) and the images it emitted.
``call``     one native call: tool, arguments, the cell it ran in, duration, error code and
             whether it was dispatched, the action outcome (``structured["result"]``: effect,
             route, evidence), the state text and screenshot of an observation, and for a
             coordinate action the ``points`` in screenshot pixels.
``cap``      the last line when the size cap was reached; nothing is recorded after it.

``redact`` replaces typed, pasted and set text (in the call's arguments, its outcome and evidence,
and later in cell code, cell output and state texts) with ``[redacted N chars]``; text shorter
than three characters only in its own call's arguments.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from pathlib import Path
from typing import Final

from deskhand.core.errors import DeskhandError
from deskhand.host.result import ImageBlock, TextBlock, ToolResult

FORMAT: Final = 1
TRACE_FILE: Final = "trace.jsonl"
IMAGES_DIR: Final = "images"
DEFAULT_MAX_BYTES: Final = 512 * 1024 * 1024
#: Tools whose text argument is what the user's document receives.
_TEXT_ARGS: Final = {"type_text": "text", "paste": "text", "set_value": "value", "select_text": "text"}
_POINT_TOOLS: Final = {"click", "scroll"}
#: Typed text shorter than this is redacted in its own call's arguments only.
_MIN_SECRET: Final = 3


def _redacted(text: str) -> str:
    return f"[redacted {len(text)} chars]"


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a JPEG, or None when it cannot be read."""
    try:
        import simplejpeg  # noqa: PLC0415 - only to read the header

        height, width, _, _ = simplejpeg.decode_jpeg_header(data)
    except Exception:
        return None
    return int(width), int(height)


def call_points(tool: str, args: dict[str, object]) -> list[list[float]]:
    """The screenshot-pixel points of a coordinate action: a click or scroll point, a drag's two ends."""
    keys = [("from_x", "from_y"), ("to_x", "to_y")] if tool == "drag" else [("x", "y")]
    if tool != "drag" and tool not in _POINT_TOOLS:
        return []
    points: list[list[float]] = []
    for kx, ky in keys:
        x, y = args.get(kx), args.get(ky)
        if isinstance(x, int | float) and isinstance(y, int | float) and not isinstance(x, bool):
            points.append([float(x), float(y)])
    return points


class TraceRecorder:
    """Appends one session's records to ``directory``; safe to call from several threads."""

    def __init__(self, directory: Path | str, *, max_bytes: int = DEFAULT_MAX_BYTES, redact: bool = False) -> None:
        self.directory = Path(directory)
        if (self.directory / TRACE_FILE).exists():
            raise DeskhandError(f"{self.directory} already holds a trace; record into a new directory")
        (self.directory / IMAGES_DIR).mkdir(parents=True, exist_ok=True)
        self.max_bytes = max_bytes
        self.redact = redact
        self.capped = False
        self._written = 0
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._images = itertools.count(1)
        self._cells = itertools.count(1)
        self._t0 = time.monotonic()
        self._secrets: list[str] = []
        #: The cell whose calls are being recorded (a cell holds the session queue for its run).
        self.cell: int | None = None
        self._file = (self.directory / TRACE_FILE).open("x", encoding="utf-8")
        self._write(
            {"type": "session", "format": FORMAT, "started": time.time(), "redact": redact, "max_bytes": max_bytes}
        )

    # --- writing --------------------------------------------------------------------------

    def now(self) -> float:
        return time.monotonic() - self._t0

    def _write(self, record: dict[str, object]) -> None:
        with self._lock:
            if self.capped or self._file.closed:
                return
            record = {"seq": next(self._seq), "t": round(self.now(), 4), **record}
            line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
            size = len(line.encode("utf-8"))
            if self._written + size > self.max_bytes:
                self._cap()
                return
            self._file.write(line)
            self._file.flush()
            self._written += size

    def _cap(self) -> None:
        self.capped = True
        note = {
            "type": "cap",
            "seq": next(self._seq),
            "t": round(self.now(), 4),
            "note": f"trace size cap of {self.max_bytes} bytes reached; nothing after this point was recorded",
        }
        self._file.write(json.dumps(note) + "\n")
        self._file.flush()

    def _image(self, block: ImageBlock) -> dict[str, object] | None:
        with self._lock:
            if self.capped or self._written + len(block.data) > self.max_bytes:
                if not self.capped:
                    self._cap()
                return None
            ext = "png" if block.mime_type == "image/png" else "jpg"
            name = f"{IMAGES_DIR}/{next(self._images):05d}.{ext}"
            (self.directory / name).write_bytes(block.data)
            self._written += len(block.data)
        size = jpeg_size(block.data) if ext == "jpg" else None
        info: dict[str, object] = {"file": name, "mime": block.mime_type, "bytes": len(block.data)}
        if size is not None:
            info["width"], info["height"] = size
        return info

    def _scrub_tree(self, value: object) -> object:
        """``value`` with every string in it scrubbed (keys too stay as they are)."""
        if isinstance(value, str):
            return self._scrub(value)
        if isinstance(value, dict):
            return {k: self._scrub_tree(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._scrub_tree(v) for v in value]
        return value

    def _scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, _redacted(secret))
            escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
            if escaped != secret:
                text = text.replace(escaped, _redacted(secret))
        return text

    def close(self) -> None:
        with self._lock:
            self._file.close()

    # --- cells ----------------------------------------------------------------------------

    def cell_start(self, code: str, title: str | None) -> int:
        """Record a cell's start (its code, unless redacting: then the code comes with its end)."""
        cell = next(self._cells)
        self.cell = cell
        self._write({"type": "cell_start", "cell": cell, "title": title, "code": None if self.redact else code})
        return cell

    def cell_end(self, cell: int, code: str, title: str | None, result: ToolResult, duration: float) -> None:
        self.cell = None
        texts = [b.text for b in result.content if isinstance(b, TextBlock)]
        images = [self._image(b) for b in result.content if isinstance(b, ImageBlock)]
        self._write(
            {
                "type": "cell",
                "cell": cell,
                "title": title,
                "code": self._scrub(code) if self.redact else code,
                "duration": round(duration, 4),
                "is_error": result.is_error,
                "text": [self._scrub(t) for t in texts] if self.redact else texts,
                "images": [i for i in images if i is not None],
                "structured": self._scrub_tree(result.structured) if self.redact else result.structured,
            }
        )

    # --- native calls -----------------------------------------------------------------------

    def call(
        self,
        name: str,
        args: dict[str, object],
        result: ToolResult,
        started: float,
        duration: float,
        *,
        in_cell: bool = True,
    ) -> None:
        """Record one native call after it returned (``in_cell``: made by the running cell)."""
        args = dict(args)
        structured = dict(result.structured)
        key = _TEXT_ARGS.get(name)
        if self.redact and key is not None and isinstance(args.get(key), str):
            secret = str(args[key])
            if len(secret) >= _MIN_SECRET and name != "select_text":  # shorter ones would blank out common text
                self._secrets.append(secret)
            args[key] = _redacted(secret)
            outcome = structured.get("result")
            if isinstance(outcome, dict):  # read-back values would show the text again
                keep = ("effect", "route", "evidence")
                structured["result"] = {k: v for k, v in outcome.items() if k in keep}
                structured = {k: v for k, v in structured.items() if k == "result"}
        texts = [b.text for b in result.content if isinstance(b, TextBlock)]
        images = [self._image(b) for b in result.content if isinstance(b, ImageBlock)]
        record: dict[str, object] = {
            "type": "call",
            "cell": self.cell if in_cell else None,
            "tool": name,
            "app": args.get("app"),
            "args": args,
            "start": round(started, 4),
            "duration": round(duration, 4),
            "is_error": result.is_error,
            "dispatched": not result.not_dispatched,
            "code": structured.get("code") if result.is_error else None,
            "error": self._scrub(result.text) if result.is_error else None,
            "structured": self._scrub_tree(structured) if self.redact else structured,
            "points": call_points(name, args),
        }
        if name == "get_app_state":
            record["state"] = "\n".join(self._scrub(t) for t in texts) if self.redact else "\n".join(texts)
            record["images"] = [i for i in images if i is not None]
        elif not result.is_error:
            record["text"] = self._scrub("\n".join(texts))
        self._write(record)
