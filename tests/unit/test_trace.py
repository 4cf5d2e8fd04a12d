"""The trace recorder through the host's call path (fake backend), its cap and redaction, and the viewer file."""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import numpy as np
import pytest
import simplejpeg

from deskhand.backends.base import Image
from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core.errors import DeskhandError
from deskhand.host import AppPolicy, Host, ImageBlock, TextBlock, ToolResult
from deskhand.trace import TraceRecorder
from deskhand.trace.recorder import TRACE_FILE, call_points
from deskhand.trace.viewer import read_records, render, write_viewer


def jpeg(width: int = 320, height: int = 200) -> bytes:
    pixels = np.zeros((height, width, 3), dtype=np.uint8)
    pixels[:, :, 1] = 120
    return bytes(simplejpeg.encode_jpeg(pixels, quality=70, colorspace="RGB"))


def records(directory: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (directory / TRACE_FILE).read_text(encoding="utf-8").splitlines()]


def traced_host(tmp_path: Path, **kw: object) -> tuple[Host, TraceRecorder]:
    app = FakeApp("Mousepad", "org.xfce.mousepad", pid=4242, state_text="App=org.xfce.mousepad (pid 4242)\n\t1 text\n")
    app.image = Image(jpeg(), "image/jpeg", 320, 200)
    host = Host(FakeExecutor([app]), policy=AppPolicy())
    recorder = TraceRecorder(tmp_path, **kw)  # type: ignore[arg-type]
    host.tracer = recorder
    return host, recorder


def run_calls(host: Host, calls: list[tuple[str, dict[str, object]]]) -> list[ToolResult]:
    async def go() -> list[ToolResult]:
        out = []
        async with host.session_lock() as held:
            for name, args in calls:
                out.append(await held.call_tool(name, args))
        out.append(await host.call_tool("get_app_state", {"app": "Mousepad"}))
        return out

    return anyio.run(go)


def test_every_call_through_the_host_is_recorded_with_its_points_and_screenshot(tmp_path: Path) -> None:
    host, recorder = traced_host(tmp_path)
    cell = recorder.cell_start("await app.click([10, 20])", "click it")
    results = run_calls(
        host,
        [
            ("get_app_state", {"app": "Mousepad"}),
            ("click", {"app": "Mousepad", "x": 10, "y": 20}),
            ("drag", {"app": "Mousepad", "from_x": 1, "from_y": 2, "to_x": 30, "to_y": 40}),
            ("click", {"app": "Mousepad", "x": -5}),  # bad arguments: refused before dispatch
        ],
    )
    recorder.cell_end(cell, "await app.click([10, 20])", "click it", ToolResult((TextBlock("done"),)), 0.5)
    recorder.close()
    got = records(tmp_path)
    calls = [r for r in got if r["type"] == "call"]
    assert [c["tool"] for c in calls] == ["get_app_state", "click", "drag", "click", "get_app_state"]
    assert [c["cell"] for c in calls] == [1, 1, 1, 1, None]
    assert calls[1]["points"] == [[10.0, 20.0]]
    assert calls[2]["points"] == [[1.0, 2.0], [30.0, 40.0]]
    assert calls[3]["is_error"] and not calls[3]["dispatched"] and calls[3]["error"] == results[3].text
    first = calls[0]["images"][0]  # type: ignore[index]
    assert (first["width"], first["height"]) == (320, 200)
    assert (tmp_path / first["file"]).read_bytes() == host.executor.apps[0].image.data  # type: ignore[attr-defined]
    assert calls[0]["state"].startswith("<app_state>") or "org.xfce.mousepad" in calls[0]["state"]
    assert [r["type"] for r in got if r["type"] != "call"] == ["session", "cell_start", "cell"]
    assert [r["seq"] for r in got] == sorted(r["seq"] for r in got)


def test_redaction_hides_typed_text_in_arguments_outcome_and_cell_code(tmp_path: Path) -> None:
    host, recorder = traced_host(tmp_path, redact=True)
    code = 'await app.typeText("hunter2 secret");'
    cell = recorder.cell_start(code, None)
    run_calls(host, [("type_text", {"app": "Mousepad", "text": "hunter2 secret"})])
    recorder.cell_end(cell, code, None, ToolResult((TextBlock("typed hunter2 secret"),)), 0.1)
    recorder.close()
    text = (tmp_path / TRACE_FILE).read_text(encoding="utf-8")
    assert "hunter2" not in text
    assert "[redacted 14 chars]" in text


def test_the_size_cap_ends_the_trace_with_a_note(tmp_path: Path) -> None:
    host, recorder = traced_host(tmp_path, max_bytes=6000)
    run_calls(host, [("get_app_state", {"app": "Mousepad"})] * 10)
    recorder.close()
    got = records(tmp_path)
    assert got[-1]["type"] == "cap" and "cap" in str(got[-1]["note"])
    assert (
        sum(len(p.read_bytes()) for p in (tmp_path / "images").iterdir()) + len((tmp_path / TRACE_FILE).read_bytes())
        < 6000 + 400
    )  # the cap note itself is the only overshoot


def test_points_only_for_coordinate_actions() -> None:
    assert call_points("click", {"element_index": "3"}) == []
    assert call_points("type_text", {"x": 1, "y": 2}) == []
    assert call_points("scroll", {"x": 5, "y": 6, "direction": "down"}) == [[5.0, 6.0]]


def synthetic_trace(directory: Path, n_calls: int) -> None:
    recorder = TraceRecorder(directory)
    image = jpeg(160, 100)
    per_cell = 10
    for c in range(n_calls // per_cell):
        cell = recorder.cell_start(f"// cell {c}", f"cell {c}")
        for i in range(per_cell):
            if i % 2 == 0:
                result = ToolResult(
                    (TextBlock(f"state {c}.{i}"), ImageBlock(image, "image/jpeg")), structured={"app": "a"}
                )
                recorder.call("get_app_state", {"app": "a"}, result, recorder.now(), 0.01)
            else:
                err = i == 9
                result = ToolResult(
                    (TextBlock("boom" if err else "ok"),),
                    is_error=err,
                    structured={"code": "stale_process"} if err else {"result": {"effect": "confirmed"}},
                )
                recorder.call("click", {"app": "a", "x": 10 + i, "y": 20}, result, recorder.now(), 0.02)
        recorder.cell_end(cell, f"// cell {c}", f"cell {c}", ToolResult((TextBlock("ok"),)), 0.2)
    recorder.close()


def test_the_viewer_of_a_thousand_calls_is_one_self_contained_file(tmp_path: Path) -> None:
    synthetic_trace(tmp_path, 1000)
    started = time.monotonic()
    out = write_viewer(tmp_path)
    elapsed = time.monotonic() - started
    page = out.read_text(encoding="utf-8")
    assert out == tmp_path / "trace.html"
    assert page.count('class="img"') == 500  # every screenshot inlined, once
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page and "<link" not in page
    data = page.split('id="trace-data">', 1)[1].split("</script>", 1)[0]
    parsed = json.loads(data.replace("<\\/", "</"))
    assert sum(r["type"] == "call" for r in parsed) == 1000
    print(f"viewer of 1000 calls written in {elapsed:.2f} s, {len(page) / 1e6:.1f} MB")


def test_a_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    synthetic_trace(tmp_path, 10)
    with (tmp_path / TRACE_FILE).open("a", encoding="utf-8") as f:
        f.write('{"type": "call", "tool": "cli')
    assert sum(r["type"] == "call" for r in read_records(tmp_path)) == 10
    assert "deskhand trace" in render(tmp_path)


def test_a_directory_that_holds_a_trace_is_not_recorded_into_again(tmp_path: Path) -> None:
    synthetic_trace(tmp_path, 10)
    before = (tmp_path / TRACE_FILE).read_bytes()
    with pytest.raises(DeskhandError, match="already holds a trace"):
        TraceRecorder(tmp_path)
    assert (tmp_path / TRACE_FILE).read_bytes() == before


def test_a_cancelled_cell_is_recorded_as_cancelled(tmp_path: Path) -> None:
    from deskhand.server.service import Service  # noqa: PLC0415

    class Hanging:
        def __init__(self, _host: object) -> None: ...

        async def run(self, code: str, *, timeout_ms: int) -> ToolResult:
            await anyio.sleep_forever()
            raise AssertionError

        async def reset(self) -> None: ...

        async def close(self) -> None: ...

    host, recorder = traced_host(tmp_path)
    service = Service(host, Hanging)
    service.tracer = recorder

    async def go() -> None:
        with anyio.move_on_after(0.05):
            await service.call("js", {"code": "await new Promise(() => {})", "title": "hangs"})

    anyio.run(go)
    recorder.close()
    cells = [r for r in records(tmp_path) if r["type"] == "cell"]
    assert len(cells) == 1 and cells[0]["is_error"] and cells[0]["title"] == "hangs"
    assert "cancelled" in str(cells[0]["text"])


def test_the_cli_takes_the_trace_options_and_views_a_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from deskhand.cli import build_parser, main  # noqa: PLC0415

    args = build_parser().parse_args(["serve", "--trace", "d", "--trace-redact", "--trace-max-mb", "1.5"])
    assert (args.trace, args.trace_redact, args.trace_max_mb) == (Path("d"), True, 1.5)
    assert build_parser().parse_args(["js", "f.js", "--trace", "d"]).trace == Path("d")
    assert main(["trace", "view", str(tmp_path / "missing")]) == 1
    assert "no trace.jsonl" in capsys.readouterr().err
    synthetic_trace(tmp_path, 10)
    assert main(["trace", "view", str(tmp_path), "--out", str(tmp_path / "v.html")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "v.html")
    assert (tmp_path / "v.html").read_text(encoding="utf-8").count('class="img"') == 5


def test_sequence_steps_and_direct_calls_are_recorded_outside_any_cell(tmp_path: Path) -> None:
    from deskhand.server.service import Service  # noqa: PLC0415

    host, recorder = traced_host(tmp_path)
    service = Service(host, None)
    steps = [{"tool": "click", "x": 3, "y": 4}, {"tool": "press_key", "key": "Return"}]

    async def go() -> ToolResult:
        await service.call("get_app_state", {"app": "Mousepad"})
        return await service.call("sequence", {"app": "Mousepad", "steps": steps})

    result = anyio.run(go)
    recorder.close()
    assert not result.is_error, result.text
    calls = [r for r in records(tmp_path) if r["type"] == "call"]
    assert [c["tool"] for c in calls[:3]] == ["get_app_state", "click", "press_key"]
    assert calls[1]["points"] == [[3.0, 4.0]]
    assert all(c["cell"] is None for c in calls)
