"""The pool's controller: a detached Ray actor that keeps one host per node, sets how many desktops
each keeps, and serves leases to waiters in arrival order.

It holds no state a restart could lose: the hosts are named detached actors it finds again, and
each host knows its ready and leased desktops, so a restarted controller rebuilds its table from
them on its first tick. A host that stops answering is left to Ray to restart (its node is alive)
or dropped with its node (the node is gone), and the pool's size is spread over the hosts left.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from typing import Any, Final

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from deskhand.core.errors import LeaseTimeout
from deskhand.fleet.host import DesktopHost
from deskhand.fleet.spec import HOST_RESOURCE, NAMESPACE, PoolSpec

TICK_S: Final = 0.25
STATE_TIMEOUT_S: Final = 2.0

HostActor = ray.remote(DesktopHost)


def share(size: int, hosts: int, per_node: int | None) -> list[int]:
    """``size`` desktops spread over ``hosts`` (the first ones take the remainder), capped at ``per_node``."""
    if hosts == 0:
        return []
    base, extra = divmod(size, hosts)
    counts = [base + (1 if i < extra else 0) for i in range(hosts)]
    return counts if per_node is None else [min(c, per_node) for c in counts]


def eligible_nodes() -> list[str]:
    """Alive nodes that declare the host resource, else every alive node."""
    alive = [n for n in ray.nodes() if n.get("Alive")]
    marked = [n for n in alive if n.get("Resources", {}).get(HOST_RESOURCE)]
    return sorted(str(n["NodeID"]) for n in (marked or alive))


class PoolController:
    """A pool's lease table and waiters (used as a detached Ray actor: ``ray.remote(PoolController)``)."""

    def __init__(self, spec: PoolSpec) -> None:
        self.spec = spec
        self.hosts: dict[str, Any] = {}
        self.states: dict[str, dict[str, Any]] = {}
        self.pids: dict[str, int] = {}
        #: dead nodes already handled.
        self.dead: set[str] = set()
        self.lost = {"hosts_restarted": 0, "nodes_lost": 0}
        self.started_at = time.time()
        self._loop: asyncio.Task[None] | None = None
        self._turn: asyncio.Lock | None = None
        self._changed: asyncio.Event | None = None
        self._shut = False

    async def _start(self) -> None:
        if self._loop is None or self._loop.done():
            self._turn, self._changed = asyncio.Lock(), asyncio.Event()
            await self._refresh()
            self._loop = asyncio.ensure_future(self._maintain())

    # -- the drivers' side --------------------------------------------------------------------
    async def wait_ready(self, count: int, timeout_s: float) -> bool:
        await self._start()
        deadline = time.monotonic() + timeout_s
        while sum(int(s["ready"]) for s in self.states.values()) < count:
            if time.monotonic() >= deadline:
                return False
            await self._wait_change(deadline)
        return True

    async def lease(self, timeout_s: float) -> dict[str, Any]:
        """A fresh desktop: ``{lease_id, node_id, desktop_id, host}``; FIFO among waiters."""
        await self._start()
        deadline = time.monotonic() + timeout_s
        lease_id = secrets.token_hex(8)
        async with self._lock():
            while True:
                grant = await self._claim(lease_id, prefer=None)
                if grant is not None:
                    return grant
                if time.monotonic() >= deadline:
                    raise LeaseTimeout(f"no desktop of pool {self.spec.name!r} became free within {timeout_s:g} s")
                await self._wait_change(deadline)

    async def reset(self, node_id: str, desktop_id: str, lease_id: str, timeout_s: float) -> dict[str, Any]:
        """The lease on a fresh desktop (the same host's first); the old one is torn down in the background.

        With no desktop ready anywhere (every one leased), the old one is released first, so that its
        replacement is built, and the lease waits for a fresh one in turn like any other."""
        await self._start()
        host = self.hosts.get(node_id)
        if host is not None:
            fresh = await host.reset.remote(desktop_id, lease_id)
            if fresh is not None:
                return {"lease_id": lease_id, "node_id": node_id, "desktop_id": fresh, "host": host}
        grant = await self._claim(lease_id, prefer=None)
        if host is not None:
            await host.release.remote(desktop_id, lease_id)
        if grant is not None:
            return grant
        deadline = time.monotonic() + timeout_s
        async with self._lock():
            while (grant := await self._claim(lease_id, prefer=None)) is None:
                if time.monotonic() >= deadline:
                    raise LeaseTimeout(f"no desktop of pool {self.spec.name!r} became free within {timeout_s:g} s")
                await self._wait_change(deadline)
        return grant

    async def release(self, node_id: str, desktop_id: str, lease_id: str) -> bool:
        host = self.hosts.get(node_id)
        released = host is not None and bool(await host.release.remote(desktop_id, lease_id))
        self._wake()
        return released

    async def stats(self) -> dict[str, Any]:
        await self._start()
        await self._refresh()
        return {"size": self.spec.size, "pid": os.getpid(), "hosts": dict(self.states), "lost": dict(self.lost)}

    async def shutdown(self) -> list[dict[str, object]]:
        self._shut = True
        if self._loop is not None:
            self._loop.cancel()
        audits: list[dict[str, object]] = []
        for host in self.hosts.values():
            try:
                audits += await host.shutdown.remote()
            except ray.exceptions.RayError:
                continue  # a dead host's desktops were ended by their watchdogs
            ray.kill(host, no_restart=True)
        return audits

    # -- inside ---------------------------------------------------------------------------------
    async def _claim(self, lease_id: str, prefer: str | None) -> dict[str, Any] | None:
        order = sorted(self.hosts, key=lambda n: (n != prefer, -int(self.states.get(n, {}).get("ready", 0))))
        for node_id in order:
            host = self.hosts[node_id]
            try:
                desktop_id = await host.claim.remote(lease_id, self.spec.lease_ttl_s)
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnschedulableError):
                continue
            if desktop_id is not None:
                return {"lease_id": lease_id, "node_id": node_id, "desktop_id": desktop_id, "host": host}
        return None

    def _lock(self) -> asyncio.Lock:
        """The waiters' turn (asyncio's lock is FIFO: the first to wait is the first served)."""
        if self._turn is None:
            raise RuntimeError("fleet: the controller has not started")
        return self._turn

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def _wait_change(self, deadline: float) -> None:
        if self._changed is None:
            raise RuntimeError("fleet: the controller has not started")
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), max(0.0, min(TICK_S * 4, deadline - time.monotonic())))
        except TimeoutError:
            return

    async def _maintain(self) -> None:
        while not self._shut:
            await asyncio.sleep(TICK_S)
            try:
                await self._refresh()
            except ray.exceptions.RayError:
                continue

    def _host(self, node_id: str) -> Any:
        return HostActor.options(
            name=self.spec.host_name(node_id), namespace=NAMESPACE, lifetime="detached", get_if_exists=True,
            max_restarts=-1, max_task_retries=0, num_cpus=0,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(self.spec, node_id)  # fmt: skip

    def _drop_dead_hosts(self) -> None:
        """End the host actors of dead nodes (Ray would wait forever to restart them there), counting
        each node once. A node lost while the controller itself was restarting can go uncounted: Ray
        may have ended its host by then, and nothing else remembers it."""
        for node in ray.nodes():
            node_id = str(node["NodeID"])
            if node.get("Alive") or node_id in self.dead:
                continue
            self.dead.add(node_id)
            host = self.hosts.pop(node_id, None)
            self.states.pop(node_id, None)
            if host is None:
                try:
                    host = ray.get_actor(self.spec.host_name(node_id), namespace=NAMESPACE)
                except ValueError:
                    continue  # Ray already ended it (or it never ran there)
            ray.kill(host, no_restart=True)
            self.lost["nodes_lost"] += 1

    async def _refresh(self) -> None:
        nodes = eligible_nodes()
        for node_id in set(self.hosts) - set(nodes):  # no longer a host node (its resource went)
            ray.kill(self.hosts.pop(node_id), no_restart=True)
            self.states.pop(node_id, None)
        self._drop_dead_hosts()
        for node_id in nodes:
            if node_id not in self.hosts:
                self.hosts[node_id] = self._host(node_id)
        targets = dict(zip(nodes, share(self.spec.size, len(nodes), self.spec.per_node), strict=True))
        refs = {n: self.hosts[n].state.remote() for n in nodes}
        for node_id, ref in refs.items():
            try:
                state = await asyncio.wait_for(ref, STATE_TIMEOUT_S)
            except (ray.exceptions.RayError, TimeoutError):
                self.states.pop(node_id, None)
                continue
            if self.pids.setdefault(node_id, state["pid"]) != state["pid"]:
                self.lost["hosts_restarted"] += 1
                self.pids[node_id] = state["pid"]
            self.states[node_id] = state
            if state["target"] != targets[node_id]:
                await self.hosts[node_id].set_target.remote(targets[node_id])
        self._wake()
