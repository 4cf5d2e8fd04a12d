"""``deskhand serve``: its options (each also a ``DESKHAND_*`` environment variable), the launch of
apps, and a clean, prompt end on SIGTERM or SIGINT (exit 0, the desktop and the apps gone).

An option given on the command line wins over its variable. Flags take ``1/true/yes/on`` or
``0/false/no/off``. ``DESKHAND_LAUNCH`` holds one command per line.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from deskhand.core.errors import DeskhandError

if TYPE_CHECKING:
    from deskhand.server.service import Service

#: The exit code of a command whose virtual desktop, or a ``--launch`` app in it, did not start; a
#: Kubernetes ``podFailurePolicy`` tells it from a failed task (1) and from a usage error (2).
EXIT_DESKTOP_FAILED: Final = 3

_TRUE: Final = ("1", "true", "yes", "on")
_FALSE: Final = ("", "0", "false", "no", "off")
#: A serve option's environment variable: DESKHAND_ and the option's name in capitals.
ENV_PREFIX: Final = "DESKHAND_"


def env_name(option: str) -> str:
    return ENV_PREFIX + option.lstrip("-").replace("-", "_").upper()


def _env(option: str) -> str | None:
    return os.environ.get(env_name(option))


def env_flag(option: str) -> bool:
    """The flag's variable; an unknown value reads as off here and is refused by ``cmd_serve``."""
    return (_env(option) or "").strip().lower() in _TRUE


def _check_env_flags(parser_flags: tuple[str, ...]) -> None:
    for option in parser_flags:
        raw = (_env(option) or "").strip().lower()
        if raw not in _TRUE and raw not in _FALSE:
            raise DeskhandError(f"{env_name(option)}={raw!r} is not a flag value (1/0, true/false, yes/no, on/off)")


def _env_value(option: str, default: object) -> object:
    """The variable's text (argparse converts a string default with the option's type, so a
    bad value is a usage error of `serve` alone), else the default."""
    raw = _env(option)
    return default if raw is None or raw == "" else raw


def _caps(raw: str) -> frozenset[str]:
    from deskhand.server.service import CAPS  # noqa: PLC0415

    caps = frozenset(c.strip() for c in raw.split(",") if c.strip())
    if not caps or not caps <= set(CAPS):
        raise argparse.ArgumentTypeError(f"--caps takes a comma-separated list of {', '.join(CAPS)}")
    return caps


def add_trace_options(p: argparse.ArgumentParser) -> None:
    """``--trace DIR``, ``--trace-redact`` and ``--trace-max-mb`` (serve and js)."""
    p.add_argument(
        "--trace",
        type=Path,
        metavar="DIR",
        default=_env_value("--trace", None),
        help="record the session (cells, calls, screenshots) into DIR",
    )
    p.add_argument(
        "--trace-redact",
        action="store_true",
        default=env_flag("--trace-redact"),
        help="replace typed and pasted text in the trace",
    )
    p.add_argument(
        "--trace-max-mb",
        type=float,
        default=_env_value("--trace-max-mb", 512.0),
        help="stop recording at this size (default 512)",
    )


def configure_serve(p: argparse.ArgumentParser) -> None:
    from deskhand.server.options import DEFAULT_IMAGE_MAX_EDGE, IMAGE_POLICIES, LOG_LEVELS  # noqa: PLC0415

    p.add_argument("--transport", choices=("stdio", "http"), default=_env_value("--transport", "stdio"))
    p.add_argument("--host", default=_env_value("--host", "127.0.0.1"), help="HTTP address (loopback by default)")
    p.add_argument("--port", type=int, default=_env_value("--port", 8765), help="HTTP port (default 8765)")
    p.add_argument(
        "--token",
        default=None,
        help="bearer token for HTTP clients (visible in ps: prefer DESKHAND_TOKEN or --token-file); "
        "without one, loopback gets a generated token in a 0600 file whose path is printed",
    )
    p.add_argument(
        "--token-file", default=_env_value("--token-file", None), help="read the bearer token from this file"
    )
    p.add_argument(
        "--caps",
        type=_caps,
        default=_env_value("--caps", None),
        help="tool groups to serve, comma-separated: js (js, js_reset; the default), semantic (the semantic "
        "tools and sequence)",
    )
    p.add_argument(
        "--semantic-tools",
        action="store_true",
        default=env_flag("--semantic-tools"),
        help="also advertise the semantic tools and sequence (same as --caps js,semantic)",
    )
    p.add_argument(
        "--image-responses",
        choices=IMAGE_POLICIES,
        default=_env_value("--image-responses", "allow"),
        help="allow images (default), omit them, or scale those larger than --image-max-edge",
    )
    p.add_argument(
        "--image-max-edge",
        type=int,
        default=_env_value("--image-max-edge", DEFAULT_IMAGE_MAX_EDGE),
        help=f"the long-edge limit of --image-responses scale (default {DEFAULT_IMAGE_MAX_EDGE})",
    )
    p.add_argument(
        "--log-level",
        choices=tuple(LOG_LEVELS),
        default=_env_value("--log-level", "warning"),
        help="level of deskhand's log on stderr and of the log messages sent to clients (default warning)",
    )
    p.add_argument(
        "--share-session",
        action="store_true",
        default=env_flag("--share-session"),
        help="HTTP: every client uses one JavaScript session (default: each MCP session its own)",
    )
    p.add_argument(
        "--max-sessions",
        type=int,
        default=_env_value("--max-sessions", 16),
        help="HTTP: open sessions at most; a further one gets 503 saying so (default 16)",
    )
    p.add_argument(
        "--exit-after-session",
        action="store_true",
        default=env_flag("--exit-after-session"),
        help="HTTP: exit (code 0) once the first session has ended, e.g. one evaluation per pod",
    )
    p.add_argument(
        "--session-idle-timeout",
        type=float,
        default=_env_value("--session-idle-timeout", 1800.0),
        help="HTTP: close a session idle this many seconds (default 1800)",
    )
    launches = [line.strip() for line in (_env("--launch") or "").splitlines() if line.strip()]
    p.add_argument(
        "--launch",
        action="append",
        default=launches,
        metavar="CMD",
        help="start this app first (repeatable; e.g. --virtual --launch mousepad) and wait for its window",
    )
    p.add_argument(
        "--grant-system-keys",
        action="store_true",
        default=env_flag("--grant-system-keys"),
        help="allow system key combinations (ctrl+alt+Delete, alt+F4, super+l, ...) for this session; "
        "only the user can give this grant, never a tool call",
    )
    add_trace_options(p)


#: The serve options that are flags.
FLAGS: Final = (
    "--semantic-tools",
    "--share-session",
    "--grant-system-keys",
    "--virtual",
    "--trace-redact",
    "--exit-after-session",
)


class DesktopDidNotStart(DeskhandError):  # noqa: N818 - "did not start" is the error
    """The virtual desktop or an app launched into it did not come up (exit code 3)."""


class _Stop(BaseException):
    """SIGTERM or SIGINT while serving: unwind and exit 0."""


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    def stop(_signum: int, _frame: Any) -> None:
        raise _Stop

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _caps_of(args: argparse.Namespace) -> frozenset[str]:
    caps: frozenset[str] = args.caps or frozenset({"js"})
    return caps | {"semantic"} if args.semantic_tools else caps


def cmd_serve(args: argparse.Namespace) -> int:
    from deskhand.runtime import open_service  # noqa: PLC0415
    from deskhand.server.httptoken import resolve_token  # noqa: PLC0415
    from deskhand.server.options import ImagePolicy, ServerOptions  # noqa: PLC0415

    _check_env_flags(FLAGS)
    if args.transport not in ("stdio", "http"):
        raise DeskhandError(f"--transport must be stdio or http, not {args.transport!r}")
    if args.image_responses == "scale":
        from deskhand.server.mcpface import scale_unavailable  # noqa: PLC0415

        if (why := scale_unavailable()) is not None:
            raise DeskhandError(why)
    options = ServerOptions(
        images=ImagePolicy(args.image_responses, args.image_max_edge),
        log_level=args.log_level,
        share_session=args.share_session,
    )
    token = None
    if args.transport == "http":  # refused here, before anything is launched or printed
        token = resolve_token(
            host=args.host, port=args.port, argv_token=args.token, token_file=args.token_file, env=os.environ
        )
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("deskhand: %(levelname)s %(name)s: %(message)s"))
    stderr.setLevel(_py_level(args.log_level))
    logging.getLogger("deskhand").addHandler(stderr)
    logging.getLogger("deskhand").setLevel(_py_level(args.log_level))
    apps: list[subprocess.Popen[bytes]] = []
    try:
        with _stop_on_signals():
            try:
                for cmd in args.launch:  # one at a time inside the try: a failed launch ends the earlier apps
                    argv = shlex.split(cmd)
                    check_launch(argv)  # a usage error exits 1: a retry would fail the same way
                    try:
                        apps.append(launch_app(argv))
                    except DeskhandError as exc:
                        raise DesktopDidNotStart(exc.message) from exc
                service = open_service(
                    caps=_caps_of(args),
                    system_keys_granted=args.grant_system_keys,
                    trace=args.trace,
                    trace_redact=args.trace_redact,
                    trace_max_bytes=int(args.trace_max_mb * 2**20),
                )
                serve(args, service, options, token)
            except _Stop:
                pass
    finally:
        logging.getLogger("deskhand").removeHandler(stderr)
        if token is not None:
            token.discard()
        if apps:  # each app runs in its own session: end its whole process group, then reap it
            from deskhand.desktop._procs import terminate  # noqa: PLC0415

            terminate([app.pid for app in apps], None)
            for app in apps:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    app.wait(timeout=5)
    return 0


def _py_level(name: str) -> int:
    from deskhand.server.options import LOG_LEVELS  # noqa: PLC0415

    return LOG_LEVELS[name]


def check_launch(argv: list[str]) -> None:
    """Refuse a ``--launch`` that cannot work here: no command, or no X display (nor a sway
    session, whose IPC says when the app's window is there)."""
    if not argv:
        raise DeskhandError("--launch needs a command")
    if not (os.environ.get("DISPLAY") or _sway_session()):
        raise DeskhandError("--launch needs an X display: set DISPLAY, or add --virtual")


def _sway_session() -> bool:
    return bool(os.environ.get("WAYLAND_DISPLAY") and os.environ.get("SWAYSOCK"))


def launch_app(argv: list[str], timeout_s: float = 20.0) -> subprocess.Popen[bytes]:
    """Start an app on this process's desktop with toolkit accessibility on; wait for its window.

    Its output goes to /dev/null: on the stdio transport, standard output carries MCP.
    """
    from deskhand.desktop.virtual import a11y_env, wait_for_window  # noqa: PLC0415

    check_launch(argv)
    display = os.environ.get("DISPLAY")
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
        if display:
            wait_for_window(display, proc.pid, timeout_s)
        else:  # a sway session (``check_launch``): the app's view in sway's tree
            from deskhand.desktop._sway import wait_for_view  # noqa: PLC0415

            wait_for_view(Path(os.environ["SWAYSOCK"]), proc.pid, timeout_s)
    except BaseException as err:  # no X display, Ctrl-C, ...: the app must not outlive the launch
        proc.kill()
        proc.wait()
        if isinstance(err, TimeoutError):
            raise DeskhandError(f"--launch: {argv[0]} showed no window within {timeout_s:.0f} s") from err
        raise
    return proc


def serve(args: argparse.Namespace, service: Service, options: Any, token: Any) -> None:
    import anyio  # noqa: PLC0415

    from deskhand.server import httpserve, mcp  # noqa: PLC0415

    if args.transport == "stdio":
        anyio.run(mcp.serve_stdio, service, options)
        return
    if token.path is not None:
        print(
            f"deskhand: bearer token in {token.path} (mode 0600); clients send `Authorization: Bearer <token>`",
            file=sys.stderr,
        )
    print(f"deskhand: serving MCP on http://{args.host}:{args.port}/mcp", file=sys.stderr, flush=True)
    anyio.run(
        lambda: httpserve.serve_http(
            service,
            host=args.host,
            port=args.port,
            token=token.value,
            options=options,
            max_sessions=args.max_sessions,
            idle_timeout_s=args.session_idle_timeout,
            exit_after_session=args.exit_after_session,
        )
    )
