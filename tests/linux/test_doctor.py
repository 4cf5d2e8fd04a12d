"""``deskhand doctor`` against real desktops: healthy inside ``desktop run``, precise when a piece is missing."""

from __future__ import annotations

import json
import subprocess
import sys

from jeepney import Properties
from jeepney.io.blocking import open_dbus_connection

from deskhand.desktop import VirtualDesktop
from deskhand.desktop.atspi import A11Y_STATUS, a11y_status
from deskhand.desktop.doctor import run_doctor

EXPECTED_CHECKS = [
    "display", "x_access", "window_manager", "xtest", "xcomposite", "xshm",
    "clipboard", "session_bus", "accessibility", "atspi_bus", "javascript", "js_sandbox",
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


def test_doctor_reports_an_x_server_with_access_control_off() -> None:
    with VirtualDesktop(wm=False) as vd:
        assert {c.name: c.ok for c in run_doctor(vd.app_env()).checks}["x_access"] is True
        subprocess.run(["xhost", "+"], env=vd.app_env(), check=True, capture_output=True)
        report = run_doctor(vd.app_env())
    access = next(c for c in report.checks if c.name == "x_access")
    assert not access.ok
    assert access.data["enabled"] is False
    assert "-ac" in (access.fix or "") and "xhost -" in (access.fix or "")


def test_doctor_reports_accessibility_off_and_how_to_turn_it_on() -> None:
    with VirtualDesktop(wm=False) as vd:
        session = vd.env["DBUS_SESSION_BUS_ADDRESS"]
        assert a11y_status(session)["IsEnabled"] is True  # deskhand's desktops start with it on
        with open_dbus_connection(bus=session) as conn:
            conn.send_and_get_reply(Properties(A11Y_STATUS).set("IsEnabled", "b", False), timeout=2)
        assert a11y_status(session)["IsEnabled"] is False
        report = run_doctor(vd.app_env())
    check = next(c for c in report.checks if c.name == "accessibility")
    assert not check.ok
    assert "gsettings set org.gnome.desktop.interface toolkit-accessibility true" in (check.fix or "")
    assert "IsEnabled b true" in (check.fix or "")
