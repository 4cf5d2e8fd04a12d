"""The app inventory on Linux: running apps, installed ``.desktop`` apps, selector resolution.

Running apps are the processes on the AT-SPI registry plus the X clients that carry
``_NET_WM_PID`` (deskhand's own process excluded), one entry per app id, running first.
Installed apps are the visible ``Type=Application`` entries under ``$XDG_DATA_HOME`` and
``$XDG_DATA_DIRS`` (``applications/``), earlier directories shadowing later ones.

"Recently used" on Linux: the freedesktop ``recently-used.xbel`` file (GTK's recent-files list,
``$XDG_DATA_HOME/recently-used.xbel``) records, per file, which applications opened it, when
(``modified``) and how often (``count``). An app's ``lastUsedDate`` is the latest of those dates
and its ``useCount`` the sum of its counts, matched by application name or by the command of
its ``.desktop`` entry. Apps that never opened a file there have neither field; installed apps
are listed whether or not they were used, most recently used first, then by name.

Discovery never authorizes: denied apps (terminals, ...) are listed like any other.
"""

from __future__ import annotations

import os
import shlex
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from deskhand.backends.base import AppEntry
from deskhand.backends.inventory import RunningProcess, Usage, entry, running_entries

__all__ = ["DesktopApp", "RunningProcess", "Usage", "installed_apps", "merge", "recent_usage"]

_BOOKMARK_NS = "{http://www.freedesktop.org/standards/desktop-bookmarks}"


@dataclass(frozen=True, slots=True)
class DesktopApp:
    """One installed application from a ``.desktop`` entry."""

    id: str  # the desktop file id without ".desktop", e.g. "org.xfce.mousepad"
    name: str
    command: str  # first word of Exec, e.g. "mousepad"
    executable: str | None  # its real path when found on PATH


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
    found = shutil.which(command) if command else None
    executable = str(Path(found).resolve()) if found else None
    return DesktopApp(app_id, fields.get("Name") or app_id, Path(command).name, executable)


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
    return keys


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


def merge(running: list[RunningProcess], installed: list[DesktopApp], usage: dict[str, Usage]) -> list[AppEntry]:
    """Running apps first (one per app id), then installed apps not already listed, recently used first."""
    out = running_entries(running, usage)
    listed = {e.id for e in out}
    rest = sorted((app for app in installed if app.id not in listed), key=lambda a: a.name.lower())
    rest_used = sorted((a for a in rest if a.id in usage), key=lambda a: usage[a.id].last_used or "", reverse=True)
    rest_unused = [a for a in rest if a.id not in usage]
    out.extend(entry(app.id, app.name, running=False, usage=usage.get(app.id)) for app in [*rest_used, *rest_unused])
    return out
