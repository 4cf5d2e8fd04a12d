"""Seed 1's canvas task on apps without accessibility: a Tk canvas and a pygame (SDL 2) window.

One `js` cell through the service, the host gate, the kernel and the Linux backend binds the app
by its pid as a number, then does the task's mix: 47 drags, 3 clicks, 3 wheel scrolls, 3 key
presses, 1 paste and 18 screenshots. Every press and release is checked at its coordinates, in
order, in the app's own event log (``tests/apps/tk_canvas.py``, ``tests/apps/sdl_canvas.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from _act_support import poll

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.axtree.notices import NO_ACCESSIBILITY
from deskhand.core.errors import NativeError
from deskhand.runtime import open_service

pytestmark = pytest.mark.desktop

APPS_DIR = Path(__file__).resolve().parents[1] / "apps"
SYSTEM_PYTHON = "/usr/bin/python3"

DRAGS = 47
#: After which drags a click, a scroll and a key press come (the seed's 3 of each).
BREAKS = {10: 0, 25: 1, 40: 2}
KEYS = ["a", "Return", "shift+b"]
PASTED = "canvas ✓ 47"


def _launch(launch: Any, kind: str) -> Any:
    if kind == "tk":
        if not Path(SYSTEM_PYTHON).exists():
            pytest.skip(f"{SYSTEM_PYTHON} (with python3-tk) is missing")
        argv = [SYSTEM_PYTHON, str(APPS_DIR / "tk_canvas.py")]
    else:
        pytest.importorskip("pygame")
        argv = [sys.executable, str(APPS_DIR / "sdl_canvas.py")]
    app = launch(argv, wait_on_bus=False)
    app.events.wait_for("ready", timeout_s=20.0)
    return app


def _bound(ex: LinuxExecutor, pid: int) -> tuple[float, float, float, float, float]:
    """The canvas's root origin, and the screenshot transform's origin and scale, once the
    window is mapped and placed (the canvas fills the client area of both fixtures)."""

    def placed() -> tuple[float, float, float, float, float] | None:
        try:
            app = ex.resolve(str(pid))
            ex.get_app_state(app)
        except NativeError:
            return None
        key, t = ex.key_window(app), ex.transform(app)
        if key is None or t is None or key.client.width < 400:
            return None
        return key.client.x, key.client.y, t.origin_x, t.origin_y, t.pixels_per_point

    return poll(placed, timeout_s=10.0, what="the canvas window bound and captured")


def run_cell(env: dict[str, str], code: str) -> Any:
    async def go() -> Any:
        service = open_service(env=env)
        try:
            return await service.call("js", {"code": code, "timeout_ms": 60000})
        finally:
            await service.close()

    return anyio.run(go)


@pytest.mark.parametrize("kind", ["tk", "sdl"])
def test_canvas_task_in_one_cell(kind: str, launch: Any, desktop: Any, ex: LinuxExecutor) -> None:
    app = _launch(launch, kind)
    cx, cy, ox, oy, ppp = _bound(ex, app.pid)

    def pixels(lx: int, ly: int) -> list[float]:
        """Canvas-local points to screenshot pixels of the cell's own observations."""
        return [(cx + lx - ox) * ppp, (cy + ly - oy) * ppp]

    drags = [
        ((20 + (7 * i) % 170, 20 + (5 * i) % 110), (210 + (11 * i) % 170, 160 + (3 * i) % 120)) for i in range(DRAGS)
    ]
    clicks = [(100 + 30 * k, 140 + 10 * k) for k in range(3)]
    cell = f"""
const app = await cua.getApp({app.pid});
const drags = {json.dumps([[pixels(*a), pixels(*b)] for a, b in drags])};
const clicks = {json.dumps([pixels(*c) for c in clicks])};
const keys = {json.dumps(KEYS)};
const breaks = {json.dumps({str(k): v for k, v in BREAKS.items()})};
const sums = [];
const shot = async () => {{
  const b = await app.getScreenshot({{emit: false}});
  let h = 0;
  for (let i = 0; i < b.length; i++) h = (h * 31 + b[i]) >>> 0;
  sums.push(h);
}};
await shot();
for (let i = 0; i < drags.length; i++) {{
  await app.drag(drags[i][0], drags[i][1]);
  if (i % 3 === 2) await shot();
  const k = breaks[String(i)];
  if (k !== undefined) {{
    await app.click(clicks[k]);
    await app.scroll(clicks[k], "down", 1);
    await app.pressKey(keys[k]);
  }}
}}
await app.paste({json.dumps(PASTED)});
await shot();
await shot();
nodeRepl.write(JSON.stringify({{shots: sums.length, sums}}));
"""
    result = run_cell(desktop.env, cell)
    assert not result.is_error, result.text
    assert f"(pid {app.pid})" in result.text and NO_ACCESSIBILITY in result.text
    report = json.loads(result.text.strip().splitlines()[-1])
    assert report["shots"] == 18
    assert report["sums"][0] != report["sums"][-1]  # the drawn lines are in the later captures

    # Every press and release of button 1, in order: each drag's, with a click after drags 10, 25, 40.
    expected: list[tuple[str, tuple[int, int]]] = []
    for i, (a, b) in enumerate(drags):
        expected += [("press", a), ("release", b)]
        if i in BREAKS:
            c = clicks[BREAKS[i]]
            expected += [("press", c), ("release", c)]
    poll(lambda: app.events.of_type("paste"), timeout_s=10.0, what="the paste in the app's log")
    events = app.events.read()
    buttons = [e for e in events if e["type"] in ("press", "release") and e["button"] == 1]
    assert [(e["type"], (e["x"], e["y"])) for e in buttons] == expected
    times = [e["t"] for e in buttons]
    assert times == sorted(times)
    if kind == "tk":  # Tk also reports root coordinates: the canvas is where the window is
        assert all((e["x_root"], e["y_root"]) == (e["x"] + cx, e["y"] + cy) for e in buttons)

    wheels = [e for e in events if e["type"] == "wheel"]
    assert wheels and all(e["direction"] == "down" for e in wheels)
    assert {(e["x"], e["y"]) for e in wheels} == set(clicks)
    presses = [e["keysym"].lower() for e in events if e["type"] == "key_press"]
    assert [k for k in presses if k in ("a", "return", "b")] == ["a", "return", "b"]
    shifted = next(e for e in events if e["type"] == "key_press" and e["keysym"].lower() == "b")
    assert "shift" in shifted["modifiers"]
    (paste,) = app.events.of_type("paste")
    assert paste["text"] == PASTED
