"""deploy/kubernetes without a cluster: schemas offline, the pod policy, and each pod's command run here.

The schemas are kubernetes-validate's (shipped in the package, strict: unknown fields fail). The
policy: non-root, a read-only root filesystem, no privilege escalation, every probe an httpGet, no
host port or host namespace, /dev/shm a memory volume, and the Job's failure policy matching the
exit code `deskhand serve` gives when the desktop did not start. Then each desktop container's
command and environment run on this machine (on loopback): it must answer its startup probe within
the probe's budget, polled at the probe's period, and exit 0 within the pod's termination grace
after SIGTERM, its desktop gone.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from deskhand.servecli import EXIT_DESKTOP_FAILED

yaml = pytest.importorskip("yaml")
kubernetes_validate = pytest.importorskip("kubernetes_validate")

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "kubernetes"
KUBERNETES_VERSION = "1.33.0"  # the oldest release with backoffLimitPerIndex and podFailurePolicy GA


def documents() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(DEPLOY.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def pod_specs() -> list[tuple[str, dict[str, Any]]]:
    return [(d["kind"], d["spec"]["template"]["spec"]) for d in documents() if d["kind"] in ("Job", "Deployment")]


def desktop(spec: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in spec["containers"] if c["name"] == "desktop")


def test_the_manifests_validate_offline() -> None:
    kinds = [d["kind"] for d in documents()]
    assert sorted(kinds) == ["Deployment", "Job", "Service"]
    for doc in documents():
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def _walk(node: object) -> Iterator[tuple[str, object]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


@pytest.mark.parametrize(("kind", "spec"), pod_specs(), ids=[k for k, _ in pod_specs()])
def test_the_pod_policy(kind: str, spec: dict[str, Any]) -> None:
    assert spec["securityContext"]["runAsNonRoot"] is True and spec["securityContext"]["runAsUser"] != 0
    assert spec["automountServiceAccountToken"] is False
    assert not {"hostNetwork", "hostPID", "hostIPC"} & set(spec)
    for container in spec["containers"]:
        sc = container["securityContext"]
        assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
        assert sc["capabilities"]["drop"] == ["ALL"]
        assert "limits" in container["resources"] and "requests" in container["resources"]
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            if probe in container:
                assert set(container[probe]) & {"httpGet", "exec", "tcpSocket", "grpc"} == {"httpGet"}
    assert "hostPort" not in {k for k, _ in _walk(spec)}
    d = desktop(spec)
    assert d["startupProbe"]["httpGet"]["path"] == d["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert d["livenessProbe"]["httpGet"]["path"] == "/healthz"
    mounts = {m["mountPath"]: m["name"] for m in d["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert volumes[mounts["/dev/shm"]]["emptyDir"]["medium"] == "Memory"
    assert "emptyDir" in volumes[mounts["/tmp"]]  # the one writable place


def test_the_job_tells_a_desktop_that_did_not_start_from_a_failed_task() -> None:
    (job,) = [d for d in documents() if d["kind"] == "Job"]
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["backoffLimitPerIndex"] >= 1
    assert spec["template"]["spec"]["restartPolicy"] == "Never"
    rules = spec["podFailurePolicy"]["rules"]
    by_container = {r["onExitCodes"]["containerName"]: r for r in rules if "onExitCodes" in r}
    assert by_container["desktop"]["action"] == "Ignore"
    assert by_container["desktop"]["onExitCodes"] == {"containerName": "desktop", "operator": "In",
                                                      "values": [EXIT_DESKTOP_FAILED]}  # fmt: skip
    assert by_container["task"]["action"] == "FailIndex"
    assert by_container["task"]["onExitCodes"]["operator"] == "NotIn"
    assert "--exit-after-session" in desktop(spec["template"]["spec"])["args"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _command(container: dict[str, Any]) -> list[str]:
    """The container's command with ``deskhand`` run from this checkout (tini kept when installed)."""
    argv = [*container["command"], *container.get("args", [])]
    if argv[:2] == ["/usr/bin/tini", "--"] and not shutil.which("tini"):
        argv = argv[2:]
    i = argv.index("deskhand")
    return [*argv[:i], sys.executable, "-m", "deskhand", *argv[i + 1 :]]


def _env(container: dict[str, Any], port: int, tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "DESKHAND_DESKTOPS_DIR": str(tmp_path / "desktops"), "DESKHAND_TOKEN": "pod-token"}
    for item in container["env"]:
        if "value" in item:
            env[item["name"]] = item["value"]
    env.update(DESKHAND_HOST="127.0.0.1", DESKHAND_PORT=str(port), HOME=str(tmp_path / "home"))
    return env


def _status(http: httpx2.Client, url: str) -> int | None:
    try:
        return http.get(url).status_code
    except httpx2.TransportError:
        return None


@pytest.mark.desktop
@pytest.mark.slow
@pytest.mark.parametrize(("kind", "spec"), pod_specs(), ids=[k for k, _ in pod_specs()])
def test_the_pod_command_meets_its_probes_and_its_grace(kind: str, spec: dict[str, Any], tmp_path: Path) -> None:
    container = desktop(spec)
    port = _free_port()
    proc = subprocess.Popen(_command(container), env=_env(container, port, tmp_path), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    startup = container["startupProbe"]
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx2.Client(timeout=startup.get("timeoutSeconds", 1) + 2) as http:
            for _ in range(startup["failureThreshold"]):  # as the kubelet polls: every periodSeconds
                if _status(http, base + startup["httpGet"]["path"]) == 200:
                    break
                assert proc.poll() is None, f"the pod command exited {proc.returncode}"
                time.sleep(startup["periodSeconds"])
            else:
                pytest.fail(f"/readyz not ready within {startup['failureThreshold']} probes")
            assert _status(http, base + container["livenessProbe"]["httpGet"]["path"]) == 200
        (state,) = [json.loads(p.read_text()) for p in (tmp_path / "desktops").glob("*.json")]
        proc.send_signal(signal.SIGTERM)  # what the kubelet does: SIGTERM to the container's PID 1
        code = proc.wait(spec["terminationGracePeriodSeconds"])
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert code == 0
    assert list((tmp_path / "desktops").glob("*.json")) == [] and not Path(state["runtime_dir"]).exists()
