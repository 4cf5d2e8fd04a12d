"""What every desktop of a pool is: its screen and the apps started in it, and the names of its actors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

#: Ray namespace of every pool's actors (a driver in any namespace finds them).
NAMESPACE: Final = "deskhand"
#: A node's custom resource that marks it for desktop hosts; without one on any node, every node hosts.
HOST_RESOURCE: Final = "deskhand_host"


@dataclass(frozen=True, slots=True)
class PoolSpec:
    name: str
    size: int
    apps: tuple[tuple[str, ...], ...] = ()
    screen: tuple[int, int] = (1280, 800)
    per_node: int | None = None
    lease_ttl_s: float = 900.0

    @classmethod
    def of(
        cls,
        name: str,
        size: int,
        *,
        apps: Sequence[Sequence[str] | str],
        screen: tuple[int, int],
        per_node: int | None,
        lease_ttl_s: float,
    ) -> PoolSpec:
        """Validated: a positive size, screen, TTL and per-node cap; each app an argv (a string is one word)."""
        if size < 1 or (per_node is not None and per_node < 1):
            raise ValueError("a pool needs size >= 1 and per_node >= 1 (or None)")
        if len(screen) != 2 or min(screen) < 64:
            raise ValueError(f"screen must be (width, height) of at least 64 pixels, not {screen!r}")
        if lease_ttl_s <= 0:
            raise ValueError("lease_ttl_s must be positive")
        argvs = tuple((app,) if isinstance(app, str) else tuple(app) for app in apps)
        if any(not argv or not all(argv) for argv in argvs):
            raise ValueError("every app needs a command")
        return cls(name, size, argvs, (int(screen[0]), int(screen[1])), per_node, float(lease_ttl_s))

    def controller_name(self) -> str:
        return controller_name(self.name)

    def host_name(self, node_id: str) -> str:
        return f"deskhand:{self.name}:host:{node_id}"


def controller_name(pool: str) -> str:
    return f"deskhand:{pool}:controller"
