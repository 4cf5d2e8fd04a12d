"""Discovery on Linux: which apps run, under every name they can be bound by.

Running apps are the processes on the AT-SPI registry and the owners of top-level X windows
(``x11.ownership.toplevels``: ``_NET_WM_PID``, else X-Resource), deskhand's own process excluded.
For each, ``found`` gathers from ``/proc``, the X server and the installed ``.desktop`` entries
what ``inventory.resolve`` matches a selector against: the display name, the app id, the
executable's and ``argv[0]``'s names, the AT-SPI application name, the window classes and titles.

The display name follows the app's windows: it is the name of the entry the topmost window's
class belongs to (LibreOffice's Start Center, then the Writer window that replaced it), read
again whenever the app is resolved, the quick proof of a pid included.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Final

from deskhand.backends.base import RunningApp, WindowEntry
from deskhand.backends.linux import inventory, procfs
from deskhand.backends.linux.atspi.connection import (
    ACCESSIBLE,
    PROPERTIES,
    ROOT_PATH,
    AtspiConnection,
    Call,
    Deadline,
    Failed,
)
from deskhand.backends.linux.x11 import ownership, windows
from deskhand.backends.linux.x11.connection import XConnection

#: Discovery asks each app for its name; a hung app must not stall ``list_apps``.
NAME_TIMEOUT_S: Final = 0.5


class Discovery:
    """The installed entries (read once), the running apps and their windows (read on every call)."""

    def __init__(self, x: XConnection, atspi: AtspiConnection) -> None:
        self.x = x
        self.atspi = atspi
        self._installed: list[inventory.DesktopApp] | None = None
        self._program_ids: dict[str, str] | None = None
        #: The last listing's processes by pid, for ``resolve``'s proof of a pid selector.
        self._by_pid: dict[int, inventory.Found] = {}
        #: Top-level window id -> its owner's pid, as the last listing and later proofs saw them.
        self._owners: dict[int, int] = {}

    def installed(self) -> list[inventory.DesktopApp]:
        if self._installed is None:
            self._installed = inventory.installed_apps()
        return self._installed

    def program_ids(self) -> dict[str, str]:
        """Executable → app id for ``procfs`` (``inventory.program_ids``)."""
        if self._program_ids is None:
            self._program_ids = inventory.program_ids(self.installed())
        return self._program_ids

    def found(self) -> list[inventory.Found]:
        """Running apps with every name they can be bound by, registry processes first."""
        deadline = Deadline(NAME_TIMEOUT_S)
        buses = self.atspi.apps(Deadline(2.0))
        bus_pids = self.atspi.pids(buses, Deadline(2.0))
        names = dict(zip(buses, self._app_names(buses, deadline), strict=True))
        pid_names: dict[int, str] = {}
        for bus, pid in bus_pids.items():
            name = names.get(bus)
            if name:
                pid_names.setdefault(pid, name)
        tops = ownership.toplevels(self.x)
        self._owners = {w.id: w.pid for w in tops}
        classes: dict[int, list[tuple[str, str]]] = {}
        titles: dict[int, set[str]] = {}
        for w in reversed(tops):  # topmost first
            classes.setdefault(w.pid, []).append(w.wm_class)
            titles.setdefault(w.pid, set()).add(w.title.lower())
        ids = self.program_ids()
        installed = self.installed()
        out: list[inventory.Found] = []
        for pid in dict.fromkeys([*bus_pids.values(), *(w.pid for w in tops)]):
            if pid == os.getpid():
                continue
            ident = procfs.read_identity(pid, ids)
            if ident is None:
                continue
            mine = classes.get(pid, [])
            name = inventory.display_name(installed, ident.app_id, mine) or pid_names.get(pid) or ident.app_id
            proc = inventory.RunningProcess(ident, name)
            argv0 = argv0_of(pid)
            known = inventory.names_of(proc, installed, mine)
            programs = procfs.java_names(pid, ident.executable)
            known.update(n.lower() for n in (Path(argv0).name, pid_names.get(pid, ""), *programs) if n)
            out.append(
                inventory.Found(
                    proc, frozenset(known), frozenset(titles.get(pid, set()) - {""}), argv0, tuple(mine), programs
                )
            )
        self._by_pid = {f.process.identity.pid: f for f in out}
        return out

    def resolve(self, selector: str) -> RunningApp:
        """``inventory.resolve`` over the running apps.

        A pid selector of a process the last listing found is proven by its identity alone: when
        ``/proc`` shows the same pid, start time, executable and app id, it is the same process the
        listing would find again, so the listing (a dozen D-Bus and X round trips, the cost of
        every action a ``js`` cell sends by pid) is skipped. Anything else lists again.
        """
        wanted = selector.strip()
        if wanted.isascii() and wanted.isdigit():
            hit = self._by_pid.get(int(wanted))
            if hit is not None and procfs.read_identity(hit.process.identity.pid, self.program_ids()) == (
                hit.process.identity
            ):
                return inventory.resolve(wanted, [self._renamed(hit)])
        return inventory.resolve(selector, self.found())

    def _renamed(self, hit: inventory.Found) -> inventory.Found:
        """``hit`` with the display name of its windows now (module docstring): the client list,
        the owners of windows the last look did not know, and the classes of the app's own."""
        pid = hit.process.identity.pid
        with self.x.lock:
            ids = ownership.client_ids(self.x)
            new = [w for w in ids if w not in self._owners]
            if new:
                self._owners.update(ownership.window_pids(self.x, new))
            live = set(ids)
            self._owners = {w: p for w, p in self._owners.items() if w in live}
            mine = tuple(ownership.wm_class(self.x, w) for w in reversed(ids) if self._owners.get(w) == pid)
        if mine == hit.classes:
            return hit
        ident = hit.process.identity
        name = inventory.display_name(self.installed(), ident.app_id, mine) or hit.process.display_name
        proc = inventory.RunningProcess(ident, name)
        names = hit.names | inventory.names_of(proc, self.installed(), mine)
        self._by_pid[pid] = found = dataclasses.replace(hit, process=proc, names=names, classes=mine)
        return found

    def window_entries(self, pid: int | None = None) -> list[WindowEntry]:
        """Every top-level X11 window with a known owner (of ``pid`` when given), bottom to top.

        ``app`` is the owner's app id as ``/proc`` proves it now (empty when it cannot be read);
        ``is_key`` marks the window ``get_app_state`` observes and coordinate actions map into.
        """
        ids = self.program_ids()
        with self.x.lock:
            clients = ownership.client_ids(self.x)
            owners = ownership.window_pids(self.x, clients)
            found = [
                w
                for i, wid in enumerate(clients)
                if (owner := owners.get(wid)) is not None and (pid is None or owner == pid)
                if (w := windows.info(self.x, wid, stacking=i, pid=owner)) is not None
            ]
        apps: dict[int, str] = {}
        keys: dict[int, int | None] = {}
        for w in found:
            if w.pid not in apps:
                identity = procfs.read_identity(w.pid, ids)
                apps[w.pid] = identity.app_id if identity is not None else ""
                key = windows.key_window(self.x, w.pid, [v for v in found if v.pid == w.pid])
                keys[w.pid] = key.id if key is not None else None
        return [
            WindowEntry(
                window_id=w.id,
                pid=w.pid,
                app=apps[w.pid],
                title=w.title,
                bounds=(w.frame.x, w.frame.y, w.frame.width, w.frame.height),
                z_index=w.stacking,
                is_on_screen=w.mapped,
                is_key=keys[w.pid] == w.id,
            )
            for w in found
        ]

    def _app_names(self, buses: list[str], deadline: Deadline) -> list[str | None]:
        replies = self.atspi.pipeline(
            [Call(b, ROOT_PATH, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")) for b in buses], deadline
        )
        return [None if isinstance(r, Failed) else str(r[0][1]) or None for r in replies]


def argv0_of(pid: int) -> str:
    """The process's ``argv[0]``; Chromium rewrites its command line into one string holding
    the arguments too, so a lone argument is cut at its first space."""
    args = procfs.cmdline(pid)
    if len(args) == 1:
        return args[0].split(" ", 1)[0]
    return args[0] if args else ""
