"""deskhand.fleet: a pool of fresh desktops on Ray for rollouts and evaluations (``pip install deskhand[ray]``).

See :mod:`deskhand.fleet.pool`. ``DesktopLost`` and ``LeaseTimeout`` are part of the one error
hierarchy (``deskhand.core.errors``).
"""

from __future__ import annotations

try:
    import ray  # noqa: F401 - checked here so the message says how to get it
except ImportError as err:  # pragma: no cover - depends on the install
    from deskhand.core.errors import BackendUnavailable

    raise BackendUnavailable("deskhand.fleet needs Ray: pip install 'deskhand[ray]'") from err

from deskhand.core.errors import DesktopLost, LeaseTimeout
from deskhand.fleet.lease import Lease, McpAccess
from deskhand.fleet.pool import DesktopPool, PoolStats
from deskhand.fleet.remote import RemoteApp, RemoteComputer

__all__ = [
    "DesktopLost",
    "DesktopPool",
    "Lease",
    "LeaseTimeout",
    "McpAccess",
    "PoolStats",
    "RemoteApp",
    "RemoteComputer",
]
