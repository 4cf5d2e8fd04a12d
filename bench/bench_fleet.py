"""Benchmark: deskhand.fleet on a local two-node Ray cluster (loopback), and a pod's start-to-ready.

Measures, with a pool of 4 desktops running the GTK fixture app: lease latency from a warm pool
(each round waits until all 4 are ready, then leases all 4), the reset hand-off (timed by the driver
and by the host) and the rebuild behind it, the memory of one desktop (the proportional set size of
every process carrying its marker: Xvfb, the buses, openbox, the app, the kernel worker) idle and
after an episode, its CPU while idle, and the pod command's (``deskhand serve`` with the Deployment's
environment) time from spawn to a 200 on ``/readyz``. Writes ``out/bench-fleet.md``.
"""

from __future__ import annotations

import os

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # every Ray address on loopback
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
import ray
from ray.cluster_utils import Cluster

from deskhand.desktop._procs import marked_pids
from deskhand.fleet import DesktopPool

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "apps" / "gtk_fixture.py"
APP = ("sh", "-c", f'DESKHAND_EVENT_LOG="$XDG_RUNTIME_DIR/events.log" exec /usr/bin/python3 {FIXTURE}')
SIZE = 4
ROUNDS = int(os.environ.get("DESKHAND_BENCH_FLEET_ROUNDS", "8"))
RESETS = int(os.environ.get("DESKHAND_BENCH_FLEET_RESETS", "20"))
POD_RUNS = 5


def _q(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def _wait(predicate, timeout_s: float = 120.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise TimeoutError("bench fleet: not within the deadline")
        time.sleep(0.05)
    return value


def _marked(desktop_id: str) -> list[int]:
    return marked_pids(desktop_id)


def _pss_mib(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        m = re.search(r"^Pss:\s+(\d+) kB", text, re.M)
        total += int(m.group(1)) if m else 0
    return total / 1024


def _cpu_s(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _episode(lease) -> None:  # type: ignore[no-untyped-def]
    app = lease.computer.get_app("deskhand-gtk-fixture")
    state = app.get_ax_state(disable_diffing=True)
    name = re.search(r"(g\d+:\d+) text \(settable, string\) Name", state)
    apply = re.search(r"(g\d+:\d+) push button Apply", state)
    if not (name and apply):
        raise RuntimeError("bench fleet: the fixture's controls were not found")
    app.click(apply.group(1))
    app.click(name.group(1))
    app.type_text("benchmark")
    app.get_screenshot()


def _fleet(rows: list[str]) -> None:
    registry = Path(tempfile.mkdtemp(prefix="bench-fleet-"))
    os.environ["DESKHAND_DESKTOPS_DIR"] = str(registry)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, namespace="bench", log_to_driver=False)
    try:
        t0 = time.monotonic()
        pool = DesktopPool.create(SIZE, apps=[APP], screen=(1280, 800), name="bench")
        rows.append(f"| pool of {SIZE} ready (2 nodes, cold) | {time.monotonic() - t0:.1f} s | |")
        leases: list[float] = []
        for _ in range(ROUNDS):
            _wait(lambda: pool.stats().ready == SIZE)
            held = []
            for _ in range(SIZE):
                t1 = time.monotonic()
                held.append(pool.lease())
                leases.append((time.monotonic() - t1) * 1000)
            for lease in held:
                lease.release()
        rows.append(f"| lease from a warm pool (n={len(leases)}) | p50 {_q(leases, 0.5):.1f} ms | "
                    f"p99 {_q(leases, 0.99):.1f} ms |")  # fmt: skip

        _wait(lambda: pool.stats().ready == SIZE)
        lease = pool.lease()
        idle_pids = _marked(lease.desktop_id)
        cpu0 = _cpu_s(idle_pids)
        idle = _pss_mib(idle_pids)
        time.sleep(10)  # a fixed window for the idle CPU reading, not synchronization
        idle_cpu = (_cpu_s(idle_pids) - cpu0) / 10 * 100
        _episode(lease)
        active = _pss_mib(_marked(lease.desktop_id))
        rows.append(
            f"| one desktop's memory (PSS, its processes) | idle {idle:.0f} MiB | after an episode {active:.0f} MiB |"
        )
        rows.append(f"| one idle desktop's CPU | {idle_cpu:.2f} % of a core | |")
        resets: list[float] = []
        for _ in range(RESETS):
            _wait(lambda: pool.stats().ready >= 1)
            t1 = time.monotonic()
            lease.reset()
            resets.append((time.monotonic() - t1) * 1000)
        lease.release()
        stats = pool.stats()
        rows.append(f"| reset hand-off, driver (n={len(resets)}) | p50 {_q(resets, 0.5):.1f} ms | "
                    f"p99 {_q(resets, 0.99):.1f} ms |")  # fmt: skip
        if stats.reset_p50_s is not None and stats.reset_p99_s is not None:
            rows.append(f"| reset hand-off, on the host | p50 {stats.reset_p50_s * 1000:.1f} ms | "
                        f"p99 {stats.reset_p99_s * 1000:.1f} ms |")  # fmt: skip
        if stats.rebuild_p50_s is not None:
            rows.append(f"| rebuild of a desktop with the app (background) | p50 {stats.rebuild_p50_s:.2f} s | |")
        audits = pool.shutdown()
        leaks = stats.leaks + sum(int(str(a["leaks"])) for a in audits)
        rows.append(f"| leaks found by the audits (every teardown) | {leaks} | |")
    finally:
        ray.shutdown()
        cluster.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pod(rows: list[str]) -> None:
    times: list[float] = []
    for _ in range(POD_RUNS):
        port = _free_port()
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "DESKHAND_DESKTOPS_DIR": tmp, "DESKHAND_TOKEN": "bench", "DESKHAND_VIRTUAL": "1",
                   "DESKHAND_TRANSPORT": "http", "DESKHAND_HOST": "127.0.0.1", "DESKHAND_PORT": str(port)}  # fmt: skip
            t0 = time.monotonic()
            proc = subprocess.Popen([sys.executable, "-m", "deskhand", "serve"], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            with httpx2.Client(timeout=5) as http:

                def ready(http: httpx2.Client = http, port: int = port) -> bool:
                    try:
                        return http.get(f"http://127.0.0.1:{port}/readyz").status_code == 200
                    except httpx2.TransportError:
                        return False

                _wait(ready, 60)
            times.append(time.monotonic() - t0)
            proc.terminate()
            proc.wait(30)
    rows.append(f"| pod command spawn to /readyz 200 (n={POD_RUNS}) | p50 {statistics.median(times):.2f} s | "
                f"max {max(times):.2f} s |")  # fmt: skip


def main() -> int:
    rows = ["| what | value | |", "|---|---|---|"]
    _pod(rows)
    _fleet(rows)
    table = "\n".join(rows)
    print(table)
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    (out / "bench-fleet.md").write_text(f"nproc {os.cpu_count()}\n\n{table}\n")
    return 0
