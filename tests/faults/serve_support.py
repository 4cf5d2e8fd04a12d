"""`deskhand serve` as a real child process, spoken to over stdio as an MCP client would.

Every read has a deadline (a reader thread feeds a queue), so a server that hangs fails the test
instead of hanging it. Also: the clipboard keepers a server leaves.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from proc_support import alive, processes

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "faults", "version": "0"}},
}


class Served:
    """One `deskhand serve` over stdio; ``call_js`` sends a cell and waits for its answer."""

    def __init__(self, env: Mapping[str, str], *args: str, stderr_path: Path | None = None) -> None:
        self._err = open(stderr_path, "wb") if stderr_path is not None else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "deskhand", "serve", *args],
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            start_new_session=True,
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._next_id = 1
        self.send(INITIALIZE)
        self.reply(0, 60.0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")  # end of output

    def send(self, message: Mapping[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def start_js(self, code: str, timeout_ms: int = 30000) -> int:
        """Send a `js` call without waiting; its request id."""
        rid = self._next_id
        self._next_id += 1
        args = {"code": code, "timeout_ms": timeout_ms}
        self.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "js", "arguments": args}})
        return rid

    def call_js(self, code: str, timeout_ms: int = 30000) -> dict[str, Any]:
        """A `js` call's result (``content``, ``isError``, ...)."""
        rid = self.start_js(code, timeout_ms)
        return dict(self.reply(rid, timeout_ms / 1000 + 30.0)["result"])

    def reply(self, rid: int, timeout_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no reply to request {rid} within {timeout_s} s") from None
            if not line:
                raise AssertionError(f"the server ended before it answered request {rid}")
            message = json.loads(line)
            if message.get("id") == rid and ("result" in message or "error" in message):
                return dict(message)

    def close(self) -> None:
        """End it if it still runs (SIGKILL to its session), and release its pipes."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        if self._err is not subprocess.DEVNULL:
            self._err.close()


def text_of(result: Mapping[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")


def keepers(display_name: str) -> list[int]:
    """Clipboard keeper processes serving ``display_name``."""
    needle = b"deskhand.backends.linux.x11.clipboard.keeper\x00" + display_name.encode() + b"\x00"
    return [pid for pid, (_, cmd) in processes().items() if needle in cmd and alive(pid)]


def app_released_and_clipboard_kept(
    ex: Any, app: Any, events: Any, desktop: Any, expected: Mapping[str, str], since: float
) -> int:
    """After the server went: the app has settled, every press it logged since ``since`` was
    released, X holds no button or key, and the user's clipboard is served byte for byte
    (``clip_support.CHECKED_TARGETS``). Returns the number of presses, to check that none comes later."""
    from _act_support import nothing_held  # noqa: PLC0415
    from app_support import settled  # noqa: PLC0415
    from clip_support import CHECKED_TARGETS, served_digests  # noqa: PLC0415

    assert settled(ex, app)
    presses = len(events.of_type("press", since=since))
    assert len(events.of_type("release", since=since)) == presses
    assert nothing_held(desktop) == ((), set())
    env = {**os.environ, **desktop.env}
    assert served_digests(env, CHECKED_TARGETS) == expected, "the user's clipboard was lost with the server"
    return presses
