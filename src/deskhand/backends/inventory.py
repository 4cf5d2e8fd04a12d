"""Platform-neutral inventory rules every backend shares: selector resolution and the merge of
running apps (first, one row per app id) with usage data (native-contract.md section 6.14)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from deskhand.backends.base import AppEntry, ProcessIdentity, RunningApp
from deskhand.core.errors import ArgumentError, NativeError


@dataclass(frozen=True, slots=True)
class RunningProcess:
    """A running app as discovery found it, before identity checks."""

    identity: ProcessIdentity
    display_name: str


@dataclass(frozen=True, slots=True)
class Usage:
    """How recently and how often an app was used (where the platform knows)."""

    last_used: str | None  # ISO-8601, UTC
    count: int | None


def exact_path(executable: str, wanted: str) -> bool:
    return executable == wanted


def resolve(
    selector: str,
    running: Iterable[RunningProcess],
    *,
    path_matches: Callable[[str, str], bool] = exact_path,
) -> RunningApp:
    """Exactly one running app for a display name or app id (case-insensitive), a path, or pid digits.

    Raises:
        ArgumentError: digits that are not ASCII (``"²"``, ``"١٢٣"``) are no pid.
        NativeError: ``target_not_running`` when nothing matches, ``ambiguous_target`` when
            several processes do.
    """
    procs = list(running)
    wanted = selector.strip()
    if not wanted:
        raise NativeError("target_not_running", "No app was named.", dispatched=False)
    if wanted.isdigit() and not wanted.isascii():
        raise ArgumentError(f'"{wanted}" is not a pid: a pid is written with the digits 0-9.')
    if wanted.isdigit():
        hits = [p for p in procs if p.identity.pid == int(wanted)]
    elif wanted.startswith("/"):
        hits = [p for p in procs if path_matches(p.identity.executable, wanted)]
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


def entry(app_id: str, name: str, *, running: bool, usage: Usage | None, pid: int | None = None) -> AppEntry:
    count = usage.count if usage is not None and usage.count is not None and usage.count >= 0 else None
    return AppEntry(app_id, name, running, pid=pid, last_used_date=usage.last_used if usage else None, use_count=count)


def running_entries(running: Iterable[RunningProcess], usage: Mapping[str, Usage]) -> list[AppEntry]:
    """One row per running app id, in discovery order, with its usage."""
    out: list[AppEntry] = []
    listed: set[str] = set()
    for proc in running:
        app_id = proc.identity.app_id
        if app_id not in listed:
            listed.add(app_id)
            out.append(entry(app_id, proc.display_name, running=True, usage=usage.get(app_id), pid=proc.identity.pid))
    return out
