"""End to end: `js` cells through the service, the host gate, the kernel and the Linux backend,
verified from the apps' side (the fixture's event log, Mousepad's own accessible text); on X11,
sway and KWin (``displays``), but for the denied terminal (xterm, an X11 app)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import anyio
import pytest
from _act_support import bind, mousepad_env, named_rect, poll

from deskhand.backends.linux.atspi.connection import Deadline
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.demo import CELLS
from deskhand.host.result import ImageBlock
from deskhand.runtime import open_service
from display_support import MatrixExecutor, typable

pytestmark = pytest.mark.desktop
BOTH = pytest.mark.displays("x11", "sway", "kwin")


def run_cells(env: dict[str, str], cells: list[str]) -> list:
    async def go() -> list:
        service = open_service(env=env)
        try:
            return [await service.call("js", {"code": code, "timeout_ms": 30000}) for code in cells]
        finally:
            await service.close()

    return anyio.run(go)


def document_text(ex: MatrixExecutor, pid: int) -> str | None:
    """Mousepad's document text, read through its own AT-SPI Text interface."""
    buses = ex.atspi.apps(Deadline(2.0))
    bus = next(b for b, p in ex.atspi.pids(buses, Deadline(2.0)).items() if p == pid)
    snap = ex.atspi.snapshot(bus, Deadline(3.0))
    a11y = A11y(ex.atspi)
    for node in snap.nodes.values():
        ref = Ref(bus, node.path)
        if "org.a11y.atspi.EditableText" in a11y.interfaces(ref):
            return a11y.text(ref)
    return None


@BOTH
def test_forty_drags_in_one_cell_reach_the_canvas_in_order(launch, desktop, ex):
    app = launch.gtk_fixture()
    app.events.wait_for("ready")
    bound = bind(ex, app.pid)
    canvas = named_rect(ex, app.pid, "Canvas")
    # Screenshot pixels of two points inside the canvas, from our own observation's transform.
    x0, y0 = bound.pixels(canvas.x + 40, canvas.y + 40)
    x1, y1 = bound.pixels(canvas.x + 240, canvas.y + 190)
    cell = (
        f"let app = await cua.getApp('{app.pid}');\n"
        "for (let i = 0; i < 40; i++) {\n"
        f"  await app.drag([{x0} + i, {y0}], [{x1}, {y1} - i]);\n"
        "}\n"
        "const after = await app.getAXState({emit: false});\n"
        "nodeRepl.write(`drags done, state ${after.length} chars`);"
    )
    [result] = run_cells(desktop.env, [cell])
    assert not result.is_error, result.text
    assert "drags done" in result.text
    poll(lambda: len(app.events.of_type("release")) >= 40, what="40 releases in the canvas log")
    events = app.events.read()
    presses = [e for e in events if e["type"] == "press"]
    releases = [e for e in events if e["type"] == "release"]
    assert len(presses) == 40 and len(releases) == 40
    # Each press at the drag's origin, each release at its destination (on the canvas), strictly in order.
    for i, (p, r) in enumerate(zip(presses, releases, strict=True)):
        assert p["t"] < r["t"]
        assert (p["x"], p["y"]) == (40 + i, 40)
        assert (r["x"], r["y"]) == (240, 190 - i)
        if i + 1 < len(presses):
            assert r["t"] < presses[i + 1]["t"]
    # The contract's five events per drag: down, dragged at origin / midpoint / destination, up.
    # (Moving the pointer to the origin before the press is a plain motion with no button held.)
    # A wlroots compositor sends no motion to where the pointer already is: the app sees four.
    gesture = [e for e in events if e["type"] in ("press", "release") or "button1" in e.get("modifiers", [])]
    kinds = (
        ["press", "motion", "motion", "release"]
        if desktop.wayland
        else ["press", "motion", "motion", "motion", "release"]
    )
    assert len(gesture) == 40 * len(kinds)
    assert [e["type"] for e in gesture[: len(kinds)]] == kinds


@BOTH
def test_demo_task_edits_mousepad_and_returns_its_image(launch, desktop, ex, tmp_path: Path):
    app = launch(["mousepad"], env=mousepad_env(tmp_path))
    milk = typable(desktop, "- milk ✓ (Grüße)", "- milk (ok) (Gruesse)")
    cells = [code.replace('"Mousepad"', f'"{app.pid}"').replace("- milk ✓ (Grüße)", milk) for _, code in CELLS]
    results = run_cells(desktop.env, cells)
    for result in results:
        assert not result.is_error, result.text
    assert "App=org.xfce.mousepad" in results[0].text
    assert "Native App API" in results[0].text  # guidance once, on the first selection
    assert "Native App API" not in results[1].text
    # the diff holds exactly one line: the document's changed value
    changed = (
        f"~\t\t\t\tg1:5 text (settable, string) Value: # Groceries\\n\\n- **apples** and plums\\n- bread\\n{milk}\\n"
    )
    diff_lines = [line for line in results[3].text.splitlines() if line[:1] in ("~", "+", "-")]
    assert diff_lines == [changed], results[3].text
    images = [b for b in results[4].content if isinstance(b, ImageBlock)]
    assert len(images) == 1 and images[0].mime_type == "image/jpeg" and images[0].data[:3] == b"\xff\xd8\xff"
    expected = f"# Groceries\n\n- **apples** and plums\n- bread\n{milk}\n"
    assert poll(lambda: document_text(ex, app.pid) == expected, what="Mousepad's text") is True


def test_a_cell_cannot_act_on_a_denied_app_and_says_nothing_was_dispatched(launch, desktop, ex):
    if not _has("xterm"):
        pytest.skip("xterm is not installed")
    app = launch(["xterm", "-e", "sleep", "60"], wait_on_bus=False)  # a terminal: denied by default
    poll(lambda: _resolves(ex, app.pid), what="xterm's window")
    [result] = run_cells(desktop.env, [f"await cua.computer.click({{app: '{app.pid}', x: 1, y: 1}});"])
    assert result.is_error
    assert result.structured["nativeCallsRejectedBeforeDispatch"] == 1
    assert result.structured["nativeResultUnknown"] is False
    assert re.search(r"not allowed", result.text)


def _resolves(ex: MatrixExecutor, pid: int) -> bool:
    try:
        return ex.resolve(str(pid)).pid == pid
    except Exception:
        return False


def _has(cmd: str) -> bool:
    return shutil.which(cmd) is not None
