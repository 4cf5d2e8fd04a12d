"""The ``deskhand`` command line: one small function per subcommand, registered in ``COMMANDS``.

Add a subcommand by writing ``_configure_x(parser)`` and ``_cmd_x(args) -> int`` and adding a
:class:`Command` row. Every command accepts ``--virtual``: it then runs inside a fresh private
desktop that is torn down afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING

from deskhand import __version__, servecli
from deskhand import commands as cmds
from deskhand.core.errors import DeskhandError
from deskhand.desktop import VirtualDesktop, cleanup_stale, find_state, list_states, teardown
from deskhand.desktop._procs import MARKER_ENV
from deskhand.desktop.compositors import COMPOSITORS
from deskhand.desktop.registry import DesktopState

if TYPE_CHECKING:
    from deskhand.desktop.doctor import Check


class CliError(DeskhandError):
    """A usage problem the CLI reports as one line."""


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    #: False for commands that manage desktops themselves (no ``--virtual``).
    virtual: bool = True


# -- desktop ---------------------------------------------------------------------------------


_WAYLAND_HELP = "a Wayland desktop (headless sway, apps native on Wayland) instead of Xvfb and openbox"
_COMPOSITOR_HELP = (
    f"a Wayland desktop with this compositor ({', '.join(COMPOSITORS)}; implies --wayland; env DESKHAND_COMPOSITOR)"
)


def _compositor_default() -> str | None:
    return os.environ.get("DESKHAND_COMPOSITOR") or None


def _wayland_of(args: argparse.Namespace) -> tuple[bool, str | None]:
    """(Wayland?, the compositor named) from ``--wayland`` and ``--compositor``."""
    compositor = getattr(args, "compositor", None)
    return bool(getattr(args, "wayland", False)) or compositor is not None, compositor


def _exports(env: dict[str, str]) -> str:
    from deskhand.desktop._env import exports_text  # noqa: PLC0415

    return exports_text(env)


def _state_json(state: DesktopState) -> dict[str, object]:
    return {
        "id": state.id,
        "display": state.env.get("WAYLAND_DISPLAY", "") if state.session == "wayland" else f":{state.display}",
        "session": state.session,
        "compositor": state.compositor,
        "size": f"{state.width}x{state.height}x{state.depth}",
        "wm": state.wm,
        "env": state.env,
        "pids": {p.role: p.pid for p in state.processes},
        "detached": state.owner_pid is None,
        "stale": state.is_stale(),
    }


def _resolve(desktop_id: str | None) -> DesktopState:
    """The desktop named by ID, else by $DESKHAND_DESKTOP_ID, else the only one running."""
    wanted = desktop_id or os.environ.get(MARKER_ENV)
    if wanted:
        state = find_state(wanted)
        if state is None:
            raise CliError(f"no desktop with id {wanted!r} (see `deskhand desktop status`)")
        return state
    states = list_states()
    if not states:
        raise CliError("no desktop is running (start one with `deskhand desktop start`)")
    if len(states) > 1:
        raise CliError(f"{len(states)} desktops are running; name one of: {' '.join(s.id for s in states)}")
    return states[0]


def _desktop_start(args: argparse.Namespace) -> int:
    wayland, compositor = _wayland_of(args)
    desktop = VirtualDesktop(
        detached=True, size=args.size, wm=not args.no_wm, wayland=wayland, compositor=compositor
    ).start()
    if args.json:
        print(json.dumps({"id": desktop.id, "env": desktop.env, "timings": desktop.timings}))
    else:
        label = desktop.compositor.label if desktop.compositor else ""
        where = f"Wayland ({label}) {desktop.env['WAYLAND_DISPLAY']}" if wayland else f":{desktop.display}"
        print(f"# deskhand desktop {desktop.id} on {where}; stop: deskhand desktop stop {desktop.id}")
        print(_exports(desktop.env), end="")
    return 0


def _desktop_stop(args: argparse.Namespace) -> int:
    if args.stale:
        ended = cleanup_stale()
        print(f"stopped {len(ended)} stale desktop(s) {' '.join(ended)}".rstrip())
        return 0
    states = list_states() if args.all else [_resolve(args.id)]
    code = 0
    for state in states:
        left = teardown(state)
        if left:
            print(f"desktop {state.id}: pids {left} survived SIGKILL", file=sys.stderr)
            code = 1
        else:
            print(f"stopped {state.id}")
    return code


def _desktop_status(args: argparse.Namespace) -> int:
    if args.id is None and not os.environ.get(MARKER_ENV) and len(list_states()) != 1:
        listing = [_state_json(s) for s in list_states()]
        if args.json:
            print(json.dumps(listing, indent=1))
        else:
            for s in listing:
                print(f"{s['id']}  {s['display']}  {s['size']}  wm={s['wm']}  stale={s['stale']}")
            if not listing:
                print("no desktop is running")
        return 0
    state = _resolve(args.id)
    print(json.dumps(_state_json(state), indent=1) if args.json else _exports(state.env), end="\n" if args.json else "")
    return 0


def _run_inside(desktop: VirtualDesktop, cmd: list[str]) -> int:
    try:
        proc = subprocess.Popen(cmd, env=desktop.app_env())
    except FileNotFoundError as exc:
        raise CliError(f"command not found: {cmd[0]}") from exc
    try:
        code = proc.wait()
    except BaseException:
        proc.terminate()
        proc.wait()
        raise
    return 128 - code if code < 0 else code


def _desktop_run(args: argparse.Namespace) -> int:
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise CliError("desktop run needs a command: deskhand desktop run -- CMD [ARGS...]")
    wayland, compositor = _wayland_of(args)
    with VirtualDesktop(size=args.size, wm=not args.no_wm, wayland=wayland, compositor=compositor) as desktop:
        return _run_inside(desktop, cmd)


def _configure_desktop(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="{start,stop,status,run}")
    start = sub.add_parser("start", help="start a detached desktop and print its environment")
    run = sub.add_parser("run", help="start a desktop, run CMD inside it, stop it; exit with CMD's code")
    for q in (start, run):
        q.add_argument("--size", default="1920x1080x24", help="screen WxHxD (default 1920x1080x24)")
        q.add_argument("--no-wm", action="store_true", help="do not start the openbox window manager")
        q.add_argument("--wayland", action="store_true", help=_WAYLAND_HELP)
        q.add_argument("--compositor", metavar="NAME", default=_compositor_default(), help=_COMPOSITOR_HELP)
    start.add_argument("--json", action="store_true", help="print id and environment as JSON")
    start.set_defaults(action_fn=_desktop_start)
    run.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD [ARGS...]")
    run.set_defaults(action_fn=_desktop_run)
    stop = sub.add_parser("stop", help="stop a desktop (by id, the only one, --all or --stale)")
    stop.add_argument("id", nargs="?")
    stop.add_argument("--all", action="store_true", help="stop every desktop in the registry")
    stop.add_argument("--stale", action="store_true", help="stop desktops whose owner or X server died")
    stop.set_defaults(action_fn=_desktop_stop)
    status = sub.add_parser("status", help="print a desktop's environment as shell exports or JSON")
    status.add_argument("id", nargs="?")
    status.add_argument("--json", action="store_true")
    status.set_defaults(action_fn=_desktop_status)


def _cmd_desktop(args: argparse.Namespace) -> int:
    fn: Callable[[argparse.Namespace], int] = args.action_fn
    return fn(args)


# -- doctor ----------------------------------------------------------------------------------


def _configure_doctor(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _cmd_doctor(args: argparse.Namespace) -> int:
    from deskhand.backends.linux.wayland._doctor import is_wayland_session, wayland_checks  # noqa: PLC0415
    from deskhand.desktop.doctor import run_doctor  # noqa: PLC0415 - imports Xlib

    env = dict(os.environ)
    display = wayland_checks if is_wayland_session(env) else None  # a Wayland session has its own display checks
    report = run_doctor(env, extra=[_sandbox_check], display=display)
    print(json.dumps(report.to_json(), indent=1) if args.json else report.to_text())
    return 0 if report.ok else 1


def _sandbox_check() -> Check:
    """Which OS layers confine the js worker, read from a worker started for the check."""
    from deskhand.desktop.doctor import Check  # noqa: PLC0415 - imports Xlib
    from deskhand.kernel.process import FIX_CONFINEMENT, confinement_summary  # noqa: PLC0415 - starts a process

    ok, detail, data = confinement_summary()
    return Check("js_sandbox", ok, detail, None if ok else FIX_CONFINEMENT, data=data)


COMMANDS: list[Command] = [
    Command("desktop", "manage private virtual desktops", _configure_desktop, _cmd_desktop, virtual=False),
    Command("doctor", "report whether this desktop is ready for deskhand", _configure_doctor, _cmd_doctor),
    Command(
        "serve", "serve the MCP tools (js, js_reset, ...) over stdio or HTTP", cmds.configure_serve, cmds.cmd_serve
    ),
    Command("js", "run JavaScript cells through the js kernel and print the blocks", cmds.configure_js, cmds.cmd_js),
    Command("apps", "list running and installed apps", cmds.configure_apps, cmds.cmd_apps),
    Command(
        "state", "print an app's accessibility state (and save its screenshot)", cmds.configure_state, cmds.cmd_state
    ),
    Command(
        "trace", "show a recorded session trace (trace view DIR)", cmds.configure_trace, cmds.cmd_trace, virtual=False
    ),
    Command("guide", "print the bundled platform guidance", cmds.configure_guide, cmds.cmd_guide, virtual=False),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="deskhand", description="See and operate native desktop apps.")
    parser.add_argument("--version", action="version", version=f"deskhand {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{" + ",".join(c.name for c in COMMANDS) + "}")
    for command in COMMANDS:
        p = sub.add_parser(command.name, help=command.help, description=command.help)
        if command.virtual:
            from_env = command.name == "serve" and servecli.env_flag("--virtual")  # DESKHAND_VIRTUAL
            p.add_argument(
                "--virtual", action="store_true", default=from_env, help="run inside a fresh private desktop"
            )
            wayland = command.name == "serve" and servecli.env_flag("--wayland")  # DESKHAND_WAYLAND
            p.add_argument("--wayland", action="store_true", default=wayland, help=f"with --virtual: {_WAYLAND_HELP}")
            p.add_argument(
                "--compositor",
                metavar="NAME",
                default=_compositor_default() if command.name == "serve" else None,
                help=f"with --virtual: {_COMPOSITOR_HELP}",
            )
        command.configure(p)
        p.set_defaults(command_fn=command.run)
    return parser


@contextlib.contextmanager
def _maybe_virtual(enabled: bool, wayland: bool = False, compositor: str | None = None) -> Iterator[None]:
    """Inside a fresh desktop (X11, or Wayland with ``wayland`` and ``compositor``), with os.environ
    pointing at it, when ``enabled``."""
    if not enabled:
        yield
        return
    saved = dict(os.environ)
    desktop = VirtualDesktop(wayland=wayland, compositor=compositor)
    try:
        desktop.start()
    except DeskhandError as exc:
        raise servecli.DesktopDidNotStart(exc.message) from exc
    with desktop:
        os.environ.update(desktop.app_env())
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _raise_exit(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; return the exit code. Errors print one line to stderr."""
    args = build_parser().parse_args(argv)
    main_thread = threading.current_thread() is threading.main_thread()
    # On SIGTERM, unwind so that a desktop started here is torn down.
    previous = signal.signal(signal.SIGTERM, _raise_exit) if main_thread else None
    try:
        virtual = bool(getattr(args, "virtual", False))
        wayland, compositor = _wayland_of(args)
        if wayland and not virtual and args.command != "desktop":
            if getattr(args, "wayland", False) or compositor != _compositor_default():
                raise CliError(
                    "--wayland and --compositor go with --virtual: they make the fresh desktop a Wayland one"
                )
            compositor = None  # DESKHAND_COMPOSITOR without --virtual: the backend reads it itself
            wayland = False
        with _maybe_virtual(virtual, wayland=wayland, compositor=compositor):
            fn: Callable[[argparse.Namespace], int] = args.command_fn
            return fn(args)
    except servecli.DesktopDidNotStart as exc:
        print(f"deskhand: error: the desktop did not start: {exc.message}", file=sys.stderr)
        return servecli.EXIT_DESKTOP_FAILED
    except DeskhandError as exc:
        print(f"deskhand: error: {exc.message}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"deskhand: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
