"""A lean MCP client over stdio for timing: JSON-RPC lines to ``deskhand serve``, nothing else.

The official Python client validates every message with pydantic on the client side, which adds
about 2.5 ms to each call on this kind of machine: a cost of that client, not of the server, and
one the agents' own clients (Node, Rust) do not pay at that size. The timed operations therefore
go through this client; ``bench_agent`` keeps one row for an empty cell through the official
client, so the difference stays visible.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

PROTOCOL_VERSION = "2025-06-18"


class McpError(RuntimeError):
    """A JSON-RPC error answer."""


class StdioMcp:
    """``async with StdioMcp(argv, env) as c: await c.call_tool("js", {...})``."""

    def __init__(self, argv: list[str], env: Mapping[str, str]) -> None:
        self._argv, self._env = argv, dict(env)
        self._proc: Process | None = None
        self._out: BufferedByteReceiveStream | None = None
        self._id = 0

    async def __aenter__(self) -> StdioMcp:
        self._proc = await anyio.open_process(self._argv, env=self._env, stderr=None)
        assert self._proc.stdout is not None
        self._out = BufferedByteReceiveStream(self._proc.stdout)
        await self.request(
            "initialize",
            {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
        )
        await self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    async def __aexit__(self, *exc: object) -> None:
        proc = self._proc
        if proc is None:
            return
        assert proc.stdin is not None
        await proc.stdin.aclose()
        with anyio.move_on_after(10):
            await proc.wait()
        if proc.returncode is None:
            proc.terminate()
            await proc.wait()

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        await self._proc.stdin.send(json.dumps(message).encode() + b"\n")

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._id += 1
        await self._send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        assert self._out is not None
        while True:
            message = json.loads(await self._out.receive_until(b"\n", 64 * 1024 * 1024))
            if message.get("id") != self._id:
                continue  # a notification (progress, log) or a late answer
            if "error" in message:
                raise McpError(str(message["error"]))
            result: dict[str, Any] = message["result"]
            return result

    @property
    def pid(self) -> int:
        """The server's process id."""
        assert self._proc is not None
        return int(self._proc.pid)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.request("tools/call", {"name": name, "arguments": arguments})


def text_of(result: Mapping[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")
