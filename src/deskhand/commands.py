"""The agent-facing CLI commands: serve, js, apps, state and guide (registered in ``deskhand.cli``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from deskhand.core.errors import DeskhandError
from deskhand.host.result import ImageBlock, TextBlock, ToolResult

if TYPE_CHECKING:
    from deskhand.server.service import Service

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


# -- serve -----------------------------------------------------------------------------------


def configure_serve(p: argparse.ArgumentParser) -> None:
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP address (loopback by default)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    p.add_argument("--token", default=os.environ.get("DESKHAND_TOKEN"), help="bearer token for HTTP clients")
    p.add_argument("--semantic-tools", action="store_true", help="also advertise the semantic tools and sequence")
    p.add_argument(
        "--launch",
        action="append",
        default=[],
        metavar="CMD",
        help="start this app first (repeatable; e.g. --virtual --launch mousepad) and wait for its window",
    )
    p.add_argument(
        "--grant-system-keys",
        action="store_true",
        help="allow system key combinations (ctrl+alt+Delete, alt+F4, super+l, ...) for this session; "
        "only the user can give this grant, never a tool call",
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from deskhand.runtime import open_service  # noqa: PLC0415

    apps: list[subprocess.Popen[bytes]] = []
    try:
        for cmd in args.launch:  # one at a time inside the try: a failed launch ends the earlier apps
            apps.append(launch_app(shlex.split(cmd)))  # noqa: PERF401
        service = open_service(advertise_semantic=args.semantic_tools, system_keys_granted=args.grant_system_keys)
        serve(args, service)
    finally:
        if apps:  # each app runs in its own session: end its whole process group, then reap it
            from deskhand.desktop._procs import terminate  # noqa: PLC0415

            terminate([app.pid for app in apps], None)
            for app in apps:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    app.wait(timeout=5)
    return 0


def launch_app(argv: list[str], timeout_s: float = 20.0) -> subprocess.Popen[bytes]:
    """Start an app on this process's desktop with toolkit accessibility on; wait for its window.

    Its output goes to /dev/null: on the stdio transport, standard output carries MCP.
    """
    from deskhand.desktop.virtual import a11y_env, wait_for_window  # noqa: PLC0415

    if not argv:
        raise DeskhandError("--launch needs a command")
    display = os.environ.get("DISPLAY")
    if not display:
        raise DeskhandError("--launch needs an X display: set DISPLAY, or add --virtual")
    try:
        proc = subprocess.Popen(
            argv,
            env=a11y_env(os.environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except FileNotFoundError as err:
        raise DeskhandError(f"--launch: command not found: {argv[0]}") from err
    try:
        wait_for_window(display, proc.pid, timeout_s)
    except BaseException as err:  # no X display, Ctrl-C, ...: the app must not outlive the launch
        proc.kill()
        proc.wait()
        if isinstance(err, TimeoutError):
            raise DeskhandError(f"--launch: {argv[0]} showed no window within {timeout_s:.0f} s") from err
        raise
    return proc


def serve(args: argparse.Namespace, service: Service) -> None:
    from deskhand.server import mcp  # noqa: PLC0415

    if args.transport == "stdio":
        anyio.run(mcp.serve_stdio, service)
    else:
        print(f"deskhand: serving MCP on http://{args.host}:{args.port}/mcp", file=sys.stderr)
        anyio.run(lambda: mcp.serve_http(service, host=args.host, port=args.port, token=args.token))


# -- js --------------------------------------------------------------------------------------


def configure_js(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a JavaScript file, or - for standard input; `// %%` lines separate cells")
    p.add_argument("--out", type=Path, help="save emitted images into this folder")
    p.add_argument("--timeout-ms", type=int, default=30_000, help="per-cell timeout (1..60000)")


def cmd_js(args: argparse.Namespace) -> int:
    from deskhand.runtime import open_service  # noqa: PLC0415

    source = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    cells = split_cells(source)

    async def run() -> int:
        service = open_service()
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


# -- guide -----------------------------------------------------------------------------------


def configure_guide(p: argparse.ArgumentParser) -> None:
    p.add_argument("document", nargs="?", default="entry", choices=("entry", "linux", "macos"))


def cmd_guide(args: argparse.Namespace) -> int:
    from deskhand import guidance  # noqa: PLC0415

    print(guidance.load(args.document), end="")
    return 0
