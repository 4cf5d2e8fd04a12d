"""The seed's raw ``cua.computer.*`` actions against a real app: each resolves to ``undefined``
(the contract) and each one's effect is read from the GTK fixture's own event log."""

from __future__ import annotations

import json
import time

import pytest
from _act_support import bind, named_rect
from test_e2e_js import run_cells

pytestmark = pytest.mark.desktop


def test_raw_computer_actions_resolve_to_undefined_and_reach_the_canvas(launch, desktop, ex):
    app = launch.gtk_fixture()
    app.events.wait_for("ready")
    bound = bind(ex, app.pid)
    canvas = named_rect(ex, app.pid, "Canvas")
    g0 = (canvas.x + 40, canvas.y + 40)
    g1 = (canvas.x + 200, canvas.y + 150)
    (x0, y0), (x1, y1) = bound.pixels(*g0), bound.pixels(*g1)
    cell = f"""
const a = "{app.pid}";
const c = cua.computer;
const state = await c.get_app_state({{app: a}});
const results = [
  await c.click({{app: a, x: {x0}, y: {y0}}}),
  await c.drag({{app: a, from_x: {x0}, from_y: {y0}, to_x: {x1}, to_y: {y1}}}),
  await c.scroll({{app: a, x: {x0}, y: {y0}, direction: "down", pages: 0.5}}),
  await c.press_key({{app: a, key: "x"}}),
  await c.type_text({{app: a, text: "hi"}}),
];
nodeRepl.write(JSON.stringify({{
  state: typeof state.text === "string" && state.text.includes("Canvas"),
  image: state.screenshot !== null && state.screenshot.url.startsWith("data:image/jpeg;base64,"),
  results: results.map((r) => typeof r),
}}));
"""
    since = time.monotonic()
    (result,) = run_cells(desktop.env, [cell])
    assert not result.is_error, result.text
    assert json.loads(result.text) == {"state": True, "image": True, "results": ["undefined"] * 5}

    presses = app.events.of_type("press", since=since)
    releases = app.events.of_type("release", since=since)
    # the click, then the drag: each press and release at its global point, button 1
    assert [(e["button"], round(e["x_root"]), round(e["y_root"])) for e in presses] == [(1, *g0), (1, *g0)]
    assert [(e["button"], round(e["x_root"]), round(e["y_root"])) for e in releases] == [(1, *g0), (1, *g1)]
    wheels = app.events.of_type("wheel", since=since)
    assert wheels and {e["direction"] for e in wheels} == {"down"}
    assert {(round(e["x_root"]), round(e["y_root"])) for e in wheels} == {g0}
    keys = [e["keysym"] for e in app.events.of_type("key_press", since=since)]
    assert keys == ["x", "h", "i"]
