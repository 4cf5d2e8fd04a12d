"""A leased desktop's MCP endpoint: ``deskhand serve``'s HTTP app in a thread of the host, behind a
token made for the lease. It listens on loopback unless ``DESKHAND_FLEET_MCP_HOST`` names the node's
address (a cluster whose drivers run elsewhere); the token is what guards it either way."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import threading
import time
from collections.abc import Mapping
from typing import Final

from deskhand.core.errors import BackendUnavailable

START_TIMEOUT_S: Final = 10.0
HOST_ENV: Final = "DESKHAND_FLEET_MCP_HOST"


class McpEndpoint:
    """One MCP server over its own service on the desktop that ``env`` names."""

    def __init__(self, env: Mapping[str, str]) -> None:
        import uvicorn  # noqa: PLC0415 - only endpoints need it

        from deskhand.desktop.probe import probe  # noqa: PLC0415
        from deskhand.runtime import open_service  # noqa: PLC0415
        from deskhand.server.httpserve import http_app  # noqa: PLC0415

        host = os.environ.get(HOST_ENV, "127.0.0.1")
        self.token = secrets.token_urlsafe(24)
        self._service = open_service(env=env)
        app = http_app(self._service, token=self.token, host=host, readiness=lambda: probe(env))
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.socket(family, socket.SOCK_STREAM)
        self._sock.bind((host, 0))
        port = self._sock.getsockname()[1]
        self.url = f"http://{f'[{host}]' if family == socket.AF_INET6 else host}:{port}/mcp"
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._run, name=f"mcp-{port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.close()
                raise BackendUnavailable("fleet: the lease's MCP endpoint did not start")
            time.sleep(0.01)

    def _run(self) -> None:
        async def main() -> None:
            try:
                await self._server.serve(sockets=[self._sock])
            finally:
                await self._service.close()

        asyncio.run(main())

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(START_TIMEOUT_S)
        self._sock.close()
