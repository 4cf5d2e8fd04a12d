"""``DesktopPool``: many fresh desktops on a Ray cluster, leased one per episode.

    pool = DesktopPool.create(4, apps=[["xeyes"]])
    with pool.lease() as lease:
        app = lease.computer.get_app("xeyes")
        ...
        lease.reset()          # a fresh desktop for the next episode
    pool.shutdown()

The pool is a detached controller actor and one host actor per node (``controller``, ``host``);
it outlives the driver that created it, and any driver of the cluster reaches it by name with
:meth:`DesktopPool.connect`. A lease is never handed a desktop another lease used.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, TypeVar

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from deskhand.core.errors import BackendUnavailable
from deskhand.fleet.controller import PoolController
from deskhand.fleet.lease import Lease, ask
from deskhand.fleet.spec import NAMESPACE, PoolSpec, controller_name

#: How long ``create`` waits for the warm desktops.
WARM_TIMEOUT_S: Final = 300.0
T = TypeVar("T")
ControllerActor = ray.remote(PoolController)


def _quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


@dataclass(frozen=True, slots=True)
class PoolStats:
    """The pool now: desktops by state, hosts, reset and rebuild times, and what the audits found."""

    size: int
    ready: int
    leased: int
    starting: int
    hosts: int
    #: seconds from ``Lease.reset()`` reaching a host to the lease holding a fresh desktop.
    reset_p50_s: float | None
    reset_p99_s: float | None
    #: seconds to build a desktop with the pool's apps (in the background of a reset or release).
    rebuild_p50_s: float | None
    #: leftovers the audits found after teardowns (processes, X sockets and locks, registry entries, dirs).
    leaks: int
    #: desktops that failed their check before hand-out and were replaced.
    replaced: int
    #: leases whose TTL passed (their driver died or stopped calling) and whose desktops were reclaimed.
    reclaimed: int
    failed_builds: int
    hosts_restarted: int
    nodes_lost: int


def _stats(raw: dict[str, Any]) -> PoolStats:
    hosts = list(raw["hosts"].values())
    total = {k: sum(int(h["counts"][k]) for h in hosts) for k in ("leaks", "crash_leaks", "replaced", "reclaimed",
                                                                   "failed_builds")}  # fmt: skip
    handoffs = [x for h in hosts for x in h["handoff_s"]]
    builds = [x for h in hosts for x in h["build_s"]]
    return PoolStats(
        size=int(raw["size"]),
        ready=sum(int(h["ready"]) for h in hosts),
        leased=sum(len(h["leased"]) for h in hosts),
        starting=sum(int(h["starting"]) for h in hosts),
        hosts=len(hosts),
        reset_p50_s=_quantile(handoffs, 0.5),
        reset_p99_s=_quantile(handoffs, 0.99),
        rebuild_p50_s=_quantile(builds, 0.5),
        leaks=total["leaks"] + total["crash_leaks"],
        replaced=total["replaced"],
        reclaimed=total["reclaimed"],
        failed_builds=total["failed_builds"],
        hosts_restarted=int(raw["lost"]["hosts_restarted"]),
        nodes_lost=int(raw["lost"]["nodes_lost"]),
    )


def _ensure_ray() -> None:
    if not ray.is_initialized():
        ray.init(namespace=NAMESPACE, log_to_driver=False)


class _AsyncLease:
    """``await pool.lease_async()`` or ``async with pool.lease_async() as lease``."""

    def __init__(self, pool: DesktopPool, timeout_s: float) -> None:
        self._pool, self._timeout_s = pool, timeout_s
        self._lease: Lease | None = None

    def __await__(self) -> Any:
        return self._get().__await__()

    async def _get(self) -> Lease:
        grant = await self._pool._controller.lease.remote(self._timeout_s)
        return Lease(self._pool._controller, grant, self._timeout_s)

    async def __aenter__(self) -> Lease:
        self._lease = await self._get()
        return self._lease

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._lease is not None:
            await self._lease.__aexit__(et, ev, tb)


class DesktopPool:
    """A named pool of desktops on the Ray cluster this process is connected to (or a local one)."""

    def __init__(self, name: str, controller: Any) -> None:
        self.name = name
        self._controller = controller

    @classmethod
    def create(
        cls,
        size: int,
        *,
        apps: Sequence[Sequence[str] | str] = (),
        screen: tuple[int, int] = (1280, 800),
        warm: int | None = None,
        name: str = "deskhand",
        per_node: int | None = None,
        lease_ttl_s: float = 900,
    ) -> DesktopPool:
        """Start a pool of ``size`` desktops, each with ``apps`` started (argv lists) and checked.

        Returns once ``warm`` desktops are ready (default: all ``size``). Hosts run on the nodes
        with the ``deskhand_host`` resource, else on every node; ``per_node`` caps a node's share.
        A lease not renewed (by a call or ``renew``) for ``lease_ttl_s`` is reclaimed.
        """
        spec = PoolSpec.of(name, size, apps=apps, screen=screen, per_node=per_node, lease_ttl_s=lease_ttl_s)
        _ensure_ray()
        try:
            ray.get_actor(spec.controller_name(), namespace=NAMESPACE)
        except ValueError:
            pass
        else:
            raise ValueError(f"a pool named {name!r} exists: DesktopPool.connect({name!r}), or shut it down first")
        controller: Any = ControllerActor.options(
            name=spec.controller_name(), namespace=NAMESPACE, lifetime="detached",
            max_restarts=-1, max_task_retries=0, num_cpus=0,
            # on the driver's node (usually the head) while it lives; anywhere after a restart
            scheduling_strategy=NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=True),
        ).remote(spec)  # fmt: skip
        pool = cls(name, controller)
        want = size if warm is None else max(0, min(warm, size))
        if not ask(controller, "wait_ready", want, WARM_TIMEOUT_S):
            stats = pool.stats()
            pool.shutdown()
            raise BackendUnavailable(
                f"fleet: {stats.ready} of {want} desktops were ready within {WARM_TIMEOUT_S:g} s "
                f"({stats.failed_builds} failed to build)"
            )
        return pool

    @classmethod
    def connect(cls, name: str = "deskhand") -> DesktopPool:
        """The running pool ``name`` (created by any driver of this cluster)."""
        _ensure_ray()
        try:
            return cls(name, ray.get_actor(controller_name(name), namespace=NAMESPACE))
        except ValueError as err:
            raise BackendUnavailable(f"fleet: no pool named {name!r} runs on this Ray cluster") from err

    def lease(self, timeout_s: float = 60) -> Lease:
        """A fresh, checked desktop; waits (first come, first served) up to ``timeout_s``, then LeaseTimeout."""
        # A lease the controller granted as it died is never handed out, and its TTL reclaims it.
        grant = ask(self._controller, "lease", timeout_s)
        return Lease(self._controller, grant, timeout_s)

    def lease_async(self, timeout_s: float = 60) -> _AsyncLease:
        """The async twin of :meth:`lease`: ``async with pool.lease_async() as lease``."""
        return _AsyncLease(self, timeout_s)

    def map(self, fn: Callable[[Lease, T], Any], items: Iterable[T], *, timeout_s: float = 600) -> list[Any]:
        """``fn(lease, item)`` for each item, each on its own fresh lease, as many at once as the pool
        holds; the results in order (the first failure is raised once all have finished)."""
        todo = list(items)
        if not todo:
            return []

        def episode(item: T) -> Any:
            with self.lease(timeout_s) as lease:
                return fn(lease, item)

        size = int(ask(self._controller, "stats")["size"])
        with ThreadPoolExecutor(max_workers=min(size, len(todo))) as workers:
            futures = [workers.submit(episode, item) for item in todo]
            return [f.result() for f in futures]

    def stats(self) -> PoolStats:
        return _stats(ask(self._controller, "stats"))

    def shutdown(self) -> list[dict[str, object]]:
        """End every desktop, host and the controller; the audits of the desktops torn down."""
        audits: list[dict[str, object]] = ask(self._controller, "shutdown")
        ray.kill(self._controller, no_restart=True)
        return audits
