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
from collections.abc import Iterable
from dataclasses import dataclass

from deskhand.backends import inventory
from deskhand.backends.base import AppEntry, ProcessIdentity, RunningApp
from deskhand.backends.inventory import RunningProcess, Usage
from deskhand.core.errors import NativeError

__all__ = ["RecentApp", "RunningProcess", "identity_from", "merge", "resolve", "verify"]

STALE_MESSAGE = "The target application changed process identity before the action."


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
    """Exactly one running app; a path matches the executable or the ``.app`` bundle holding it."""
    return inventory.resolve(selector, running, path_matches=_in_bundle)


def _in_bundle(executable: str, wanted: str) -> bool:
    return executable == wanted or executable.startswith(wanted + "/")


@dataclass(frozen=True, slots=True)
class RecentApp:
    """A Spotlight row: bundle id, display name, last use (ISO-8601) and use count (≥ 0 or None)."""

    bundle_id: str
    display_name: str
    last_used: str | None = None
    use_count: int | None = None


def merge(running: Iterable[RunningProcess], recent: Iterable[RecentApp]) -> list[AppEntry]:
    """Running apps first (one per bundle id, enriched with usage), then recent apps not listed (6.14)."""
    rows = list(recent)
    usage = {r.bundle_id: Usage(r.last_used, r.use_count) for r in rows}
    out = inventory.running_entries(running, usage)
    listed = {e.id for e in out}
    for row in rows:
        if row.bundle_id not in listed:
            listed.add(row.bundle_id)
            name = row.display_name or row.bundle_id
            out.append(inventory.entry(row.bundle_id, name, running=False, usage=usage[row.bundle_id]))
    return out
