"""The HTTP transport's pod endpoints and session limits: ``/healthz``, ``/readyz``, the session cap's
answer and ``--exit-after-session``.

``/healthz`` (liveness) says the process serves HTTP. ``/readyz`` is semantic: the X server answers,
the accessibility registry is up, a window manager is seen, and MCP accepts a session (the session
manager runs and has room under ``--max-sessions``). Both are unauthenticated and say only which
checks passed: no display, address, pid or token. A request that would open a session beyond
``--max-sessions`` gets a 503 with a JSON-RPC error that says so, and ``Retry-After``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any, Final

import anyio

from deskhand.desktop.probe import Readiness, probe

HEALTH_PATH: Final = "/healthz"
READY_PATH: Final = "/readyz"
#: Seconds a client is asked to wait before opening a session again when the server is full.
RETRY_AFTER_S: Final = 1
#: How often ``--exit-after-session`` looks whether the first session has ended.
SESSION_POLL_S: Final = 0.1
PROBE_TIMEOUT_S: Final = 2.0

Probe = Callable[[], Readiness]


def default_probe() -> Readiness:
    return probe(os.environ, timeout_s=PROBE_TIMEOUT_S / 2)


def open_sessions(session_manager: Any) -> int:
    return len(session_manager._server_instances)


def accepts_session(session_manager: Any) -> bool:
    """The session manager runs and has room for one more session."""
    running = session_manager._task_group is not None
    limit = session_manager.max_sessions
    return running and (limit is None or open_sessions(session_manager) < limit)


async def _send_json(send: Any, status: int, body: Mapping[str, object], headers: list[tuple[bytes, bytes]]) -> None:
    data = json.dumps(body).encode()
    base = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": base + headers})
    await send({"type": "http.response.body", "body": data})


async def answer_probe(scope: Mapping[str, Any], send: Any, session_manager: Any, readiness: Probe) -> bool:
    """Answer ``/healthz`` or ``/readyz``; False for any other path."""
    path = scope.get("path")
    nocache = [(b"cache-control", b"no-store")]
    if path == HEALTH_PATH:
        await _send_json(send, 200, {"status": "ok"}, nocache)
        return True
    if path != READY_PATH:
        return False
    result = Readiness(x=False, accessibility=False, window_manager=False)  # a probe past its deadline
    with anyio.move_on_after(PROBE_TIMEOUT_S):
        result = await anyio.to_thread.run_sync(readiness, abandon_on_cancel=True)
    checks = result.as_dict()
    checks["mcp"] = accepts_session(session_manager)
    ready = all(checks.values())
    await _send_json(send, 200 if ready else 503, {"ready": ready, "checks": checks}, nocache)
    return True


def opens_session(scope: Mapping[str, Any]) -> bool:
    """A POST without a session id: only an initialize can succeed, and it opens a session."""
    headers = scope.get("headers", [])
    return scope.get("method") == "POST" and not any(k.lower() == b"mcp-session-id" for k, _ in headers)


async def refuse_when_full(scope: Mapping[str, Any], send: Any, session_manager: Any) -> bool:
    """Answer 503 (a JSON-RPC error naming the limit) to a request that would open a session too many."""
    limit = session_manager.max_sessions
    if limit is None or not opens_session(scope) or open_sessions(session_manager) < limit:
        return False
    message = (
        f"deskhand serves at most {limit} MCP session{'s' if limit != 1 else ''} at once (--max-sessions) "
        "and that many are open: close one, or retry later"
    )
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}
    await _send_json(send, 503, error, [(b"retry-after", str(RETRY_AFTER_S).encode())])
    return True


class FirstSession:
    """The id of the first session this server opened (``--exit-after-session`` waits for its end)."""

    def __init__(self) -> None:
        self.id: str | None = None

    def watch(self, send: Any) -> Any:
        """``send`` that notes the session id of the first response that carries one."""

        async def noting(message: dict[str, Any]) -> None:
            if self.id is None and message.get("type") == "http.response.start" and message.get("status") == 200:
                sid = next((v for k, v in message.get("headers", []) if k.lower() == b"mcp-session-id"), None)
                if sid is not None:
                    self.id = sid.decode("latin-1")
            await send(message)

        return noting

    async def wait_ended(self, session_manager: Any) -> None:
        """Return once the first session has opened and ended (client DELETE, idle timeout, crash)."""
        while self.id is None or self.id in session_manager._server_instances:
            await anyio.sleep(SESSION_POLL_S)
