"""`js_reset` during a long `typeText` stops the typing within a chunk (issue 14, "What to build":
js_reset and cancellation interrupt within ~100 ms plus one chunk).

A cell types 100,000 characters into the GTK fixture's canvas with the longest timeout (60 s, far
more than the typing takes); once the app has logged a few hundred keys, `js_reset` comes. The
in-flight native call is drained, never abandoned (no key left down), but it must stop at its next
chunk: from the app's side the keys it received are a prefix of the text, far short of all of it,
and nothing arrives after the reset answered. From X's side: no key held. MCP cancellation ends a
cell through the same path (``KernelSession._finish`` with the worker discarded).
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import pytest
from _act_support import nothing_held
from app_support import settled

from deskhand.runtime import open_service

pytestmark = pytest.mark.desktop

TEXT = "abcdefghij" * 10_000


def _typed(running: Any, since: float) -> str:
    return "".join(e["text"] for e in running.events.of_type("key_press", since=since))


def test_js_reset_stops_a_long_type_text_at_its_next_chunk(canvas, ex, desktop):
    running, bound = canvas.running, canvas.bound
    bind = (f"globalThis.app = await cua.getApp({running.pid}); await app.getScreenshot();"
            f"await app.click([{canvas.x:.1f}, {canvas.y:.1f}]);"
            "await app.getAXState({emit: false}); 'bound'")  # fmt: skip
    results: dict[str, Any] = {}

    async def go() -> float:
        service = open_service(env=dict(desktop.env))
        try:
            first = await service.call("js", {"code": bind, "timeout_ms": 30000})
            assert not first.is_error, first
            since = time.monotonic()

            async def typing() -> None:
                code = f"await app.typeText({json.dumps(TEXT)})"
                results["typing"] = await service.call("js", {"code": code, "timeout_ms": 60000})

            async with anyio.create_task_group() as tg:
                tg.start_soon(typing)
                with anyio.fail_after(30):
                    while len(running.events.of_type("key_press", since=since)) < 300:
                        await anyio.sleep(0.01)  # poll the app's log with a deadline
                t0 = time.monotonic()
                results["reset"] = await service.call("js_reset", {})
                took = time.monotonic() - t0
            results["since"] = since
            return took
        finally:
            await service.close()

    took = anyio.run(go)
    since = results["since"]
    said = " ".join(b.text for b in results["typing"].content if hasattr(b, "text"))
    print(f"js_reset answered after {took:.3f} s; the typing cell said {said!r}")
    assert results["typing"].is_error
    assert "reset" in said.lower()
    # the app handles the keys queued for it (a loaded GTK app takes a while), then answers a ping
    assert settled(ex, bound.app, 120.0)
    typed = _typed(running, since)
    print(f"the app received {len(typed)} of {len(TEXT)} keys")
    assert TEXT.startswith(typed)  # in order, none lost or replayed
    assert 300 <= len(typed) < len(TEXT) // 2, len(typed)  # stopped, not typed to the end
    assert nothing_held(desktop) == ((), set())
    # nothing arrives later: the drained call really ended
    assert settled(ex, bound.app, 120.0)
    assert _typed(running, since) == typed
