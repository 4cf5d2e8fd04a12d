"""``deskhand doctor`` against real desktops: healthy inside ``desktop run``, precise when a piece is missing."""

from __future__ import annotations

import json
import subprocess
import sys

from deskhand.desktop import VirtualDesktop
from deskhand.desktop.doctor import run_doctor

EXPECTED_CHECKS = [
    "display", "window_manager", "xtest", "xcomposite", "xshm",
    "clipboard", "session_bus", "atspi_bus", "javascript", "js_sandbox",
]  # fmt: skip


def _deskhand(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deskhand", *args], check=False, capture_output=True, text=True, timeout=120
    )


def test_doctor_json_is_healthy_inside_desktop_run() -> None:
    done = _deskhand("desktop", "run", "--", sys.executable, "-m", "deskhand", "doctor", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert [c["name"] for c in report["checks"]] == EXPECTED_CHECKS
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["window_manager"]["detail"] == "Openbox"
    assert by_name["display"]["data"]["size"] == "1920x1080x24"
    assert all(c["fix"] is None for c in report["checks"])
    assert by_name["js_sandbox"]["data"]["status"]["Seccomp"] == "2"  # read from a started worker's /proc


def test_doctor_names_the_missing_window_manager_with_a_fix() -> None:
    with VirtualDesktop(wm=False) as vd:
        report = run_doctor(vd.app_env())
    failed = report.failed()
    assert [c.name for c in failed] == ["window_manager"]
    assert failed[0].fix is not None
    assert "openbox" in failed[0].fix
    assert "FAIL  window_manager" in report.to_text()
    assert "fix: " in report.to_text()


def test_doctor_text_exit_code_without_a_window_manager() -> None:
    done = _deskhand("desktop", "run", "--no-wm", "--", sys.executable, "-m", "deskhand", "doctor")
    assert done.returncode == 1
    assert "FAIL  window_manager" in done.stdout
    assert "not ready: 1 problem(s)" in done.stdout


def test_doctor_lists_the_apps_on_the_bus(launch, desktop: VirtualDesktop) -> None:  # type: ignore[no-untyped-def]
    running = launch(["mousepad"])
    report = run_doctor(desktop.app_env())
    atspi = next(c for c in report.checks if c.name == "atspi_bus")
    assert atspi.ok
    assert running.pid in [a["pid"] for a in atspi.data["apps"]]
    assert "mousepad" in atspi.detail


def test_doctor_reports_a_dead_display_and_bus_with_fixes() -> None:
    with VirtualDesktop(wm=False) as vd:
        env = vd.app_env()
    report = run_doctor(env)
    by_name = {c.name: c for c in report.checks}
    assert not by_name["display"].ok
    assert "deskhand desktop" in (by_name["display"].fix or "")
    assert not by_name["session_bus"].ok
    assert not by_name["atspi_bus"].ok
    assert by_name["javascript"].ok
