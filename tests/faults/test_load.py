"""Many clients at once (issue 29): 8 MCP clients over the real streamable-HTTP server, each in its
own session driving its own app on one desktop (Mousepad ×4, galculator ×2, the GTK fixture ×2).

Each client runs cells of observe → type / paste / click → observe for ``DESKHAND_SOAK_S``
seconds (45 in the suite; ``make soak`` runs 600 and writes the figures to
``DESKHAND_SOAK_REPORT``), after the same cells were run by one client alone for the baseline.
Asserted (never timings): no cell failed, no cell saw another session's marker, every app holds
exactly what its client did (Mousepad's document text and galculator's display read over AT-SPI,
the GTK fixture's own log of clicks), nothing is held on X, and the server's descriptors and
memory grew by no more than a generous bound after warm-up.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

import anyio
import pytest
from _act_support import mousepad_env, nothing_held
from http_support import HttpServed, client, document, launch_mousepad, wait_text
from load_support import Driver, sample, table

from deskhand.backends.linux._a11y_act import A11y, Ref
from deskhand.backends.linux._atspi import Deadline
from deskhand.backends.linux._atspi_enums import Role
from deskhand.backends.linux.executor import LinuxExecutor
from proc_support import children

pytestmark = pytest.mark.desktop

DURATION_S = float(os.environ.get("DESKHAND_SOAK_S", "45"))
REPORT = os.environ.get("DESKHAND_SOAK_REPORT")
#: cells per kind run by one client alone first: the latency baseline
LONE_CELLS = 4 if DURATION_S < 120 else 12
#: growth allowed from warm-up to the end (generous: this asserts no leak per cell, not a size)
FD_GROWTH = 16
RSS_GROWTH_KB = 64 * 1024


def _display(ex: LinuxExecutor, pid: int) -> str | None:
    """galculator's display: the text of its display's text element, read over AT-SPI."""
    buses = ex.atspi.apps(Deadline(2.0))
    bus = next((b for b, p in ex.atspi.pids(buses, Deadline(2.0)).items() if p == pid), None)
    if bus is None:
        return None
    nodes = ex.atspi.snapshot(bus, Deadline(3.0)).nodes.values()
    # its formula entry (in the Formula Entry mode only) is a text element too
    found = [Ref(bus, n.path) for n in nodes if n.role == Role.TEXT and "Formula" not in n.description]
    return A11y(ex.atspi).text(found[0]) if len(found) == 1 else None


def test_eight_sessions_each_drive_their_own_app(launch, ex, desktop, tmp_path: Path) -> None:
    mousepads = [launch_mousepad(launch, tmp_path, n) for n in range(4)]
    if shutil.which("galculator") is None:
        pytest.skip("galculator is not installed (apt-get install galculator)")
    calcs = [launch(["galculator"], env=mousepad_env(tmp_path / f"galculator-{n}")) for n in range(2)]
    fixtures = [launch.gtk_fixture() for _ in range(2)]
    docs = [document(ex, r.pid) for r in mousepads]
    drivers = [
        *(Driver(f"m{n}", ("type", "paste"), r.pid) for n, r in enumerate(mousepads)),
        *(Driver(f"c{n}", ("calc",), r.pid) for n, r in enumerate(calcs)),
        *(Driver(f"g{n}", ("click",), r.pid) for n, r in enumerate(fixtures)),
    ]
    names = [d.name for d in drivers]
    since = time.monotonic()
    server = HttpServed({**os.environ, **desktop.env}, tmp_path)
    lone: dict[str, list[float]] = {}
    figures: dict[str, object] = {}

    async def run() -> None:
        async with contextlib.AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(client(server.url)) for _ in drivers]
            for d, c in zip(drivers, clients, strict=True):
                await d.bind(c)
            # the baseline: the first client of each kind alone (Mousepad's covers typing and paste)
            for d, c in zip(drivers, clients, strict=True):
                if d.name in ("m0", "c0", "g0"):
                    for _ in range(LONE_CELLS * len(d.kinds)):
                        await d.cell(c, [o for o in names if o != d.name])
                    lone.update(d.latencies)
                    d.latencies = {}
            workers = children(server.proc.pid, b"worker.py")
            figures["start"] = sample(server.proc.pid, workers)
            end = time.monotonic() + DURATION_S
            async with anyio.create_task_group() as tg:
                for d, c in zip(drivers, clients, strict=True):
                    tg.start_soon(d.run_until, c, end, [o for o in names if o != d.name])
            figures["end"] = sample(server.proc.pid, children(server.proc.pid, b"worker.py"))

    try:
        anyio.run(run)
    finally:
        server.close()
    start, end = figures["start"], figures["end"]
    report = table(DURATION_S, drivers, lone, start, end)  # type: ignore[arg-type]
    print(report)
    if REPORT:
        Path(REPORT).parent.mkdir(parents=True, exist_ok=True)
        Path(REPORT).write_text(report)
    assert [e for d in drivers for e in d.errors] == []
    for d, doc in zip(drivers[:4], docs, strict=True):
        assert wait_text(ex, doc, str(d.expected)) == d.expected
    for d in drivers[4:6]:
        assert _display(ex, d.pid) == d.expected, f"{d.name}: galculator's display"
    for d, running in zip(drivers[6:], fixtures, strict=True):
        clicks = [e for e in running.events.of_type("clicked", since=since) if e.get("name") == "Apply"]
        assert len(clicks) == d.expected, f"{d.name}: the fixture's Apply clicks"
        assert len(running.events.of_type("press", since=since)) == len(running.events.of_type("release", since=since))
    assert nothing_held(desktop) == ((), set())
    assert end.server_fds - start.server_fds <= FD_GROWTH, report  # type: ignore[attr-defined]
    assert end.server_rss_kb - start.server_rss_kb <= RSS_GROWTH_KB, report  # type: ignore[attr-defined]
