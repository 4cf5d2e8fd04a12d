"""What one session or one process observes changes nothing another may do (issue 29).

The observation state (the snapshot and its handles, the diff baseline, the key window keys go
to) belongs to one session's view of one process. Checked with real Mousepad processes
(``--disable-server``: one process each), each document read back from its own AT-SPI text:

* one session binds two Mousepad processes by pid, observes both, then types into each: each gets
  exactly its own line (it was refused as "The target process changed" when the state was kept
  per app id);
* four MCP sessions over the real streamable-HTTP server (token, the SDK's clients), each with its
  own Mousepad, observe and type at once: every document holds exactly its session's line;
* two sessions on one Mousepad: each gets its own full tree and diffs, its handles stay good
  after the other observed, and a handle of one session is no handle in the other.

Each runs on X11 and on each Wayland compositor deskhand drives (``displays``): the Wayland
executor keeps its observation state per session and process too.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from http_support import HttpServed, client, document, js, launch_mousepad, texts, wait_text
from serve_support import Served, text_of

from deskhand.desktop import VirtualDesktop
from display_support import MatrixExecutor, executor_on

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin", "gnome")]

#: the first handle of the document's line in a tree text
_DOC_HANDLE = re.compile(r"(g\d+:\d+) text \(settable, string\)")

_WRITE_STATE = "nodeRepl.write(await app.getAXState({emit: false}));"


@pytest.fixture(scope="module")
def desktop(display_desktop: VirtualDesktop) -> VirtualDesktop:
    """The desktop of the module's display server (``tests/displays.py``)."""
    return display_desktop


@pytest.fixture
def ex(desktop: VirtualDesktop) -> Iterator[MatrixExecutor]:
    with executor_on(desktop) as executor:
        yield executor


def _env(desktop: VirtualDesktop) -> dict[str, str]:
    """The server's environment: the desktop's, without an X display on a Wayland one."""
    env = {**os.environ, **desktop.env}
    if desktop.compositor is not None:
        env.pop("DISPLAY", None)
    return env


def _bind_observe(var: str, pid: int) -> str:
    return f"globalThis.{var} = await cua.getApp({pid}); await {var}.getAXState({{emit: false}});"


def test_one_session_types_into_each_of_two_processes_of_one_app(launch, ex, desktop, tmp_path: Path) -> None:
    first, second = (launch_mousepad(launch, tmp_path, n) for n in (1, 2))
    docs = [document(ex, r.pid) for r in (first, second)]
    served = Served(_env(desktop), stderr_path=tmp_path / "serve.log")
    try:
        observed = served.call_js(_bind_observe("a", first.pid) + _bind_observe("b", second.pid))
        assert not observed.get("isError"), text_of(observed)
        typed = served.call_js("await a.typeText('to the first'); await b.typeText('to the second');")
        assert not typed.get("isError"), text_of(typed)
        # once more, after each was observed again in the other order
        again = served.call_js(
            "await b.getAXState({emit: false}); await a.getAXState({emit: false});"
            "await a.typeText(' again'); await b.typeText(' again');"
        )
        assert not again.get("isError"), text_of(again)
    finally:
        served.close()
    assert wait_text(ex, docs[0], "to the first again") == "to the first again"
    assert wait_text(ex, docs[1], "to the second again") == "to the second again"


def test_four_http_sessions_each_type_into_their_own_mousepad(launch, ex, desktop, tmp_path: Path) -> None:
    apps = [launch_mousepad(launch, tmp_path, n) for n in range(4)]
    docs = [document(ex, r.pid) for r in apps]
    lines = [f"session {n} wrote this" for n in range(4)]
    server = HttpServed(_env(desktop), tmp_path)
    errors: list[str] = []

    async def one(n: int) -> None:
        async with client(server.url) as c:
            bound = await js(c, _bind_observe("app", apps[n].pid))
            typed = await js(c, f"await app.typeText({json.dumps(lines[n])}); await app.getAXState({{emit: false}});")
            errors.extend(f"session {n}: {texts(r)}" for r in (bound, typed) if r.is_error)

    async def all_four() -> None:
        async with anyio.create_task_group() as tg:
            for n in range(4):
                tg.start_soon(one, n)

    try:
        anyio.run(all_four)
    finally:
        server.close()
    assert errors == []
    assert [wait_text(ex, doc, line) for doc, line in zip(docs, lines, strict=True)] == lines


def test_two_sessions_on_one_app_keep_their_own_handles_and_diffs(launch, ex, desktop, tmp_path: Path) -> None:
    app = launch_mousepad(launch, tmp_path, 0)
    doc = document(ex, app.pid)
    server = HttpServed(_env(desktop), tmp_path)
    seen: dict[str, str] = {}

    async def run() -> None:
        async with client(server.url) as a, client(server.url) as b:
            bind = f"globalThis.app = await cua.getApp({app.pid}); {_WRITE_STATE}"
            seen["a1"] = texts(await js(a, bind))
            seen["b1"] = texts(await js(b, bind))
            handle = _handle(seen["a1"])
            # a's handle from before b observed still reaches the document; b has no such handle
            seen["a_click"] = texts(await js(a, f"await app.click('{handle}'); await app.typeText('from a');"))
            seen["b_click"] = texts(await js(b, f"await app.click('{handle}');"))
            seen["a2"] = texts(await js(a, _WRITE_STATE))
            seen["b2"] = texts(await js(b, _WRITE_STATE))

    try:
        anyio.run(run)
    finally:
        server.close()
    epoch_a, epoch_b = (_handle(seen[k]).split(":")[0] for k in ("a1", "b1"))
    assert epoch_a != epoch_b, "both sessions were given the same handles"
    assert "Error" not in seen["a_click"], seen["a_click"]
    assert "stale" in seen["b_click"].lower(), seen["b_click"]  # a's handle is not b's: refused, nothing done
    assert wait_text(ex, doc, "from a") == "from a"
    # each session's second observation is a diff against its own first one
    for first, second in (("a1", "a2"), ("b1", "b2")):
        assert "App=" in seen[first] and "App=" not in seen[second], (seen[first], seen[second])


def _handle(tree: str) -> str:
    found = _DOC_HANDLE.search(tree)
    assert found is not None, f"no document line in:\n{tree}"
    return found.group(1)
