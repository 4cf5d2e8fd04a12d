"""The agent-facing CLI commands: serve, js, apps, state and guide (registered in ``deskhand.cli``)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from deskhand import servecli
from deskhand.core.errors import DeskhandError
from deskhand.host.result import ImageBlock, TextBlock, ToolResult

if TYPE_CHECKING:
    from deskhand.server.service import Service

    pass

#: A line that separates two cells in a `deskhand js` file.
CELL_SEPARATOR = re.compile(r"^//\s*%%.*$", re.MULTILINE)
_EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}


def split_cells(source: str) -> list[str]:
    """Cells of a script: the text between ``// %%`` lines; blank cells are dropped."""
    return [cell.strip("\n") for cell in CELL_SEPARATOR.split(source) if cell.strip()]


def print_result(result: ToolResult, *, out: Path | None, label: str) -> list[Path]:
    """Print text blocks; save image blocks under ``out`` (or say that they were skipped)."""
    saved: list[Path] = []
    for i, block in enumerate(result.content):
        if isinstance(block, TextBlock):
            print(block.text)
        elif isinstance(block, ImageBlock):
            if out is None:
                print(f"[image {block.mime_type}, {len(block.data)} bytes; pass --out DIR to save it]")
                continue
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"{label}-{i}.{_EXTENSIONS.get(block.mime_type, 'bin')}"
            path.write_bytes(block.data)
            saved.append(path)
            print(f"[image {block.mime_type} saved to {path}]")
    return saved


def _fail(result: ToolResult) -> DeskhandError:
    return DeskhandError(result.text.splitlines()[-1] if result.text else "the call failed")


# -- serve (in deskhand.servecli) --------------------------------------------------------------

configure_serve, cmd_serve, launch_app = servecli.configure_serve, servecli.cmd_serve, servecli.launch_app
add_trace_options = servecli.add_trace_options


def traced_service(
    args: argparse.Namespace, *, advertise_semantic: bool = False, system_keys_granted: bool = False
) -> Service:
    """``open_service`` with the command's tracing options."""
    from deskhand.runtime import open_service  # noqa: PLC0415

    return open_service(
        advertise_semantic=advertise_semantic,
        system_keys_granted=system_keys_granted,
        trace=args.trace,
        trace_redact=args.trace_redact,
        trace_max_bytes=int(args.trace_max_mb * 2**20),
    )


# -- js --------------------------------------------------------------------------------------


def configure_js(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a JavaScript file, or - for standard input; `// %%` lines separate cells")
    p.add_argument("--out", type=Path, help="save emitted images into this folder")
    p.add_argument("--timeout-ms", type=int, default=30_000, help="per-cell timeout (1..60000)")
    add_trace_options(p)


def cmd_js(args: argparse.Namespace) -> int:

    source = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    cells = split_cells(source)

    async def run() -> int:
        service = traced_service(args)
        try:
            for n, cell in enumerate(cells, 1):
                print(f"--- cell {n}")
                result = await service.call("js", {"code": cell, "timeout_ms": args.timeout_ms})
                print_result(result, out=args.out, label=f"cell{n}")
                if result.is_error:
                    return 1
            return 0
        finally:
            await service.close()

    return anyio.run(run)


# -- apps, state -----------------------------------------------------------------------------


def _one_call(tool: str, call_args: dict[str, object]) -> ToolResult:
    from deskhand.runtime import open_service  # noqa: PLC0415

    async def run() -> ToolResult:
        service = open_service()
        try:
            return await service.call(tool, call_args)
        finally:
            await service.close()

    result = anyio.run(run)
    if result.is_error:
        raise _fail(result)
    return result


def configure_apps(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the inventory as JSON")


def cmd_apps(args: argparse.Namespace) -> int:
    import json  # noqa: PLC0415

    result = _one_call("list_apps", {})
    print(json.dumps(result.structured.get("apps", []), indent=1) if args.json else result.text)
    return 0


def configure_state(p: argparse.ArgumentParser) -> None:
    p.add_argument("app", help="display name, app id, executable path or pid")
    p.add_argument("--screenshot", type=Path, help="save the window's JPEG to this file")


def cmd_state(args: argparse.Namespace) -> int:
    result = _one_call("get_app_state", {"app": args.app, "disableDiff": True})
    for block in result.content:
        if isinstance(block, TextBlock):
            print(block.text)
        elif args.screenshot is not None:
            args.screenshot.write_bytes(block.data)
            print(f"[screenshot {block.mime_type} saved to {args.screenshot}]")
    return 0


# -- trace -----------------------------------------------------------------------------------


def configure_trace(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="{view}")
    view = sub.add_parser("view", help="write one self-contained HTML file that shows a recorded trace")
    view.add_argument("dir", type=Path, help="the trace directory (serve --trace DIR)")
    view.add_argument("--out", type=Path, help="the HTML file to write (default DIR/trace.html)")


def cmd_trace(args: argparse.Namespace) -> int:
    from deskhand.trace.viewer import write_viewer  # noqa: PLC0415

    try:
        path = write_viewer(args.dir, args.out)
    except FileNotFoundError as err:
        raise DeskhandError(str(err)) from err
    print(path)
    return 0


# -- guide -----------------------------------------------------------------------------------


def configure_guide(p: argparse.ArgumentParser) -> None:
    p.add_argument("document", nargs="?", default="entry", choices=("entry", "linux", "macos"))


def cmd_guide(args: argparse.Namespace) -> int:
    from deskhand import guidance  # noqa: PLC0415

    print(guidance.load(args.document), end="")
    return 0
