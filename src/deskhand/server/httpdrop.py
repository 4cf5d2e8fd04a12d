"""A client whose connection drops while its ``tools/call`` runs: the call is cancelled.

Over streamable HTTP the answer to a call goes back on the POST's own response stream. Once that
connection is gone (the client was killed, or it dropped the connection) nobody can read the
answer: there is no event store, so no client can resume the stream. Left alone, the cell ran to
its end or its deadline with nobody reading, holding the desktop's queue, the keyboard and the
session's worker. ``watch`` wraps one POST: it reads the JSON-RPC ids of the ``tools/call``
requests in its body, and when the server hears the client disconnect before the response ended,
it sends the session a ``notifications/cancelled`` for each through the MCP app, as the client
itself would. The cell then ends as any cancelled cell does: the native call in flight is drained,
nothing queued starts, the worker and its bindings are discarded. The session stays open (a client
may come back with its session id) until the idle timeout or a DELETE closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]

#: Cancellations on their way (a reference keeps each task alive until it ends).
_PENDING: set[asyncio.Task[None]] = set()


def call_ids(body: bytes) -> list[object]:
    """The ids of the ``tools/call`` requests in a POST body (one message or a batch)."""
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return []
    messages = parsed if isinstance(parsed, list) else [parsed]
    return [
        m["id"]
        for m in messages
        if isinstance(m, dict) and m.get("method") == "tools/call" and isinstance(m.get("id"), (str, int))
    ]


def watch(app: App, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> tuple[Receive, Send]:
    """``receive`` and ``send`` for ``app`` serving the POST ``scope``, cancelling its calls on a drop."""
    body = bytearray()
    state = {"ended": False, "cancelled": False}

    async def receiving() -> Message:
        message = await receive()
        if message["type"] == "http.request":
            body.extend(message.get("body", b""))
        elif message["type"] == "http.disconnect" and not state["ended"] and not state["cancelled"]:
            state["cancelled"] = True
            ids = call_ids(bytes(body))
            if ids:
                task = asyncio.get_running_loop().create_task(_cancel(app, scope, ids))
                _PENDING.add(task)
                task.add_done_callback(_PENDING.discard)
        return message

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            state["ended"] = True
        await send(message)

    return receiving, sending


async def _cancel(app: App, scope: MutableMapping[str, Any], ids: list[object]) -> None:
    """Post ``notifications/cancelled`` for ``ids`` to the session of ``scope`` (its own headers)."""
    for i in ids:
        note = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": i, "reason": "the client's connection closed before the answer"}}  # fmt: skip
        with contextlib.suppress(Exception):
            await _post(app, scope, json.dumps(note).encode())


async def _post(app: App, scope: MutableMapping[str, Any], data: bytes) -> None:
    headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
    headers.append((b"content-length", str(len(data)).encode()))
    messages = [{"type": "http.request", "body": data, "more_body": False}]

    async def receive() -> Message:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(_message: Message) -> None:
        return None

    await app({**scope, "headers": headers}, receive, send)
