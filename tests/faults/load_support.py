"""The load run of issue 29: many MCP clients over streamable HTTP, each in its own session
driving its own app instance on one desktop, each cell observe → act → observe.

A ``Driver`` is one client: it binds its app by pid in a first cell (and a marker of its own,
``globalThis.who``), then runs cells of its kind until the run's end, timing each. After each
cell it checks that the cell saw its own marker and none of another client's. What each app must
hold at the end is kept by the driver (``expected``) and checked from the app's side by the test.

Kinds: ``type`` and ``paste`` (a token typed or pasted into Mousepad), ``calc`` (galculator: C
and two digits clicked by handle), ``click`` (the GTK fixture's Apply button, counted in its log).
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from http_support import js, texts
from mcp import Client

#: a cell's JavaScript by kind; ``{tok}`` is the cell's token, ``{who}`` the client's marker
_OBSERVE = "await app.getAXState({emit: false});"
_FULL = "const s = await app.getAXState({disableDiffing: true, emit: false});"
_HANDLE = "const h = (name) => s.match(new RegExp('(g\\\\d+:\\\\d+) ' + name))[1];"
CELLS = {
    "type": _OBSERVE + "await app.typeText({tok});" + _OBSERVE,
    "paste": _OBSERVE + "await app.paste({tok});" + _OBSERVE,
    "calc": _FULL + _HANDLE + "await app.click(h('toggle button C,')); for (const d of {tok}) "
    "await app.click(h('toggle button ' + d + ',')); " + _OBSERVE,
    "click": _FULL + _HANDLE + "await app.click(h('push button Apply')); " + _OBSERVE,
}
_REPORT = "nodeRepl.write('who=' + globalThis.who);"


@dataclass
class Driver:
    """One client's cells against one app (``pid``); ``kinds`` are taken in turn."""

    name: str
    kinds: tuple[str, ...]
    pid: int
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    #: Mousepad: the text typed and pasted so far; galculator: the display; GTK: Apply clicks
    expected: str | int = ""
    cells: int = 0

    def token(self, kind: str) -> str:
        if kind == "calc":
            return f"{self.cells % 9 + 1}{self.cells % 10}"
        return f"{self.name}.{self.cells};"

    async def bind(self, c: Client) -> None:
        result = await js(c, f"globalThis.app = await cua.getApp({self.pid}); globalThis.who = '{self.name}';")
        if result.is_error:
            self.errors.append(f"bind: {texts(result)}")
        if self.kinds[0] == "click":
            self.expected = 0

    async def cell(self, c: Client, others: list[str]) -> None:
        kind = self.kinds[self.cells % len(self.kinds)]
        tok = self.token(kind)
        code = CELLS[kind].replace("{tok}", json.dumps(tok)) + _REPORT
        t0 = time.monotonic()
        try:
            result = await js(c, code)
        except Exception as exc:  # a transport failure is an error of this cell too
            self.errors.append(f"{kind} cell {self.cells}: {exc!r}")
            self.cells += 1
            return
        self.latencies.setdefault(kind, []).append(time.monotonic() - t0)
        self.cells += 1
        out = texts(result)
        if result.is_error:
            self.errors.append(f"{kind} cell {self.cells - 1}: {out[-400:]}")
            return
        if f"who={self.name}" not in out or any(f"who={o}" in out or f"{o}." in out for o in others):
            self.errors.append(f"{kind} cell {self.cells - 1} saw another session: {out[-400:]}")
        if kind in ("type", "paste"):
            assert isinstance(self.expected, str)
            self.expected += tok
        elif kind == "calc":
            self.expected = tok
        else:
            assert isinstance(self.expected, int)
            self.expected += 1

    async def run_until(self, c: Client, end: float, others: list[str]) -> None:
        while time.monotonic() < end:
            await self.cell(c, others)


def quantile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fds(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/fd").iterdir()))


@dataclass
class Sample:
    """The server's (and its js workers') resident memory and the server's open descriptors."""

    server_rss_kb: int
    workers_rss_kb: int
    server_fds: int


def sample(server: int, workers: list[int]) -> Sample:
    alive = [w for w in workers if Path(f"/proc/{w}").exists()]
    return Sample(rss_kb(server), sum(rss_kb(w) for w in alive), fds(server))


def table(duration_s: float, drivers: list[Driver], lone: dict[str, list[float]], start: Sample, end: Sample) -> str:
    """The run's figures as Markdown: per kind, cells, errors, p50/p99 against a lone client."""
    rows = [
        "| kind | clients | cells | errors | p50 s (lone) | p99 s (lone) | p99 ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind in CELLS:
        mine = [d for d in drivers if kind in d.kinds]
        values = [v for d in mine for v in d.latencies.get(kind, [])]
        if not values:
            continue
        alone = lone.get(kind, [])
        p99, p99_alone = quantile(values, 0.99), quantile(alone, 0.99)
        ratio = f"{p99 / p99_alone:.1f}" if p99_alone else "-"
        errs = sum(1 for d in mine for e in d.errors if e.startswith(kind))
        p50 = f"{quantile(values, 0.5):.2f} ({quantile(alone, 0.5):.2f})"
        rows.append(
            f"| {kind} | {len(mine)} | {len(values)} | {errs} | {p50} | {p99:.2f} ({p99_alone:.2f}) | {ratio} |"
        )
    cells = sum(d.cells for d in drivers)
    errors = sum(len(d.errors) for d in drivers)
    rows += [
        "",
        f"{len(drivers)} sessions, {duration_s:.0f} s of driving: {cells} cells, {errors} errors. "
        f"Server RSS {start.server_rss_kb / 1024:.1f} → {end.server_rss_kb / 1024:.1f} MiB, js workers "
        f"{start.workers_rss_kb / 1024:.1f} → {end.workers_rss_kb / 1024:.1f} MiB, server descriptors "
        f"{start.server_fds} → {end.server_fds}.",
    ]
    return "\n".join(rows) + "\n"
