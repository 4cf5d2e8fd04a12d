"""The registry of running virtual desktops: one JSON state file per desktop, and their teardown.

The registry lives in ``$DESKHAND_DESKTOPS_DIR``, else ``/tmp/deskhand-desktops-<uid>`` (mode 0700).
Every process that can end a desktop (its owner, the owner's watchdog, ``deskhand desktop stop``, a
stale sweep) reads the same state, so a desktop whose owner crashed can always be found and ended.
Standard library only (the watchdog imports it).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from deskhand.desktop import _procs, _xclients

#: The display server's process role: Xvfb, or the Wayland compositor (``compositors``: its name).
_SERVER_ROLES = ("xvfb", "sway", "kwin", "gnome")


def registry_dir() -> Path:
    """The directory holding one ``<id>.json`` per desktop and its private runtime dir ``<id>/``.

    Deliberately independent of ``XDG_RUNTIME_DIR``: a desktop gives its clients a private one,
    and they must still find the same registry.
    """
    explicit = os.environ.get("DESKHAND_DESKTOPS_DIR")
    base = Path(explicit) if explicit else Path(f"/tmp/deskhand-desktops-{os.getuid()}")  # noqa: S108
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    if base.stat().st_uid != os.getuid():
        raise PermissionError(f"desktop registry {base} belongs to another user")
    return base


@dataclass(slots=True)
class ProcessRecord:
    """One started process: its role, pid (= its process group) and start time."""

    role: str
    pid: int
    ticks: int | None


@dataclass(slots=True)
class DesktopState:
    """What is persisted about a running desktop."""

    id: str
    display: int
    width: int
    height: int
    depth: int
    wm: bool
    env: dict[str, str]
    runtime_dir: str
    #: pid and start ticks of the owning process; None for a detached desktop.
    owner_pid: int | None = None
    owner_ticks: int | None = None
    processes: list[ProcessRecord] = field(default_factory=list)
    created_at: float = 0.0
    #: "x11" (Xvfb; ``display`` is its number) or "wayland" (a compositor; ``display`` is 0).
    session: str = "x11"
    #: the Wayland compositor's own runtime dir (owned by the user it runs as), removed on teardown.
    compositor_dir: str | None = None
    #: the Wayland compositor's name (``compositors.COMPOSITORS``); None on X11.
    compositor: str | None = None

    @property
    def path(self) -> Path:
        return registry_dir() / f"{self.id}.json"

    def server_pid(self) -> int | None:
        """The display server's pid: Xvfb, or the Wayland compositor."""
        return next((p.pid for p in self.processes if p.role in _SERVER_ROLES), None)

    def save(self) -> None:
        """Write atomically (write to a temp file, then rename)."""
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1))
        tmp.replace(self.path)

    @classmethod
    def load(cls, path: Path) -> DesktopState:
        raw = json.loads(path.read_text())
        raw["processes"] = [ProcessRecord(**p) for p in raw.get("processes", [])]
        return cls(**raw)

    def is_stale(self) -> bool:
        """True when the owner died (embedded desktop) or the display server is gone."""
        if self.owner_pid is not None and not _procs.alive(self.owner_pid, self.owner_ticks):
            return True
        server = next((p for p in self.processes if p.role in _SERVER_ROLES), None)
        return server is None or not _procs.alive(server.pid, server.ticks)


def list_states() -> list[DesktopState]:
    """Every desktop in the registry, oldest first (unreadable files are skipped)."""
    out: list[DesktopState] = []
    for path in registry_dir().glob("*.json"):
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            out.append(DesktopState.load(path))
    return sorted(out, key=lambda s: s.created_at)


def find_state(desktop_id: str) -> DesktopState | None:
    path = registry_dir() / f"{desktop_id}.json"
    try:
        return DesktopState.load(path)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def teardown(state: DesktopState, *, grace_s: float = 2.0) -> list[int]:
    """End every process of ``state``, remove its X lock, runtime dir and state file.

    Idempotent: processes are matched by pid *and* start time, so a reused pid is never hit.
    A group whose leader is already gone (killed by a process manager) is still ended: while any
    member lives, the kernel hands that number to no new process, so the members are ours.
    Returns the pids that survived SIGKILL (normally empty).
    """
    groups = [p.pid for p in reversed(state.processes) if _procs.start_ticks(p.pid) in (None, p.ticks)]
    server = state.server_pid()
    # The X server's own clients: apps whose environment no longer shows the marker (Chromium's).
    clients = (
        []
        if server is None or state.session != "x11" or not _procs.alive(server)
        else _xclients.client_pids(state.env.get("DISPLAY", f":{state.display}"), state.env.get("XAUTHORITY"))
    )
    left = _procs.terminate(groups, state.id, also=[pid for pid in clients if pid != server], grace_s=grace_s)
    if server is not None and state.session == "x11":
        _procs.remove_x_lock(state.display, server)
    shutil.rmtree(state.runtime_dir, ignore_errors=True)
    if state.compositor_dir:
        shutil.rmtree(state.compositor_dir, ignore_errors=True)
    state.path.unlink(missing_ok=True)
    return left


def cleanup_stale() -> list[str]:
    """Tear down every desktop whose owner or X server died; return their ids.

    Also removes the X authority files of owner processes that are gone (``_xauth``).
    """
    ended: list[str] = []
    for state in list_states():
        if state.is_stale():
            teardown(state)
            ended.append(state.id)
    for path in registry_dir().glob("xauth-*"):
        pid = path.name.removeprefix("xauth-")
        if pid.isdigit() and not _procs.alive(int(pid)):
            path.unlink(missing_ok=True)
    return ended
