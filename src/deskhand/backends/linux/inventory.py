"""The app inventory on Linux: running apps, installed ``.desktop`` apps, selector resolution.

Running apps are the processes on the AT-SPI registry plus the owners of top-level X windows
(``_NET_WM_PID``, else X-Resource; deskhand's own process excluded), one entry per app id.
Installed apps are the visible ``Type=Application`` entries under ``$XDG_DATA_HOME`` and
``$XDG_DATA_DIRS`` (``applications/``), earlier directories shadowing later ones.

Names a user knows, and how they reach a process (``resolve``):

* a pid (ASCII digits only);
* a path: the process's executable (or its real path), its ``argv[0]``, or a wrapper script that
  runs it (``/usr/bin/chromium`` runs ``/usr/lib/chromium/chromium``: a ``#!`` script named ``B``
  wraps an executable named ``B``, ``B.bin`` or ``B-bin`` that its text names, see ``wrapped_names``);
* a name, case-insensitive: the listed display name, the app id, the executable's and
  ``argv[0]``'s names, the ``WM_CLASS`` instance and class of its windows, and the id and ``Name``
  of every ``.desktop`` entry that leads to it (its ``Exec`` command's real path is the process's
  executable, or a wrapper of it, or its ``StartupWMClass`` or id is a window's class:
  "LibreOffice Writer" → ``soffice.bin``);
* a window title (exact, case-insensitive), tried last.

The first of these kinds that matches decides; several processes there are ``ambiguous_target``.

An app's id is the entry's id when exactly one entry leads to its executable; when several do
(LibreOffice's Writer, Calc, ... all run ``libreoffice``), the one started without options
(``program_ids``). Its display
name is the ``Name`` of the entry matching its topmost window's class, else of its id's entry.

"Recently used" on Linux: the freedesktop ``recently-used.xbel`` file (GTK's recent-files list,
``$XDG_DATA_HOME/recently-used.xbel``) records, per file, which applications opened it, when
(``modified``) and how often (``count``). An app's ``lastUsedDate`` is the latest of those dates
and its ``useCount`` the sum of its counts, matched by application name or by the command of
its ``.desktop`` entry. ``listApps`` lists the running apps, then the installed apps used since
the start of the local day 14 days ago (native-contract.md 6.14), most recent first; apps that
never opened a file there are listed only while they run.

Discovery never authorizes: denied apps (terminals, ...) are listed like any other.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Final

from deskhand.backends.base import AppEntry, RunningApp
from deskhand.backends.inventory import RunningProcess, Usage, entry, running_entries
from deskhand.backends.linux import procfs
from deskhand.core.errors import ArgumentError, NativeError

__all__ = [
    "DesktopApp",
    "Found",
    "RunningProcess",
    "Usage",
    "installed_apps",
    "merge",
    "program_ids",
    "recent_usage",
    "resolve",
]

#: ``listApps`` lists installed apps used since the start of the local day this many days ago.
RECENT_DAYS: Final = 14
#: Wrapper scripts larger than this are not read (a script that wraps a binary is small).
MAX_WRAPPER_BYTES: Final = 256 * 1024

_BOOKMARK_NS = "{http://www.freedesktop.org/standards/desktop-bookmarks}"


@dataclass(frozen=True, slots=True)
class DesktopApp:
    """One installed application from a ``.desktop`` entry."""

    id: str  # the desktop file id without ".desktop", e.g. "org.xfce.mousepad"
    name: str
    command: str  # first word of Exec, e.g. "mousepad"
    executable: str | None  # its real path when found on PATH
    wm_class: str = ""  # StartupWMClass
    #: Executable names its command runs when it is a wrapper script (``wrapped_names``).
    wrapped: tuple[str, ...] = ()
    #: ``Exec`` passes no options, only field codes such as ``%U`` (the app's main entry).
    plain: bool = True


@dataclass(frozen=True, slots=True)
class Found:
    """A running process with every name it can be bound by (see the module docstring)."""

    process: RunningProcess
    names: frozenset[str] = frozenset()  # lowercase
    titles: frozenset[str] = frozenset()  # lowercase window titles
    argv0: str = ""
    #: ``WM_CLASS`` (instance, class) of its windows, topmost first.
    classes: tuple[tuple[str, str], ...] = field(default=())
    #: The program an interpreter runs, by the names a wrapper script uses (``procfs.java_names``).
    programs: tuple[str, ...] = ()


def data_dirs() -> list[Path]:
    home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local/share")
    dirs = os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    return [Path(home), *(Path(d) for d in dirs.split(":") if d)]


def installed_apps(dirs: Iterable[Path] | None = None) -> list[DesktopApp]:
    """Visible applications from ``.desktop`` files; an id found earlier shadows later ones."""
    seen: dict[str, DesktopApp | None] = {}
    for base in dirs if dirs is not None else data_dirs():
        root = base / "applications"
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.desktop")):
            app_id = str(path.relative_to(root)).replace("/", "-").removesuffix(".desktop")
            if app_id not in seen:
                seen[app_id] = _parse_desktop(app_id, path)
    return [app for app in seen.values() if app is not None]


def _parse_desktop(app_id: str, path: Path) -> DesktopApp | None:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    fields: dict[str, str] = {}
    in_entry = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            in_entry = line == "[Desktop Entry]"
        elif in_entry and "=" in line:
            key, _, value = line.partition("=")
            fields.setdefault(key.strip(), value.strip())
    if fields.get("Type") != "Application" or "true" in (fields.get("NoDisplay"), fields.get("Hidden")):
        return None
    try:
        words = shlex.split(fields.get("Exec", ""))
    except ValueError:
        words = []
    while words and (words[0] == "env" or "=" in words[0]):
        words = words[1:]
    command = words[0] if words else ""
    plain = all(w.startswith("%") for w in words[1:])
    found = shutil.which(command) if command else None
    executable = str(Path(found).resolve()) if found else None
    return DesktopApp(
        app_id,
        fields.get("Name") or app_id,
        Path(command).name,
        executable,
        fields.get("StartupWMClass", ""),
        wrapped_names(executable) if executable else (),
        plain,
    )


#: What a wrapper script that starts Java names as the program: jars and qualified main classes.
_JAVA_NAMES: Final = re.compile(r"[\w.+-]+\.jar\b|\b(?:[A-Za-z_]\w*\.){2,}[A-Za-z_$][\w$]*")


@lru_cache(maxsize=512)
def wrapped_names(path: str) -> tuple[str, ...]:
    """The executable names a wrapper script at ``path`` runs: for a ``#!`` script named ``B``,
    those of ``B``, ``B.bin`` and ``B-bin`` that its text mentions (none for a binary), and for a
    script that runs Java the jars and main classes it names (``/usr/bin/jedit``: ``jedit.jar``,
    ``org.gjt.sp.jedit.jEdit``), which ``procfs.java_program`` reads from the process."""
    try:
        with Path(path).open("rb") as f:
            if f.read(2) != b"#!":
                return ()
            text = f.read(MAX_WRAPPER_BYTES).decode(errors="replace")
    except OSError:
        return ()
    base = Path(path).name
    names = [n for n in (base, f"{base}.bin", f"{base}-bin") if n in text]
    if "java" in text:
        names += dict.fromkeys(m.group(0) for m in _JAVA_NAMES.finditer(text))
    return tuple(names)


def program_ids(apps: Iterable[DesktopApp]) -> dict[str, str]:
    """Executable → app id, for ``procfs.program_id``: keys are real executable paths of
    entries' commands and bare names that entries' wrapper scripts run (no "/" in them).

    One entry for a key gives its id; of several, the only one whose ``Exec`` passes no options
    (``org.xfce.mousepad`` over ``--preferences``, ``libreoffice-startcenter`` over
    ``--writer``), else the command they share, else nothing."""
    hits: dict[str, list[DesktopApp]] = {}
    for app in apps:
        if app.executable:
            hits.setdefault(app.executable, []).append(app)
        for name in app.wrapped:
            hits.setdefault(name, []).append(app)
    out: dict[str, str] = {}
    for key, entries in hits.items():
        commands = {a.command for a in entries}
        plain = [a for a in entries if a.plain]
        if len(entries) == 1:
            out[key] = entries[0].id
        elif len(plain) == 1:
            out[key] = plain[0].id
        elif len(commands) == 1 and entries[0].command:
            out[key] = entries[0].command
    return out


def leads_to(app: DesktopApp, executable: str, classes: Iterable[tuple[str, str]]) -> bool:
    """Whether the entry starts this process: same executable, a wrapper of it, or its
    ``StartupWMClass`` (or id) is one of the process's window classes."""
    exe = executable.removesuffix(" (deleted)")
    if app.executable == exe or Path(exe).name in app.wrapped:
        return True
    wanted = {app.wm_class.lower(), app.id.lower()} - {""}
    return any(part.lower() in wanted for pair in classes for part in pair if part)


def display_name(entries: Sequence[DesktopApp], app_id: str, classes: Sequence[tuple[str, str]]) -> str | None:
    """The ``Name`` of the entry matching the topmost window's class, else of ``app_id``'s entry."""
    for pair in classes:
        for app in entries:
            wanted = {app.wm_class.lower(), app.id.lower()} - {""}
            if any(part.lower() in wanted for part in pair if part):
                return app.name
    return next((a.name for a in entries if a.id == app_id), None)


def names_of(process: RunningProcess, entries: Iterable[DesktopApp], classes: Iterable[tuple[str, str]]) -> set[str]:
    """Every name (lowercase) the process answers to, short of its window titles."""
    ident = process.identity
    exe = ident.executable.removesuffix(" (deleted)")
    names = {process.display_name, ident.app_id, Path(exe).name}
    pairs = list(classes)
    names.update(part for pair in pairs for part in pair)
    for app in entries:
        if leads_to(app, exe, pairs):
            names.update((app.id, app.name))
    return {n.lower() for n in names if n}


def resolve(selector: str, found: Iterable[Found]) -> RunningApp:
    """Exactly one running app for a pid, a path, a name or a window title (module docstring).

    Raises:
        ArgumentError: digits that are not ASCII (``"²"``, ``"١٢٣"``) are no pid.
        NativeError: ``target_not_running`` when nothing matches, ``ambiguous_target`` when several
            processes match the first kind that matches.
    """
    procs = list(found)
    wanted = selector.strip()
    if not wanted:
        raise NativeError("target_not_running", "No app was named.", dispatched=False)
    if wanted.isdigit() and not wanted.isascii():
        raise ArgumentError(f'"{wanted}" is not a pid: a pid is written with the digits 0-9.')
    low = wanted.lower()
    if wanted.isdigit():
        tiers = [[p for p in procs if p.process.identity.pid == int(wanted)]]
    elif wanted.startswith("/"):
        tiers = [[p for p in procs if _path_matches(p, wanted)]]
    else:
        tiers = [[p for p in procs if low in p.names], [p for p in procs if low in p.titles]]
    hits = next((t for t in tiers if t), [])
    if not hits:
        raise NativeError("target_not_running", f'"{wanted}" is not running.', dispatched=False)
    pids = sorted({p.process.identity.pid for p in hits})
    if len(pids) > 1:
        # a process started by another match is part of that app (GIMP's plug-ins show its dialogs)
        roots = [p for p in pids if not any(q != p and procfs.descends_from(p, q) for q in pids)]
        if len(roots) == 1:
            hits = [h for h in hits if h.process.identity.pid == roots[0]]
            pids = roots
    if len(pids) > 1:
        raise NativeError(
            "ambiguous_target",
            f'"{wanted}" matches several running processes (pids {", ".join(map(str, pids))}); name one by its pid.',
            dispatched=False,
        )
    found_pid = hits[0].process.identity.pid
    return RunningApp(hits[0].process.identity, hits[0].process.display_name, procfs.holds_pty_master(found_pid))


def _path_matches(found: Found, wanted: str) -> bool:
    exe = found.process.identity.executable.removesuffix(" (deleted)")
    if wanted in (exe, found.argv0):
        return True
    real = os.path.realpath(wanted)
    wrapped = wrapped_names(real)
    return real == exe or Path(exe).name in wrapped or any(p in wrapped for p in found.programs)


def recent_usage(apps: Iterable[DesktopApp], xbel: Path | None = None) -> dict[str, Usage]:
    """Per desktop id, the last use and use count from ``recently-used.xbel`` (empty if none)."""
    home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local/share")
    path = xbel or Path(home) / "recently-used.xbel"
    try:
        tree = ET.parse(path)  # noqa: S314 - the user's own file
    except (OSError, ET.ParseError):
        return {}
    by_key: dict[str, tuple[datetime, int]] = {}
    for app in tree.iter(f"{_BOOKMARK_NS}application"):
        when = _parse_time(app.get("modified", ""))
        if when is None:
            continue
        count = max(0, int(app.get("count", "0") or 0))
        for key in _usage_keys(app.get("name", ""), app.get("exec", "")):
            last, total = by_key.get(key, (when, 0))
            by_key[key] = (max(last, when), total + count)
    out: dict[str, Usage] = {}
    for desktop in apps:
        hit = by_key.get(desktop.name.lower()) or by_key.get(desktop.command.lower())
        if hit is not None:
            out[desktop.id] = Usage(hit[0].strftime("%Y-%m-%dT%H:%M:%SZ"), hit[1])
    return out


def _usage_keys(name: str, command: str) -> list[str]:
    keys = [name.lower()] if name else []
    try:
        words = shlex.split(command.strip("'\""))
    except ValueError:
        words = []
    if words:
        keys.append(Path(words[0]).name.lower())
    return list(dict.fromkeys(keys))  # "Mousepad" and "mousepad %u" are one use, not two


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


def recent_since(now: datetime, days: int = RECENT_DAYS) -> datetime:
    """The start of the local day ``days`` days before ``now``'s (``now`` is timezone-aware)."""
    local = now.astimezone()
    start = local.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=days)
    return start.astimezone(UTC)


def merge(
    running: list[RunningProcess],
    installed: list[DesktopApp],
    usage: dict[str, Usage],
    *,
    now: datetime | None = None,
) -> list[AppEntry]:
    """Running apps first (one per app id), then the installed apps not already listed that were
    used since ``recent_since(now)``, most recently used first (then by name)."""
    out = running_entries(running, usage)
    listed = {e.id for e in out}
    since = recent_since(now or datetime.now(UTC))
    recent = []
    for app in sorted(installed, key=lambda a: a.name.lower()):
        use = usage.get(app.id)
        when = _parse_time(use.last_used) if use is not None and use.last_used else None
        if app.id not in listed and when is not None and when >= since:
            recent.append((when, app))
            listed.add(app.id)
    recent.sort(key=lambda pair: pair[0], reverse=True)
    out.extend(entry(app.id, app.name, running=False, usage=usage.get(app.id)) for _, app in recent)
    return out
