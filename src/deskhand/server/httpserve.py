"""MCP over streamable HTTP: always behind a bearer token, one js session per MCP session.

The token comes from ``--token-file``, ``DESKHAND_TOKEN`` or (with a warning: every local user
sees it in ``ps``) ``--token``; on loopback without any of them a random one is generated and
written to a 0600 file whose path is printed. A non-loopback address needs a token the user
chose. Requests without the token get a standard 401 with ``WWW-Authenticate: Bearer`` before
anything else runs, so unauthenticated clients cannot open sessions.

Sessions use the initialize handshake (``server/discover`` is not served, so clients of the
2026 protocol fall back to it); a request in the stateless 2026 envelope is refused, since it
has no session to keep bindings in. Idle sessions are closed after ``idle_timeout_s`` and at
most ``max_sessions`` are open at once (a further one gets 503 with a JSON-RPC error naming the
limit). ``/healthz`` and ``/readyz`` answer without the token and say nothing sensitive
(``httpprobe``); with ``exit_after_session`` the server stops once its first session has ended.
A call whose client disconnects before the answer is cancelled (``httpdrop``).
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Mapping
from typing import Any, Final

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from deskhand.server import httpdrop, httpprobe
from deskhand.server.httptoken import TokenError
from deskhand.server.mcp import build_server
from deskhand.server.options import ServerOptions
from deskhand.server.service import Service

DEFAULT_MAX_SESSIONS: Final = 16
DEFAULT_IDLE_TIMEOUT_S: Final = 30 * 60.0


def _authorized(headers: list[tuple[bytes, bytes]], expected: bytes) -> bool | None:
    """True for the right bearer token; False for a wrong one; None when none was sent."""
    values = [v for k, v in headers if k.lower() == b"authorization"]
    if not values:
        return None
    scheme, _, credentials = values[0].strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return hmac.compare_digest(credentials.strip(), expected)


async def _respond(send: Any, status: int, body: Mapping[str, object], headers: list[tuple[bytes, bytes]]) -> None:
    data = json.dumps(body).encode()
    base = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": base + headers})
    await send({"type": "http.response.body", "body": data})


def http_app(
    service: Service,
    *,
    token: str,
    host: str = "127.0.0.1",
    options: ServerOptions | None = None,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    readiness: httpprobe.Probe = httpprobe.default_probe,
) -> Any:
    """An ASGI app serving MCP at ``/mcp`` behind ``token``, and the probes ``/healthz`` and ``/readyz``
    (``readiness`` checks the desktop; by default the one this process's environment names)."""
    if not token:
        raise TokenError(f"serving MCP on {host or 'this address'} needs a bearer token")
    server = build_server(service, options, discover=False)
    app = server.streamable_http_app(
        host=host, max_sessions=max_sessions, session_idle_timeout=idle_timeout_s, stateless_http=False
    )
    expected = token.encode()
    challenge = b'Bearer realm="deskhand"'
    first_session = httpprobe.FirstSession()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            if await httpprobe.answer_probe(scope, send, server.session_manager, readiness):
                return
            headers = scope.get("headers", [])
            verdict = _authorized(headers, expected)
            if verdict is not True:
                www = challenge if verdict is None else challenge + b', error="invalid_token"'
                body = {"error": "invalid_token" if verdict is False else "unauthorized",
                        "error_description": "missing or wrong bearer token"}  # fmt: skip
                await _respond(send, 401, body, [(b"www-authenticate", www)])
                return
            version = next((v.decode("latin-1") for k, v in headers if k.lower() == b"mcp-protocol-version"), None)
            if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
                message = (
                    f"deskhand serves MCP sessions over HTTP (protocol {', '.join(HANDSHAKE_PROTOCOL_VERSIONS)}): "
                    "each session keeps its own JavaScript bindings; initialize a session instead"
                )
                error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
                await _respond(send, 400, error, [])
                return
            if await httpprobe.refuse_when_full(scope, send, server.session_manager):
                return
            send = first_session.watch(send)
            if scope.get("method") == "POST":
                receive, send = httpdrop.watch(app, scope, receive, send)
        await app(scope, receive, send)

    guarded.session_manager = server.session_manager  # type: ignore[attr-defined]
    guarded.first_session = first_session  # type: ignore[attr-defined]
    return guarded


async def serve_http(
    service: Service,
    *,
    host: str,
    port: int,
    token: str,
    options: ServerOptions | None = None,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    exit_after_session: bool = False,
) -> None:
    """Serve until SIGTERM/SIGINT (the caller's) or, with ``exit_after_session``, until the first
    session has ended."""
    import uvicorn  # noqa: PLC0415 - only the HTTP transport needs it

    app = http_app(
        service, token=token, host=host, options=options, max_sessions=max_sessions, idle_timeout_s=idle_timeout_s
    )
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)

    async def stop_after_first() -> None:
        await app.first_session.wait_ended(app.session_manager)
        server.should_exit = True

    # A plain task, not a task group: SIGTERM unwinds serve() with servecli's _Stop, which a task
    # group would wrap in an exception group.
    watcher = asyncio.ensure_future(stop_after_first()) if exit_after_session else None
    try:
        await server.serve()
    finally:
        if watcher is not None:
            watcher.cancel()
        await service.close()
