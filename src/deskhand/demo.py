"""``make demo``: what an agent does with deskhand, end to end, on a private desktop.

It starts the embedded virtual desktop with Mousepad (a real Debian editor), starts
``deskhand serve`` as an MCP server over stdio, connects to it with the official MCP client,
and runs a short task through `js` cells: bind the app, paste Markdown, select a word and
replace it by typing, press keys, observe with a diff, and take a screenshot. It prints what the
model would see and saves the screenshots to ``out/``. The server records the session
(``serve --trace out/trace``) and the demo writes its viewer to ``out/trace-viewer.html``.

Run with ``python -m deskhand.demo [--out DIR]``.
"""

from __future__ import annotations

import argparse
import base64
import shutil
import sys
import time
from pathlib import Path

import anyio

from deskhand.desktop import VirtualDesktop
from deskhand.desktop.doctor import run_doctor

#: The task, one `js` cell per step, as a model would send them.
CELLS: list[tuple[str, str]] = [
    (
        "Bind Mousepad and read its state (the first selection also prints the API guidance)",
        'let app = await cua.getApp("Mousepad");',
    ),
    (
        "Paste Markdown through a clipboard transaction that gives the user's clipboard back",
        'await app.paste("# Groceries\\n\\n- **apples** and pears\\n- bread\\n", {format: "md"});\n'
        "await app.getAXState();",
    ),
    (
        "Find the document, select the word 'pears' and replace it by typing",
        "const state = await app.getAXState({disableDiffing: true, emit: false});\n"
        "const doc = state.match(/(g\\d+:\\d+) text \\(settable/)[1];\n"
        'await app.selectText(doc, "pears", {prefix: "and "});\n'
        'await app.typeText("plums");\n'
        "nodeRepl.write(`replaced pears in ${doc}`);",
    ),
    (
        "Press keys, type a line with non-ASCII characters, observe the change as a diff",
        'await app.pressKey("ctrl+End");\nawait app.typeText("- milk ✓ (Grüße)\\n");\nawait app.getAXState();',
    ),
    ("Take a screenshot of the window", "await app.getScreenshot();"),
]


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _indent(text: str, limit: int = 60) -> str:
    lines = text.splitlines()
    shown = lines if len(lines) <= limit else [*lines[:limit], f"... ({len(lines) - limit} more lines)"]
    return "\n".join("  │ " + line for line in shown)


async def _run_task(env: dict[str, str], out_dir: Path) -> int:
    from mcp import Client, StdioServerParameters  # noqa: PLC0415 - the MCP SDK is slow to import

    args = ["-m", "deskhand", "serve", "--trace", str(out_dir / "trace")]
    server = StdioServerParameters(command=sys.executable, args=args, env=env)
    failures = 0
    async with Client(server) as client:
        tools = await client.list_tools()
        platform = (tools.meta or {}).get("platform")
        _out(f"MCP tools: {', '.join(t.name for t in tools.tools)} (platform: {platform})\n")
        for n, (title, code) in enumerate(CELLS, 1):
            _out(f"── step {n}: {title}")
            _out(_indent(code))
            started = time.monotonic()
            result = await client.call_tool("js", {"code": code, "title": title})
            elapsed = (time.monotonic() - started) * 1000
            _out(f"  result in {elapsed:.0f} ms{' (error)' if result.is_error else ''}:")
            for i, block in enumerate(result.content):
                if block.type == "text":
                    _out(_indent(block.text))
                elif block.type == "image":
                    path = out_dir / f"demo-step{n}-{i}.jpg"
                    path.write_bytes(base64.b64decode(block.data))
                    _out(f"  │ [image {block.mime_type}, saved to {path}]")
            failures += bool(result.is_error)
            _out()
    return failures


def run(out_dir: Path, timeout_s: float) -> int:
    from deskhand.trace.viewer import write_viewer  # noqa: PLC0415

    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out_dir / "trace", ignore_errors=True)  # the previous demo's trace
    with VirtualDesktop() as desktop:
        timings = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in desktop.timings.items())
        _out(f"private desktop {desktop.id} on {desktop.env['DISPLAY']} ({timings})")
        app = desktop.launch(["mousepad"], log_path=out_dir / "demo-mousepad.log")
        with desktop.a11y() as bus:
            bus.wait_for_pid(app.pid, timeout_s=timeout_s)
        desktop.wait_for_window(app.pid, timeout_s=timeout_s)
        report = run_doctor(desktop.app_env())
        _out(f"deskhand doctor: {'ready' if report.ok else 'NOT ready'}")
        if not report.ok:
            _out(report.to_text())
        _out()
        failures = anyio.run(_run_task, desktop.app_env(), out_dir)
    viewer = write_viewer(out_dir / "trace", out_dir / "trace-viewer.html")
    _out(f"{len(CELLS) - failures} of {len(CELLS)} steps succeeded; screenshots are in {out_dir}/")
    _out(f"session trace in {out_dir / 'trace'}/; open {viewer} in a browser")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deskhand.demo", description=__doc__)
    parser.add_argument("--out", default="out", type=Path, help="directory for the screenshots (default: out)")
    parser.add_argument("--timeout", default=20.0, type=float, help="seconds to wait for Mousepad")
    args = parser.parse_args(argv)
    try:
        return run(args.out, args.timeout)
    except (TimeoutError, OSError) as exc:
        sys.stderr.write(f"demo: error: {exc}\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
