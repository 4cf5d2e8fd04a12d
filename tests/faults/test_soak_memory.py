"""Memory over time (issue 29, behind ``make soak``): ``DESKHAND_SOAK_CELLS`` cells in one session,
each observing Mousepad and typing a character then erasing it, over `deskhand serve` on stdio.

After a warm-up (a tenth of the cells) and at the end it samples the server's and its js workers'
resident memory, the server's descriptors, the X resources held by the server's connections (the
X-Resource extension, clients matched by pid) and the match rules on the accessibility bus (the
bus daemon's statistics interface, when it has one). Asserted with generous bounds (the goal, under
5 MB of RSS, is reported, not asserted), and Mousepad's document is empty at the end.
"""

from __future__ import annotations

import os
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


@pytest.mark.skipif(CELLS <= 0, reason="make soak sets DESKHAND_SOAK_CELLS")
def test_many_cells_in_one_session_hold_memory_and_resources_flat(launch, ex, desktop, tmp_path: Path) -> None:
    app = launch_mousepad(launch, tmp_path, 0)
    doc = document(ex, app.pid)
    served = Served({**os.environ, **desktop.env}, stderr_path=tmp_path / "serve.log")
    try:
        bound = served.call_js(f"globalThis.app = await cua.getApp({app.pid});")
        assert not bound.get("isError"), text_of(bound)
        warm = max(1, CELLS // 10)
        errors: list[str] = []
        for n in range(CELLS):
            if n == warm:
                start = _sample(served, desktop)
            result = served.call_js(CELL)
            if result.get("isError"):
                errors.append(f"cell {n}: {text_of(result)[-300:]}")
        end = _sample(served, desktop)
    finally:
        served.close()
    rows = "\n".join(f"| {k} | {start[k]} | {end[k]} |" for k in start)
    head = f"\n### {CELLS} cells in one session (after {warm} of warm-up)\n\n| figure | warm | end |\n|---|---|---|\n"
    report = head + rows + "\n"
    print(report)
    if REPORT:
        with Path(REPORT).open("a") as f:
            f.write(report)
    assert errors == []
    assert wait_text(ex, doc, "") == ""
    assert end["server_rss_kb"] - start["server_rss_kb"] <= RSS_BOUND_KB  # type: ignore[operator]
    assert end["server_fds"] == start["server_fds"]
    assert end["x_resources"] <= start["x_resources"] + 16  # type: ignore[operator]
    if start["match_rules"] is not None:
        assert end["match_rules"] <= start["match_rules"]  # type: ignore[operator]
