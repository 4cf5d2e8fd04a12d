"""A minimal MCP client over streamable HTTP, run as its own process so a test can SIGKILL it mid-cell.

    python http_client.py <url> <token> '<js code>'

It opens its own MCP session with the SDK's client and the bearer token, prints ``ready``, sends one
`js` call, prints ``sent`` and waits for an answer it never gets to read: the test kills it while
the cell runs.
"""

from __future__ import annotations

import asyncio
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main() -> None:
    url, token, code = sys.argv[1:4]
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=300)
    async with http, Client(streamable_http_client(url, http_client=http)) as c:
        print("ready", flush=True)
        call = asyncio.ensure_future(c.call_tool("js", {"code": code, "timeout_ms": 60000}))
        await asyncio.sleep(0.1)
        print("sent", flush=True)
        await call


if __name__ == "__main__":
    asyncio.run(main())
