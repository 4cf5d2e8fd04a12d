"""The Wayland desktop's compositor: a private headless sway (wlroots, pixman renderer, no input devices).

sway refuses to run as root. When deskhand runs as root, sway runs as an unprivileged system user:
``$DESKHAND_WAYLAND_USER`` if set, else ``deskhand``, created on first use as a system account with
no home and no login shell (``useradd --system``). Its runtime dir is a fresh 0700 directory that the
user owns (``/tmp/deskhand-wayland-<id>-*``), holding the Wayland socket, sway's IPC socket and the
generated configuration; root's clients reach it through ``WAYLAND_DISPLAY`` as an absolute path.
As any other user, sway runs as that user in the same kind of directory.

The configuration has no bar, no borders, no XWayland (apps run natively: ``GDK_BACKEND=wayland``,
``QT_QPA_PLATFORM=wayland``) and floats every window at the top left corner, so windows keep the
rects deskhand gives them. Standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import socket
import struct
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from deskhand.core.errors import BackendUnavailable
from deskhand.desktop._buses import Spawn
from deskhand.desktop._started import Started, own_env, poll_ready, private_dir, wait_for_window

USER_ENV: Final = "DESKHAND_WAYLAND_USER"
DEFAULT_USER: Final = "deskhand"
IPC_SOCKET: Final = "sway-ipc.sock"
FIX_SWAY: Final = "install sway 1.7 or newer: apt-get install --no-install-recommends sway"
FIX_USER: Final = (
    "sway refuses to run as root: name an unprivileged user in DESKHAND_WAYLAND_USER, or let deskhand "
    "create the system user 'deskhand' (useradd --system)"
)
_IPC_HEADER: Final = struct.Struct("=6sII")
_IPC_GET_OUTPUTS: Final = 3
_IPC_GET_TREE: Final = 4


@dataclass(frozen=True, slots=True)
class SwayUser:
    name: str
    uid: int
    gid: int


def compositor_user() -> SwayUser:
    """The user sway runs as: this process's own unless it is root (see the module docstring)."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.geteuid())
        return SwayUser(me.pw_name, me.pw_uid, me.pw_gid)
    wanted = os.environ.get(USER_ENV)
    name = wanted or DEFAULT_USER
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        if wanted:
            raise BackendUnavailable(f"desktop: no user {name!r} (DESKHAND_WAYLAND_USER); {FIX_USER}") from None
        entry = _create_user(name)
    if entry.pw_uid == 0:
        raise BackendUnavailable(f"desktop: user {name!r} is root; {FIX_USER}")
    return SwayUser(entry.pw_name, entry.pw_uid, entry.pw_gid)


def _create_user(name: str) -> pwd.struct_passwd:
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    argv = [useradd, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
            "--shell", "/usr/sbin/nologin", "--comment", "deskhand Wayland compositor", name]  # fmt: skip
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BackendUnavailable(f"desktop: cannot create the user {name!r}: {exc}; {FIX_USER}") from exc
    try:  # a parallel start may have created it first: useradd then fails, the entry exists
        return pwd.getpwnam(name)
    except KeyError:
        raise BackendUnavailable(
            f"desktop: useradd {name} failed: {done.stderr.strip() or done.returncode}; {FIX_USER}"
        ) from None


def write_config(runtime_dir: Path, width: int, height: int, user: SwayUser) -> Path:
    path = runtime_dir / "config"
    path.write_text(
        "# deskhand's headless sway: no bar, no borders, no XWayland, every window floating\n"
        "xwayland disable\n"
        "default_border none\n"
        "default_floating_border none\n"
        "focus_follows_mouse no\n"
        "focus_on_window_activation focus\n"
        f"output HEADLESS-1 mode {width}x{height} position 0 0\n"
        'for_window [app_id=".*"] floating enable, move position 0 0\n'
    )
    if (user.uid, user.gid) != (os.geteuid(), os.getegid()):
        os.chown(path, user.uid, user.gid)
    return path


def sway_argv(user: SwayUser, config: Path) -> list[str]:
    """sway's command line, through setpriv(1) when it must drop to ``user``."""
    argv = ["sway", "--config", str(config)]
    if user.uid == os.geteuid():
        return argv
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    return [setpriv, f"--reuid={user.uid}", f"--regid={user.gid}", "--clear-groups", "--", *argv]


def sway_env(runtime_dir: Path, desktop_id: str, base: dict[str, str]) -> dict[str, str]:
    env = own_env(base, desktop_id)
    env.update(
        {
            "XDG_RUNTIME_DIR": str(runtime_dir),
            "SWAYSOCK": str(runtime_dir / IPC_SOCKET),
            "WLR_BACKENDS": "headless",
            "WLR_RENDERER": "pixman",
            "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_HEADLESS_OUTPUTS": "1",
        }
    )
    return env


def wayland_socket(runtime_dir: Path) -> Path | None:
    found = sorted(p for p in runtime_dir.glob("wayland-*") if not p.name.endswith(".lock"))
    return found[0] if found else None


def wait_ready(
    runtime_dir: Path, width: int, height: int, *, alive: Callable[[], bool], deadline: float, log: Path
) -> Path:
    """Poll until sway listens on both sockets and its output has the asked size; the Wayland socket."""

    def ready() -> Path | None:
        display = wayland_socket(runtime_dir)
        return display if display is not None and _output_size(runtime_dir / IPC_SOCKET) == (width, height) else None

    return poll_ready(
        ready, alive=alive, deadline=deadline, failure=f"desktop: sway did not start ({FIX_SWAY})", log=log, step_s=0.01
    )


def _recv(sock: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _ipc_call(path: Path, kind: int) -> Any:
    """One i3-ipc request to sway's socket; its JSON answer, or None while sway is not answering."""
    if not path.exists():
        return None
    with (
        contextlib.suppress(OSError, ValueError, struct.error),
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock,
    ):
        sock.settimeout(1.0)
        sock.connect(str(path))
        sock.sendall(_IPC_HEADER.pack(b"i3-ipc", 0, kind))
        header = _recv(sock, _IPC_HEADER.size)
        if header is None:
            return None
        _magic, length, _kind = _IPC_HEADER.unpack(header)
        body = _recv(sock, length)
        return None if body is None else json.loads(body)
    return None


def _output_size(path: Path) -> tuple[int, int] | None:
    """The first active output's size from sway's IPC, or None while it is not answering."""
    outputs = _ipc_call(path, _IPC_GET_OUTPUTS)
    active = [o for o in outputs or () if o.get("active")]
    return (int(active[0]["rect"]["width"]), int(active[0]["rect"]["height"])) if active else None


def view_pids(path: Path) -> set[int]:
    """The pids that have a window in sway's tree now (empty while sway is not answering)."""
    found: set[int] = set()
    stack = [_ipc_call(path, _IPC_GET_TREE) or {}]
    while stack:
        node = stack.pop()
        if node.get("pid") is not None and node.get("type") in ("con", "floating_con"):
            found.add(int(node["pid"]))
        stack.extend(node.get("nodes", ()))
        stack.extend(node.get("floating_nodes", ()))
    return found


def wait_for_view(path: Path, pid: int, timeout_s: float) -> int:
    """Poll sway's tree until ``pid`` has a window; the pid (an app is on the bus before it maps)."""
    return wait_for_window(lambda: view_pids(path), pid, timeout_s, on="sway")


def start(
    spawn: Spawn, desktop_id: str, size: tuple[int, int], base_env: dict[str, str], *, log: Path, deadline: float
) -> Started:
    """Start sway for desktop ``desktop_id``, logging to ``log`` (its runtime dir goes again if it fails).
    Its runtime dir is a fresh 0700 directory owned by the user sway runs as (module docstring)."""
    user = compositor_user()
    with private_dir(f"deskhand-wayland-{desktop_id}-") as runtime_dir:
        if (user.uid, user.gid) != (os.geteuid(), os.getegid()):
            os.chown(runtime_dir, user.uid, user.gid)
        config = write_config(runtime_dir, size[0], size[1], user)
        proc = spawn("sway", sway_argv(user, config), env=sway_env(runtime_dir, desktop_id, base_env))
        display = wait_ready(
            runtime_dir, size[0], size[1], alive=lambda: proc.poll() is None, deadline=deadline, log=log
        )
    return Started(proc, runtime_dir, display, {"SWAYSOCK": str(runtime_dir / IPC_SOCKET)})
