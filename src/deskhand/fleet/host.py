"""The desktop host: one Ray actor per node that builds, hands out, drives and tears down its desktops.

The host is the truth about its desktops: which are ready, which are leased (to which lease, until
when) and what each teardown left (its audit). The controller only reads that and sets how many
desktops the host keeps. Blocking work (building a desktop, forwarded calls, teardown) runs in
threads, so a slow build never holds up a lease or a call. A lease whose deadline passed (its
driver died, or stopped renewing) is reclaimed here: its desktop is torn down and replaced.

Each host keeps its desktops in its own registry directory; a host that restarts after a crash
first sweeps the desktops of its dead incarnation and audits them.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from deskhand.core.errors import DeskhandError, DesktopLost
from deskhand.fleet.audit import Audit, audit
from deskhand.fleet.slot import Slot
from deskhand.fleet.spec import PoolSpec
from deskhand.fleet.wire import pack

TICK_S: Final = 0.2
#: Desktops a host builds at once (each start is a burst of CPU: Xvfb, two buses, openbox, the apps).
BUILD_CONCURRENCY: Final = 2
#: Audits a host remembers (the oldest are dropped).
AUDITS_KEPT: Final = 2000


@dataclass(frozen=True, slots=True)
class Call:
    """One forwarded ``Computer`` (``app`` None) or ``App`` method call."""

    app: str | None
    method: str
    args: tuple[object, ...]
    kwargs: dict[str, object]


@dataclass(slots=True)
class Held:
    slot: Slot
    lease_id: str
    ttl_s: float
    deadline: float


def host_registry(spec: PoolSpec, node_id: str) -> Path:
    base = os.environ.get("DESKHAND_DESKTOPS_DIR") or f"/tmp/deskhand-desktops-{os.getuid()}"  # noqa: S108
    return Path(base) / f"fleet-{spec.name}-{node_id[:12]}"


class DesktopHost:
    """A node's desktops (used as a Ray actor: ``ray.remote(DesktopHost)``)."""

    def __init__(self, spec: PoolSpec, node_id: str) -> None:
        from deskhand.desktop.registry import cleanup_stale, list_states  # noqa: PLC0415

        self.spec, self.node_id = spec, node_id
        os.environ["DESKHAND_DESKTOPS_DIR"] = str(host_registry(spec, node_id))
        self.target = 0
        self.ready: deque[Slot] = deque()
        self.leased: dict[str, Held] = {}
        self.starting = 0
        self.audits: OrderedDict[str, Audit] = OrderedDict()
        self.pending: dict[str, asyncio.Future[Audit]] = {}
        self.counts = {"built": 0, "failed_builds": 0, "replaced": 0, "reclaimed": 0, "leaks": 0, "crash_leaks": 0}
        self.build_s: list[float] = []
        self.handoff_s: list[float] = []
        self._loop: asyncio.Task[None] | None = None
        self._builds: set[asyncio.Task[None]] = set()
        self._closing = False
        #: forwarded calls running now.
        self.calls = 0
        self.last_build_error = ""
        # Desktops of a dead incarnation of this host: end them, then audit what they left.
        earlier = {s.id: (s.display, Path(s.runtime_dir)) for s in list_states()}
        cleanup_stale()
        for desktop_id, (display, runtime_dir) in earlier.items():
            found = audit(desktop_id, display, runtime_dir)
            self._remember(found)
            self.counts["crash_leaks"] += found.leaks

    # -- the controller's side ------------------------------------------------------------
    async def set_target(self, count: int) -> None:
        self.target = count
        if self._loop is None or self._loop.done():
            self._loop = asyncio.ensure_future(self._maintain())

    async def state(self) -> dict[str, object]:
        return {
            "node_id": self.node_id,
            "pid": os.getpid(),
            "target": self.target,
            "ready": len(self.ready),
            "starting": self.starting,
            "leased": {
                d: {"lease_id": h.lease_id, "expires_in_s": h.deadline - time.monotonic()}
                for d, h in self.leased.items()
            },
            "desktops": [s.id for s in self.ready] + list(self.leased),
            "calls": self.calls,
            "last_build_error": self.last_build_error,
            "closing": len(self.pending),
            "counts": dict(self.counts),
            "build_s": list(self.build_s[-500:]),
            "handoff_s": list(self.handoff_s[-500:]),
        }

    async def claim(self, lease_id: str, ttl_s: float) -> str | None:
        """Hand a ready desktop to ``lease_id`` after checking it once more; None when none is ready."""
        while self.ready:
            slot = self.ready.popleft()
            try:
                await asyncio.to_thread(slot.verify)
            except Exception:  # a desktop that fails its check is replaced, not handed out
                self.counts["replaced"] += 1
                self._retire(slot)
                continue
            self.leased[slot.id] = Held(slot, lease_id, ttl_s, time.monotonic() + ttl_s)
            return slot.id
        return None

    async def shutdown(self) -> list[dict[str, object]]:
        self.target = 0
        self._closing = True
        if self._loop is not None:
            self._loop.cancel()
        await asyncio.gather(*self._builds)  # a desktop being built is retired as soon as it is up
        for slot in [*self.ready, *(h.slot for h in self.leased.values())]:
            self._retire(slot)
        self.ready.clear()
        self.leased.clear()
        done = await asyncio.gather(*self.pending.values())
        return [a.as_dict() for a in done]

    # -- the lease holder's side ------------------------------------------------------------
    async def call(self, desktop_id: str, lease_id: str, request: Call) -> object:
        """Run ``request`` on the lease's desktop (once: the actor runs with ``max_task_retries=0``)."""
        self.calls += 1
        try:
            held = self._held(desktop_id, lease_id)
            held.deadline = time.monotonic() + held.ttl_s
            return await asyncio.to_thread(held.slot.call, request.app, request.method, request.args, request.kwargs)
        except DeskhandError as exc:  # sent as data: see ``wire``
            return pack(exc)
        finally:
            self.calls -= 1

    async def renew(self, desktop_id: str, lease_id: str) -> None:
        held = self._held(desktop_id, lease_id)
        held.deadline = time.monotonic() + held.ttl_s

    async def mcp(self, desktop_id: str, lease_id: str) -> tuple[str, str]:
        return await asyncio.to_thread(self._held(desktop_id, lease_id).slot.mcp)

    async def release(self, desktop_id: str, lease_id: str) -> bool:
        held = self.leased.get(desktop_id)
        if held is None or held.lease_id != lease_id:
            return False
        del self.leased[desktop_id]
        self._retire(held.slot)
        return True

    async def reset(self, desktop_id: str, lease_id: str) -> str | None:
        """Move the lease onto a fresh ready desktop of this host; the old one is torn down in the
        background. None (and the lease unchanged) when this host has none ready."""
        held = self._held(desktop_id, lease_id)
        t0 = time.monotonic()
        fresh = await self.claim(lease_id, held.ttl_s)
        if fresh is None:
            return None
        await self.release(desktop_id, lease_id)
        self.handoff_s.append(time.monotonic() - t0)
        return fresh

    async def audit(self, desktop_id: str) -> dict[str, object] | None:
        """The audit of a desktop this host tore down (waiting for a teardown under way); None if unknown."""
        pending = self.pending.get(desktop_id)
        if pending is not None:
            await asyncio.shield(pending)
        found = self.audits.get(desktop_id)
        return None if found is None else found.as_dict()

    # -- inside ---------------------------------------------------------------------------------
    def _held(self, desktop_id: str, lease_id: str) -> Held:
        held = self.leased.get(desktop_id)
        if held is None or held.lease_id != lease_id:
            raise DesktopLost(
                f"desktop {desktop_id} is no longer held by this lease: its host restarted, or the lease "
                "expired and was reclaimed; nothing was sent to it",
                dispatched=False,
            )
        return held

    def _remember(self, found: Audit) -> None:
        self.audits[found.desktop_id] = found
        while len(self.audits) > AUDITS_KEPT:
            self.audits.popitem(last=False)

    def _retire(self, slot: Slot) -> None:
        async def close() -> Audit:
            try:
                found = await asyncio.to_thread(slot.close)
            finally:
                self.pending.pop(slot.id, None)
            self._remember(found)
            self.counts["leaks"] += found.leaks
            return found

        self.pending[slot.id] = asyncio.ensure_future(close())

    async def _maintain(self) -> None:
        while True:
            now = time.monotonic()
            for desktop_id, held in list(self.leased.items()):
                if held.deadline <= now:
                    self.counts["reclaimed"] += 1
                    del self.leased[desktop_id]
                    self._retire(held.slot)
            while len(self.ready) + len(self.leased) > self.target and self.ready:
                self._retire(self.ready.pop())
            deficit = self.target - len(self.ready) - len(self.leased) - self.starting
            for _ in range(min(deficit, BUILD_CONCURRENCY - self.starting)):
                self.starting += 1
                task = asyncio.ensure_future(self._build())
                self._builds.add(task)
                task.add_done_callback(self._builds.discard)
            await asyncio.sleep(TICK_S)

    async def _build(self) -> None:
        slot = Slot(self.spec)
        try:
            await asyncio.to_thread(slot.build)
        except Exception as exc:  # counted; the next tick builds another
            self.counts["failed_builds"] += 1
            self.last_build_error = f"{type(exc).__name__}: {exc}"[:500]
            return
        finally:
            self.starting -= 1
        self.counts["built"] += 1
        self.build_s.append(slot.built_s)
        if self._closing:
            self._retire(slot)
        else:
            self.ready.append(slot)
