"""Helpers of the fleet tests: the pool's fixture app, a local two-node Ray cluster, registry reads.

Importing this module first tells Ray to keep every address on 127.0.0.1
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` makes it use the loopback address as the node address; it
must be set before ``ray`` is imported) and to send no usage statistics.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

FIXTURE = Path(__file__).resolve().parents[1] / "apps" / "gtk_fixture.py"
#: The GTK fixture app, its event log in the desktop's private runtime directory.
GTK_APP = ("sh", "-c", f'DESKHAND_EVENT_LOG="$XDG_RUNTIME_DIR/events.log" exec /usr/bin/python3 {FIXTURE}')


class LocalCluster:
    """Two Ray nodes on this machine; ``second`` can be removed (its raylet and workers killed)."""

    def __init__(self, registry: Path) -> None:
        self.registry = registry
        self.cluster = cluster_utils.Cluster(
            initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
        )
        self.second: Any = self.cluster.add_node(num_cpus=1)
        self.cluster.wait_for_nodes()
        ray.init(address=self.cluster.address, namespace="deskhand-tests", log_to_driver=False)

    @property
    def address(self) -> str:
        return str(self.cluster.address)

    def host_dirs(self) -> list[Path]:
        return sorted(p for p in self.registry.glob("fleet-*") if p.is_dir())

    def shutdown(self) -> None:
        ray.shutdown()
        self.cluster.shutdown()


def desktop_records(host_dir: Path) -> dict[str, dict[str, Any]]:
    """The registry entries of one host's desktops: id -> state."""
    out: dict[str, dict[str, Any]] = {}
    for path in host_dir.glob("*.json"):
        try:
            out[path.stem] = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
    return out
