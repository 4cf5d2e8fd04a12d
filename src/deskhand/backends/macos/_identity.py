"""Process identity, running-app resolution and the ``list_apps`` merge (macOS; 6.1, 6.14).

Pure: no pyobjc import. ``_apps.py`` reads ``NSRunningApplication`` (bundle id, executable URL
path, ``launchDate.timeIntervalSinceReferenceDate``) and hands the plain values here. An identity
is proven only when the bundle id and an absolute executable path are present and the launch time
is known; two identities are equal only when every field is bit-for-bit equal (no tolerance).
``ProcessIdentity.start_time`` holds the launch time in seconds since the reference date (2001),
exactly as NSDate reports it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from deskhand.backends.base import AppEntry, ProcessIdentity, RunningApp
from deskhand.core.errors import NativeError

STALE_MESSAGE = "The target application changed process identity before the action."


@dataclass(frozen=True, slots=True)
class RunningProcess:
    identity: ProcessIdentity
    display_name: str


def identity_from(
    pid: int, bundle_id: str | None, executable: str | None, launch_time: float | None
) -> ProcessIdentity | None:
    """A proven identity, or None when any field is missing (the app cannot be a mutation target)."""
    if pid <= 0 or not bundle_id or not executable or not executable.startswith("/"):
        return None
    if launch_time is None or not math.isfinite(launch_time):
        return None
    return ProcessIdentity(pid=pid, app_id=bundle_id, executable=executable, start_time=launch_time)


def verify(expected: ProcessIdentity, current: ProcessIdentity | None) -> ProcessIdentity:
    """Raises ``process_gone`` (no such process now) or ``stale_process`` (any field differs)."""
    if current is None:
        raise NativeError("process_gone", f"The target application (pid {expected.pid}) is no longer running.")
    if current != expected:
        raise NativeError("stale_process", STALE_MESSAGE, dispatched=False)
    return current


def resolve(selector: str, running: Iterable[RunningProcess]) -> RunningApp:
    """Exactly one running app for a display name or bundle id (case-insensitive), a path, or pid digits.

    Raises:
        NativeError: ``target_not_running`` or ``ambiguous_target``.
    """
    procs = list(running)
    wanted = selector.strip()
    if not wanted:
        raise NativeError("target_not_running", "No app was named.", dispatched=False)
    if wanted.isdigit():
        hits = [p for p in procs if p.identity.pid == int(wanted)]
    elif wanted.startswith("/"):
        hits = [p for p in procs if p.identity.executable == wanted or p.identity.executable.startswith(wanted + "/")]
    else:
        low = wanted.lower()
        hits = [p for p in procs if low in (p.display_name.lower(), p.identity.app_id.lower())]
    if not hits:
        raise NativeError("target_not_running", f'"{wanted}" is not running.', dispatched=False)
    if len({p.identity.pid for p in hits}) > 1:
        pids = ", ".join(str(p.identity.pid) for p in hits)
        raise NativeError(
            "ambiguous_target",
            f'"{wanted}" matches several running processes (pids {pids}); name one by its pid.',
            dispatched=False,
        )
    return RunningApp(hits[0].identity, hits[0].display_name)


@dataclass(frozen=True, slots=True)
class RecentApp:
    """A Spotlight row: bundle id, display name, last use (ISO-8601) and use count (≥ 0 or None)."""

    bundle_id: str
    display_name: str
    last_used: str | None = None
    use_count: int | None = None


def merge(running: Iterable[RunningProcess], recent: Iterable[RecentApp]) -> list[AppEntry]:
    """Running apps first (one per bundle id, enriched with usage), then recent apps not listed (6.14)."""
    usage: Mapping[str, RecentApp] = {r.bundle_id: r for r in recent}
    out: list[AppEntry] = []
    listed: set[str] = set()
    for proc in running:
        bid = proc.identity.app_id
        if bid in listed:
            continue
        listed.add(bid)
        use = usage.get(bid)
        out.append(
            AppEntry(
                bid,
                proc.display_name,
                True,
                pid=proc.identity.pid,
                last_used_date=use.last_used if use else None,
                use_count=_count(use.use_count) if use else None,
            )
        )
    for row in usage.values():
        if row.bundle_id in listed:
            continue
        listed.add(row.bundle_id)
        name = row.display_name or row.bundle_id
        out.append(AppEntry(row.bundle_id, name, False, last_used_date=row.last_used, use_count=_count(row.use_count)))
    return out


def _count(value: int | None) -> int | None:
    return value if value is not None and value >= 0 else None
