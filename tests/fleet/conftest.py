"""The fleet tests' cluster: a local two-node Ray cluster on loopback (``fleet_support``), started
once per module. Each node gets one CPU; the pool's actors take none."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from fleet_support import LocalCluster


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    registry = tmp_path_factory.mktemp("fleet-desktops")
    saved = os.environ.get("DESKHAND_DESKTOPS_DIR")
    os.environ["DESKHAND_DESKTOPS_DIR"] = str(registry)  # the raylets' workers inherit it
    cluster = LocalCluster(registry)
    try:
        yield cluster
    finally:
        cluster.shutdown()
        if saved is None:
            os.environ.pop("DESKHAND_DESKTOPS_DIR", None)
        else:
            os.environ["DESKHAND_DESKTOPS_DIR"] = saved
