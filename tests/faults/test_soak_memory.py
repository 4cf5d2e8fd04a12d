"""Memory over time (issue 29, behind ``make soak``): ``DESKHAND_SOAK_CELLS`` cells in one session,
each observing Mousepad and typing a character then erasing it, over `deskhand serve` on stdio.

After a warm-up (a tenth of the cells) and at the end it samples the server's and its js workers'
resident memory, the server's descriptors, the X resources held by the server's connections (the
X-Resource extension, clients matched by pid) and the match rules on the accessibility bus (the
bus daemon's statistics interface, when it has one). Asserted with generous bounds (the goal, under
5 MB of RSS, is reported, not asserted), and Mousepad's document is empty at the end.

The figures are written as the run goes (every ``SAMPLE_EVERY`` cells, the report's own section
rewritten), and ``DESKHAND_SOAK_UNTIL`` (a Unix time) ends the run early with the cells run so
far: a soak cut short still reports what it measured.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from http_support import document, launch_mousepad, wait_text
from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from load_support import rss_kb
from serve_support import Served, text_of
from Xlib import display as xdisplay
from Xlib.ext import res

from proc_support import children

pytestmark = pytest.mark.desktop

CELLS = int(os.environ.get("DESKHAND_SOAK_CELLS", "0"))
REPORT = os.environ.get("DESKHAND_SOAK_REPORT")
CELL = "await app.getAXState({emit: false}); await app.typeText('x'); await app.pressKey('BackSpace');"
RSS_BOUND_KB = 32 * 1024
#: a Unix time after which no new cell starts (the run reports the cells it ran)
UNTIL = float(os.environ.get("DESKHAND_SOAK_UNTIL") or "inf")
SAMPLE_EVERY = 500


def _x_resources(display_name: str, pid: int) -> int:
    """The X resources held by every client of ``pid`` (X-Resource: QueryClientIds, QueryClientResources)."""
    d = xdisplay.Display(display_name)
    try:
        clients = d.res_query_clients().clients
        ids = d.res_query_client_ids([{"client": c.resource_base, "mask": res.LocalClientPIDMask} for c in clients])
        mine = {i.spec.client for i in ids.ids if i.value and i.value[0] == pid}
        return sum(t.count for c in mine for t in d.res_query_client_resources(c).types)
    finally:
        d.close()


def _match_rules(address: str) -> int | None:
    """Match rules registered on the bus (``org.freedesktop.DBus.Debug.Stats``), None without stats."""
    bus = DBusAddress(
        "/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus.Debug.Stats"
    )
    try:
        with open_dbus_connection(address) as conn:
            reply = conn.send_and_get_reply(new_method_call(bus, "GetAllMatchRules"), timeout=5)
    except Exception:
        return None
    if reply.header.message_type.name != "method_return":
        return None
    return sum(len(rules) for rules in reply.body[0].values())


def _sample(served: Served, desktop) -> dict[str, int | None]:
    server = served.proc.pid
    return {
        "server_rss_kb": rss_kb(server),
        "workers_rss_kb": sum(rss_kb(w) for w in children(server, b"worker.py")),
        "server_fds": len(list(Path(f"/proc/{server}/fd").iterdir())),
        "x_resources": _x_resources(desktop.env["DISPLAY"], server),
        "match_rules": _match_rules(desktop.env["AT_SPI_BUS_ADDRESS"]),
    }


def _section(ran: int, warm: int, start: dict[str, int | None], now: dict[str, int | None], done: bool) -> str:
    state = "" if done and ran == CELLS else (" (stopped at the deadline)" if done else " (running)")
    head = (f"\n### {ran} of {CELLS} cells in one session{state}, after {warm} of warm-up\n\n"
            "| figure | warm | now | growth |\n|---|---|---|---|\n")  # fmt: skip
    rows = []
    for k, a in start.items():
        b = now[k]
        growth = "-" if a is None or b is None else f"{b - a:+d}"
        rows.append(f"| {k} | {a} | {b} | {growth} |")
    return head + "\n".join(rows) + "\n"


@pytest.mark.skipif(CELLS <= 0, reason="make soak sets DESKHAND_SOAK_CELLS")
def test_many_cells_in_one_session_hold_memory_and_resources_flat(launch, ex, desktop, tmp_path: Path) -> None:
    app = launch_mousepad(launch, tmp_path, 0)
    doc = document(ex, app.pid)
    served = Served({**os.environ, **desktop.env}, stderr_path=tmp_path / "serve.log")
    before = Path(REPORT).read_text() if REPORT and Path(REPORT).exists() else ""

    def write(section: str) -> None:
        if REPORT:
            Path(REPORT).parent.mkdir(parents=True, exist_ok=True)
            Path(REPORT).write_text(before + section)

    warm = max(1, CELLS // 10)
    ran = 0
    errors: list[str] = []
    try:
        bound = served.call_js(f"globalThis.app = await cua.getApp({app.pid});")
        assert not bound.get("isError"), text_of(bound)
        for n in range(CELLS):
            if time.time() >= UNTIL:
                break
            if n == warm:
                start = _sample(served, desktop)
            elif n > warm and n % SAMPLE_EVERY == 0:
                so_far = _section(n, warm, start, _sample(served, desktop), done=False)
                write(so_far + f"\nerrors so far: {len(errors)}\n" + "".join(f"- {e}\n" for e in errors[:3]))
            result = served.call_js(CELL)
            ran += 1
            if result.get("isError"):
                errors.append(f"cell {n}: {text_of(result)[-300:]}")
        if ran <= warm:
            start = _sample(served, desktop)
        end = _sample(served, desktop)
    finally:
        served.close()
    report = _section(ran, warm, start, end, done=True) + f"\nerrors: {len(errors)}\n"
    report += "".join(f"- {e}\n" for e in errors[:3])
    print(report)
    write(report)
    assert errors == []
    assert wait_text(ex, doc, "") == ""
    assert end["server_rss_kb"] - start["server_rss_kb"] <= RSS_BOUND_KB  # type: ignore[operator]
    assert end["server_fds"] == start["server_fds"]
    assert end["x_resources"] <= start["x_resources"] + 16  # type: ignore[operator]
    if start["match_rules"] is not None:
        assert end["match_rules"] <= start["match_rules"]  # type: ignore[operator]
