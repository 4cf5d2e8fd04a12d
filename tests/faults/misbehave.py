"""Clients that misbehave while the load run's others work (issue 29), each recording what it did.

* ``disconnector``: sends a cell typing into its own GTK fixture's canvas and drops the TCP
  connection half a second in, again and again (the server cancels each such cell, which resets
  the session's bindings, so every cell binds the app again);
* ``flooder``: a cell (no native call) every millisecond, each sent as soon as the last returned;
* ``deaf``: sends cells with a large output over raw connections and never reads a byte back;
* ``opener``: opens sessions until the server refuses one (503), holds them to the end, then
  closes them.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

import anyio
import httpx2
from http_support import TOKEN, client, js

_HEADERS = {
    "Authorization": f"Bearer {TOKEN}",
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
}
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bad", "version": "0"}},
}
#: the disconnector's cell: 400 keys into the canvas, far more than the half second it stays
TYPE_TIMEOUT_MS = 20000


@dataclass
class Misbehaved:
    """What the misbehaving clients did (for the report and the assertions)."""

    disconnects: list[float] = field(default_factory=list)
    flood_cells: int = 0
    flood_errors: int = 0
    deaf_requests: int = 0
    opened: int = 0
    refused_status: int | None = None


async def open_session(http: httpx2.AsyncClient, url: str) -> tuple[int, str | None]:
    response = await http.post(url, json=_INITIALIZE, headers=_HEADERS)
    sid = response.headers.get("mcp-session-id")
    if response.status_code == 200 and sid:
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await http.post(url, json=note, headers={**_HEADERS, "mcp-session-id": sid})
    return response.status_code, sid


async def _raw_call(url: str, sid: str, code: str, timeout_ms: int) -> asyncio.StreamWriter:
    """POST a `js` call on a raw connection; the writer (the connection), never read."""
    host, rest = url.removeprefix("http://").split("/", 1)
    name, port = host.split(":")
    params = {"name": "js", "arguments": {"code": code, "timeout_ms": timeout_ms}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()
    head = [f"POST /{rest} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}", f"mcp-session-id: {sid}"]
    head += [f"{k}: {v}" for k, v in _HEADERS.items()]
    _, writer = await asyncio.open_connection(name, int(port))
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    await writer.drain()
    return writer


async def disconnector(url: str, pid: int, end: float, out: Misbehaved) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        _, sid = await open_session(http, url)
        assert sid is not None
        bind = (f"globalThis.app = await cua.getApp({pid});"
                "const s = await app.getAXState({disableDiffing: true, emit: false});"
                "globalThis.canvas = s.match(/(g\\d+:\\d+) (canvas|container) Canvas/)[1];")  # fmt: skip
        params = {"name": "js", "arguments": {"code": bind, "timeout_ms": 30000}}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        bound = await http.post(url, json=call, headers={**_HEADERS, "mcp-session-id": sid})
        assert bound.status_code == 200 and '"isError":true' not in bound.text.replace(" ", ""), bound.text
        while time.monotonic() < end - 5.0:
            code = bind + "await app.click(canvas); await app.typeText('x'.repeat(400));"
            writer = await _raw_call(url, sid, code, TYPE_TIMEOUT_MS)
            await anyio.sleep(0.5)
            writer.transport.abort()  # the connection drops mid-cell
            out.disconnects.append(time.monotonic())
            await anyio.sleep(8.0)


async def flooder(url: str, end: float, out: Misbehaved) -> None:
    async with client(url) as c:
        while time.monotonic() < end:
            result = await js(c, "nodeRepl.write('flood')", 5000)
            out.flood_cells += 1
            out.flood_errors += int(bool(result.is_error))
            await anyio.sleep(0.001)


async def deaf(url: str, end: float, out: Misbehaved) -> None:
    writers: list[asyncio.StreamWriter] = []
    async with httpx2.AsyncClient(timeout=30) as http:
        _, sid = await open_session(http, url)
        assert sid is not None
        try:
            while time.monotonic() < end:
                writers.append(await _raw_call(url, sid, "nodeRepl.write('y'.repeat(200000))", 5000))
                out.deaf_requests += 1
                await anyio.sleep(1.0)
        finally:
            for w in writers:
                w.transport.abort()


async def opener(url: str, end: float, out: Misbehaved) -> None:
    sids: list[str] = []
    async with httpx2.AsyncClient(timeout=30) as http:
        try:
            for _ in range(200):
                status, sid = await open_session(http, url)
                if status != 200 or sid is None:
                    out.refused_status = status
                    break
                sids.append(sid)
                out.opened += 1
            await anyio.sleep(max(0.0, end - time.monotonic()))
        finally:
            for sid in sids:
                await http.delete(url, headers={**_HEADERS, "mcp-session-id": sid})
