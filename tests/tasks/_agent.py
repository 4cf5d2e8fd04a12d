"""The scripted agent of the task suite: it drives apps only through the MCP ``js`` tool, as a
model would.

``Agent`` holds one MCP client session (the SDK's in-process client over ``build_server``, with
the real kernel and the Linux backend) on a loop of its own thread, so the synchronous tests can
call ``agent.cell(code)``. The agent decides from the state text: ``find`` reads a handle from
the compact AX text by role and name (never a handle known in advance); ``act`` runs a cell of
several actions and, when deskhand refuses it and says to observe (``getAXState``, a stale
handle), observes and builds the cell again from the new state, a bounded number of times. No
cell sleeps: a cell that must wait for the app observes with ``waitForChangeMs``.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp import Client

from deskhand.runtime import open_service
from deskhand.server.mcp import build_server

#: A refusal or notice that tells the agent to look again before acting.
OBSERVE_AGAIN = re.compile(
    r"getAXState|did not answer accessibility requests|stale_|observe (the app )?again|not found in the latest", re.I
)
#: The cell's result says that none of its actions reached the app (so it may run again).
NOTHING_SENT = re.compile(r"No native actions were dispatched")
#: The app did not answer in time (deskhand read nothing): observe again.
BUSY = re.compile(r"did not answer accessibility requests|The accessibility tree is incomplete")
#: The app is not ready to be bound yet (still starting).
STARTING = re.compile(r"did not answer accessibility requests|not running|no window", re.I)
HANDLE = r"g\d+:\d+"
CELL_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class Reply:
    """What one ``js`` call returned: its text blocks joined, and whether it was an error."""

    text: str
    error: bool

    def expect_ok(self) -> Reply:
        assert not self.error, self.text
        return self


class Agent:
    """One MCP client on the desktop's service; ``cell`` runs a ``js`` cell and waits for it."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._service = open_service(env=env)
        self._client: Client | None = None
        self._opened: Future[None] = Future()
        self._done = asyncio.Event()
        self._life = self._submit(self._hold())
        self.cells = 0
        self.transcript: list[tuple[str, Reply]] = []

    def _submit(self, coro: Coroutine[Any, Any, Any]) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def _hold(self) -> None:
        """The client's whole life in one task (its task group must be left where it was entered)."""
        try:
            async with Client(build_server(self._service)) as client:
                self._client = client
                self._opened.set_result(None)
                await self._done.wait()
        finally:
            await self._service.close()  # in the loop that started the kernel

    async def _call(self, code: str) -> types.CallToolResult:
        assert self._client is not None
        return await self._client.call_tool("js", {"code": code, "timeout_ms": CELL_TIMEOUT_MS})

    def cell(self, code: str) -> Reply:
        """Run ``code`` as one ``js`` cell (the real tool path) and return its reply."""
        self._opened.result(30)
        result = self._submit(self._call(code)).result(CELL_TIMEOUT_MS / 1000 + 30)
        text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
        reply = Reply(text, bool(result.is_error))
        self.cells += 1
        self.transcript.append((code, reply))
        return reply

    def bind(self, pid: int, timeout_s: float = 60.0) -> str:
        """Bind the app of ``pid`` (kept between cells in ``apps[pid]``, as the guidance says) and
        return the state ``getApp`` emits; an app still starting up is bound again until it answers."""
        code = f'globalThis.apps = globalThis.apps || {{}}; apps["{pid}"] = await cua.getApp("{pid}");'
        deadline = time.monotonic() + timeout_s
        while True:
            reply = self.cell(code)
            if not reply.error or time.monotonic() > deadline or not STARTING.search(reply.text):
                return reply.expect_ok().text
            time.sleep(0.5)  # an app still starting: polling its binding with a deadline

    def observe(self, pid: int, *, wait_ms: int = 0) -> str:
        """A full state of the app (``wait_ms``: wait that long at most for the app to change)."""
        opts = f"{{disableDiffing: true, waitForChangeMs: {wait_ms}}}" if wait_ms else "{disableDiffing: true}"
        for _ in range(5):  # an app too busy to answer: deskhand said nothing was read, so look again
            reply = self.cell(f'nodeRepl.write(await apps["{pid}"].getAXState({opts}));')
            if not BUSY.search(reply.text):
                break
        return reply.expect_ok().text

    def act(self, pid: int, build: Callable[[str], str], *, tries: int = 3) -> Reply:
        """Observe, build a cell of actions from the state (``build(state)`` returns the body that
        uses ``app``), run it; observe and build again while deskhand says to look again and says
        that nothing was sent (a cell of which some actions ran is never replayed)."""
        reply = Reply("", True)
        for _ in range(tries):
            state = self.observe(pid)
            body = build(state)
            reply = self.run(pid, body)
            if not reply.error or not OBSERVE_AGAIN.search(reply.text):
                return reply
            if not NOTHING_SENT.search(reply.text):
                return reply  # some actions were sent: never replay them, the caller looks first
        return reply

    def run(self, pid: int, body: str) -> Reply:
        """Run ``body`` (which acts on ``app``) as one cell."""
        return self.cell(f'{{ const app = apps["{pid}"];\n{body}\n}}')

    def until(self, pid: int, pattern: str, *, tries: int = 10, wait_ms: int = 2000) -> str:
        """Observe until the state matches ``pattern`` (each look waits for a change, bounded)."""
        state = self.observe(pid)
        for _ in range(tries):
            if re.search(pattern, state, re.M):
                return state
            state = self.observe(pid, wait_ms=wait_ms)
        raise AssertionError(f"{pattern!r} never appeared in:\n{state}")

    def close(self) -> None:
        try:
            self._loop.call_soon_threadsafe(self._done.set)
            self._life.result(30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)


def find(state: str, pattern: str) -> str | None:
    """The handle of the first element line whose text after the handle matches ``pattern``."""
    m = re.search(rf"({HANDLE}) (?:{pattern})", state, re.M)
    return m.group(1) if m else None


def need(state: str, pattern: str) -> str:
    found = find(state, pattern)
    assert found is not None, f"no element matching {pattern!r} in:\n{state}"
    return found


def js(value: str) -> str:
    """``value`` as a JavaScript string literal."""
    import json  # noqa: PLC0415

    return json.dumps(value)
