"""A traced session against the GTK fixture: the trace holds every call, the screenshots the cell saw
and the points it chose; the viewer, rendered by headless Chromium, shows the cells, the calls and
a marker at the clicked point. The trace of a session runs on X11 and on sway (``displays``); the
viewer's tests read the X11 session's trace."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import numpy as np
import pytest
import simplejpeg
from _act_support import bind, executor_for, named_rect, poll

from deskhand.host.result import ImageBlock, TextBlock, ToolResult
from deskhand.runtime import open_service
from deskhand.sdk import Computer
from deskhand.trace import TraceRecorder
from deskhand.trace.recorder import TRACE_FILE
from deskhand.trace.viewer import write_viewer
from desktop_support import Launcher
from display_support import typable

pytestmark = pytest.mark.desktop
BOTH = pytest.mark.displays("x11", "sway", "kwin")

OUT = Path(__file__).resolve().parents[2] / "out"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TYPED = "trace me ✓"
#: What the cell types on KWin, whose fake input types the session's layout only.
TYPED_NARROW = "trace me (ok)"


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="dh-trace-chromium-") as profile:
        cmd = [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *args,
        ]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)


@pytest.fixture(scope="module")
def gtk(tmp_path_factory, desktop):
    """The GTK fixture app, shared by the module, and an executor to measure it with."""
    launcher = Launcher(desktop, tmp_path_factory.mktemp("apps"))
    ex = executor_for(desktop)
    try:
        app = launcher.gtk_fixture()
        yield app, ex
    finally:
        ex.close()
        launcher.close()


@pytest.fixture(scope="module")
def traced(tmp_path_factory, desktop, gtk):
    """One traced session: a cell that observes, clicks the entry, types, drags and clicks the canvas."""
    app, ex = gtk
    app.events.wait_for("ready")
    typed = typable(desktop, TYPED, TYPED_NARROW)
    bound = bind(ex, app.pid)
    canvas = named_rect(ex, app.pid, "Canvas")
    x0, y0 = (round(v) for v in bound.pixels(canvas.x + 40, canvas.y + 40))
    x1, y1 = (round(v) for v in bound.pixels(canvas.x + 200, canvas.y + 150))
    cx, cy = (round(v) for v in bound.pixels(canvas.x + 100, canvas.y + 60))
    cell = (
        f"let app = await cua.getApp('{app.pid}');\n"
        "const state = await app.getAXState({disableDiffing: true, emit: false});\n"
        "const entry = state.match(/(g\\d+:\\d+) text \\(settable, string\\) Name/)[1];\n"
        "await app.click(entry);\n"
        f"await app.setValue(entry, '');\n"
        f"await app.typeText({json.dumps(typed)});\n"
        f"await app.drag([{x0}, {y0}], [{x1}, {y1}]);\n"
        f"await app.click([{cx}, {cy}]);\n"
        "try { await app.pressKey('no-such-key'); } catch (e) { nodeRepl.write(`refused: ${e.message}`); }\n"
        "await app.getScreenshot();"
    )
    directory = tmp_path_factory.mktemp("trace")

    async def go():
        service = open_service(env=desktop.env, trace=directory)
        try:
            result = await service.call("js", {"code": cell, "title": "observe, type, drag, click"})
            return result, service.host.counters.started  # type: ignore[attr-defined]
        finally:
            await service.close()

    result, started = anyio.run(go)
    assert not result.is_error, result.text
    poll(lambda: any(e.get("text") == typed for e in app.events.of_type("text")), what="typed text in the entry")
    poll(lambda: len(app.events.of_type("release")) >= 2, what="drag and click releases in the canvas")
    records = [json.loads(line) for line in (directory / TRACE_FILE).read_text(encoding="utf-8").splitlines()]
    return {"dir": directory, "records": records, "started": started, "click": (cx, cy), "drag": (x0, y0, x1, y1),
            "typed": typed}  # fmt: skip


@BOTH
def test_every_call_of_the_cell_is_in_the_trace(traced):
    records = traced["records"]
    calls = [r for r in records if r["type"] == "call"]
    assert len(calls) == traced["started"]  # the host counted every native call; each one is recorded
    tools = [c["tool"] for c in calls]
    for tool in ("get_app_state", "click", "set_value", "type_text", "drag", "press_key"):
        assert tool in tools
    assert tools.index("type_text") < tools.index("drag") < len(tools) - 1 - tools[::-1].index("click")
    assert all(c["cell"] == 1 for c in calls)
    assert [r["type"] for r in records if r["type"] != "call"] == ["session", "cell_start", "cell"]
    cell = records[-1]
    assert cell["type"] == "cell" and cell["title"] == "observe, type, drag, click" and not cell["is_error"]
    refused = next(c for c in calls if c["tool"] == "press_key")
    assert refused["is_error"] and not refused["dispatched"] and refused["code"] == "unknown_key"
    assert refused["error"] and "refused: " + refused["error"].splitlines()[0] in "\n".join(cell["text"])
    typed = next(c for c in calls if c["tool"] == "type_text")
    assert typed["args"]["text"] == traced["typed"]
    assert typed["structured"]["result"]["effect"] in {"confirmed", "partial"}
    assert "route" in typed["structured"]["result"]


@BOTH
def test_screenshots_decode_and_points_lie_inside_them(traced):
    directory, records = traced["dir"], traced["records"]
    last_image = None
    pointed = 0
    for record in records:
        for image in record.get("images", []):
            pixels = simplejpeg.decode_jpeg((directory / image["file"]).read_bytes())
            assert pixels.shape[:2] == (image["height"], image["width"])
            last_image = image
        for x, y in record.get("points", []):
            assert last_image is not None, "a point chosen before any screenshot"
            assert 0 <= x < last_image["width"] and 0 <= y < last_image["height"]
            pointed += 1
    assert pointed == 3  # the drag's two ends and the canvas click
    click = next(r for r in records if r["type"] == "call" and r["tool"] == "click" and r["points"])
    assert click["points"] == [[float(v) for v in traced["click"]]]


def test_the_viewer_renders_cells_calls_and_the_click_marker_in_chromium(traced):
    directory, records = traced["dir"], traced["records"]
    page = write_viewer(directory)
    click = next(r for r in records if r["type"] == "call" and r["tool"] == "click" and r["points"])
    url = f"{page.as_uri()}#call-{click['seq']}"
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", url).stdout
    calls = [r for r in records if r["type"] == "call"]
    # Rendered rows carry numbers; the page's own script (also in the dump) has none.
    assert len(re.findall(r'<div class="cell[^"]*" data-cell="\d+">', dom)) == 1
    assert len(re.findall(r'<div class="call[^"]*" data-key="call:\d+"', dom)) == len(calls)
    assert f'data-key="call:{click["seq"]}"' in dom
    marker = re.search(r'<circle class="mark mark-click" cx="([\d.]+)" cy="([\d.]+)"', dom)
    assert marker, "no click marker in the rendered detail"
    assert (float(marker.group(1)), float(marker.group(2))) == tuple(float(v) for v in traced["click"])
    # The marker sits on the screenshot the click was chosen from, in that image's pixels.
    box = re.search(r'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 (\d+) (\d+)"', dom)
    before = [i for r in records if r["seq"] < click["seq"] for i in r.get("images", [])][-1]
    assert box and (int(box.group(1)), int(box.group(2))) == (before["width"], before["height"])
    OUT.mkdir(exist_ok=True)
    shot = OUT / "trace-viewer.png"
    shot.unlink(missing_ok=True)
    chromium("--virtual-time-budget=5000", "--window-size=1400,900", f"--screenshot={shot}", url)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def read_trace(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / TRACE_FILE).read_text(encoding="utf-8").splitlines()]


@BOTH
def test_the_sdk_records_its_calls_when_given_a_trace_directory(gtk, desktop, tmp_path, monkeypatch):
    app, _ex = gtk
    for key, value in desktop.env.items():
        monkeypatch.setenv(key, value)
    if desktop.wayland:  # a Wayland session without XWayland
        monkeypatch.delenv("DISPLAY", raising=False)
    since = time.monotonic()
    with Computer.create(trace=tmp_path / "sdk", trace_redact=True) as computer:
        bound = computer.get_app(str(app.pid))
        state = bound.get_ax_state(disable_diffing=True)
        entry = re.search(r"(g\d+:\d+) text \(settable, string\) Name", state)
        assert entry
        bound.set_value(entry.group(1), "sdk secret")
    app.events.wait_for("text", name="Name", text="sdk secret", since=since)
    records = read_trace(tmp_path / "sdk")
    assert [r["tool"] for r in records if r["type"] == "call"] == ["get_app_state", "get_app_state", "set_value"]
    assert all(r["cell"] is None for r in records if r["type"] == "call")  # no cell: direct calls
    assert "sdk secret" not in (tmp_path / "sdk" / TRACE_FILE).read_text(encoding="utf-8")


@BOTH
def test_the_js_command_records_its_cells_and_the_trace_command_shows_them(gtk, desktop, tmp_path):
    app, _ex = gtk
    script = tmp_path / "task.js"
    script.write_text(f"let app = await cua.getApp('{app.pid}');\n// %%\nawait app.getScreenshot();\n")
    env = {**os.environ, **desktop.env}
    if desktop.wayland:  # a Wayland session without XWayland
        env.pop("DISPLAY", None)
    trace = tmp_path / "cli"
    cmd = [sys.executable, "-m", "deskhand"]
    subprocess.run(
        [*cmd, "js", str(script), "--trace", str(trace)], env=env, check=True, capture_output=True, timeout=120
    )
    records = read_trace(trace)
    assert [r["cell"] for r in records if r["type"] == "cell"] == [1, 2]
    assert [(r["cell"], r["tool"]) for r in records if r["type"] == "call"] == [
        (1, "get_app_state"),
        (2, "get_app_state"),
    ]
    shown = subprocess.run([*cmd, "trace", "view", str(trace)], env=env, check=True, capture_output=True, text=True)
    page = Path(shown.stdout.strip())
    assert page == trace / "trace.html" and page.stat().st_size > 0
    refused = subprocess.run(
        [*cmd, "js", str(script), "--trace", str(trace)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert refused.returncode == 1 and "already holds a trace" in refused.stderr


@pytest.fixture(scope="module")
def browser(display):
    """Headless Debian Chromium driven by Playwright (no downloaded browser). Playwright's sync API
    holds an event loop in this thread: it closes before the module's next display server runs
    its traced cell (``display`` makes pytest end it there)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True)
        try:
            yield b
        finally:
            b.close()


def test_keys_filters_and_the_marker_position_in_the_live_page(traced, browser):
    directory, records = traced["dir"], traced["records"]
    page_file = write_viewer(directory, directory / "live.html")
    calls = [r for r in records if r["type"] == "call"]
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(page_file.as_uri())
        assert page.locator(".call").count() == len(calls)
        assert page.locator(".cell-head.selected").count() == 1  # the first cell is shown at first
        page.keyboard.press("j")
        assert page.locator(".selected").get_attribute("data-key") == f"call:{calls[0]['seq']}"
        page.keyboard.press("ArrowDown")
        page.keyboard.press("k")
        assert page.locator(".selected").get_attribute("data-key") == f"call:{calls[0]['seq']}"
        # Errors only: the one refused key press is left, and its detail shows the recovery text.
        page.locator("#filter-errors").check()
        visible = page.locator(".call:not(.hidden)")
        refused = next(c for c in calls if c["is_error"])
        assert visible.count() == 1 and visible.get_attribute("data-key") == f"call:{refused['seq']}"
        visible.click()
        assert refused["error"].splitlines()[0] in page.locator(".error-box").inner_text()
        page.locator("#filter-errors").uncheck()
        # The drag's path runs between its two ends, in screenshot pixels.
        drag = next(c for c in calls if c["tool"] == "drag")
        page.locator(f'[data-key="call:{drag["seq"]}"]').click()
        line = page.locator(".shot-before line.path")
        ends = [float(line.get_attribute(a) or "nan") for a in ("x1", "y1", "x2", "y2")]
        assert ends == [float(v) for v in traced["drag"]]
        # The click marker is drawn where the click went on the screenshot, at any display scale.
        click = next(c for c in calls if c["tool"] == "click" and c["points"])
        page.locator(f'[data-key="call:{click["seq"]}"]').click()
        img = page.locator(".shot-before img")
        img.wait_for()
        box = img.bounding_box()
        natural = page.evaluate("() => document.querySelector('.shot-before img').naturalWidth")
        mark = page.locator(".shot-before .mark").bounding_box()
        assert box and mark and natural
        scale = box["width"] / natural
        x, y = traced["click"]
        assert abs(mark["x"] + mark["width"] / 2 - (box["x"] + x * scale)) < 2
        assert abs(mark["y"] + mark["height"] / 2 - (box["y"] + y * scale)) < 2
    finally:
        page.close()


def test_a_thousand_call_trace_opens_in_the_browser(browser, tmp_path):
    recorder = TraceRecorder(tmp_path)
    shot = ImageBlock(bytes(simplejpeg.encode_jpeg(np.zeros((100, 160, 3), np.uint8), colorspace="RGB")), "image/jpeg")
    for c in range(100):
        cell = recorder.cell_start(f"// {c}", f"cell {c}")
        for i in range(10):
            observe = ToolResult((TextBlock("state"), shot), structured={"app": "a"})
            act = ToolResult((TextBlock("ok"),), structured={"result": {"effect": "confirmed"}})
            name, args = ("get_app_state", {"app": "a"}) if i % 2 else ("click", {"app": "a", "x": i, "y": 5})
            recorder.call(name, args, observe if i % 2 else act, recorder.now(), 0.01)
        recorder.cell_end(cell, f"// {c}", f"cell {c}", ToolResult((TextBlock("ok"),)), 0.1)
    recorder.close()
    page_file = write_viewer(tmp_path)
    page = browser.new_page()
    try:
        started = time.monotonic()
        page.goto(page_file.as_uri())
        rows = page.locator(".call").count()
        loaded = time.monotonic() - started
        assert rows == 1000
        page.keyboard.press("j")
        assert page.locator(".selected").count() == 1
        print(f"1000-call viewer loaded in {loaded:.2f} s")
    finally:
        page.close()
