"""The embedded Wayland desktop: ``VirtualDesktop(wayland=True)`` and ``deskhand desktop start --wayland``
as a user runs them, on a real headless sway (and the CLI's round trip on GNOME Shell)."""

from __future__ import annotations

import json
import os
import pwd
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from _wl_support import WaylandLauncher, compositor_missing, sway_missing

from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.desktop import VirtualDesktop, _procs, find_state

pytestmark = pytest.mark.skipif(sway_missing() is not None, reason=str(sway_missing()))


def _deskhand(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deskhand", *args], check=False, capture_output=True, text=True, timeout=120, env=env
    )


def _uid_of(pid: int) -> int:
    line = next(ln for ln in Path(f"/proc/{pid}/status").read_text().splitlines() if ln.startswith("Uid:"))
    return int(line.split()[1])


def test_sway_runs_unprivileged_in_its_own_0700_dir_and_apps_run_native(
    wl_desktop: VirtualDesktop, wl_launch: WaylandLauncher
) -> None:
    env = wl_desktop.env
    assert wl_desktop.compositor_dir is not None
    socket = Path(env["WAYLAND_DISPLAY"])
    assert socket.is_absolute() and socket.parent == wl_desktop.compositor_dir and socket.is_socket()
    assert Path(env["SWAYSOCK"]).is_socket()
    assert "DISPLAY" not in wl_desktop.app_env()
    assert (env["GDK_BACKEND"], env["QT_QPA_PLATFORM"], env["XDG_SESSION_TYPE"]) == ("wayland", "wayland", "wayland")
    assert wl_desktop._state is not None
    sway = wl_desktop._state.server_pid()
    assert sway is not None
    info = wl_desktop.compositor_dir.stat()
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == _uid_of(sway)
    if os.geteuid() == 0:  # sway refuses root: it runs as an unprivileged system user
        assert _uid_of(sway) != 0
        assert pwd.getpwuid(_uid_of(sway)).pw_name == os.environ.get("DESKHAND_WAYLAND_USER", "deskhand")
    app = wl_launch.gtk_fixture()
    app.events.wait_for("ready", window_id=None)  # no X window: GTK runs on Wayland
    with SwayIPC(env=env) as ipc:
        view = next(v for v in ipc.views() if v.pid == app.pid)
    assert view.shell == "xdg_shell"  # native, not XWayland (which the config disables)


@pytest.mark.parametrize(
    "compositor",
    [
        pytest.param("sway", id="sway"),
        pytest.param(
            "gnome", id="gnome", marks=pytest.mark.skipif(bool(compositor_missing("gnome")), reason="no GNOME Shell")
        ),
    ],
)
def test_start_doctor_stop_round_trip_from_the_cli(compositor: str) -> None:
    flag = ["--wayland"] if compositor == "sway" else ["--compositor", compositor]
    started = _deskhand("desktop", "start", *flag, "--size", "1024x768x24", "--json")
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout)
    desktop_id = info["id"]
    state = find_state(desktop_id)
    try:
        assert state is not None and state.session == "wayland" and state.compositor_dir
        status = json.loads(_deskhand("desktop", "status", desktop_id, "--json").stdout)
        assert status["session"] == "wayland" and status["display"] == info["env"]["WAYLAND_DISPLAY"]
        assert status["stale"] is False
        client_env = {k: v for k, v in {**os.environ, **info["env"]}.items() if k != "DISPLAY"}
        doctor = json.loads(_deskhand("doctor", "--json", env=client_env).stdout)
        checks = {c["name"]: c for c in doctor["checks"]}
        assert doctor["ok"] is True, doctor
        assert "1024x768" in checks["wayland"]["detail"]
        exports = _deskhand("desktop", "status", desktop_id).stdout
        assert "unset DISPLAY" in exports
        if compositor == "gnome":  # deskhand's extension and Mutter's remote desktop, no wlroots
            assert {"gnome_extension", "gnome_input"} <= set(checks) and "screencopy" not in checks
            assert "export DESKHAND_COMPOSITOR=gnome" in exports and "XDG_CURRENT_DESKTOP=GNOME" in exports
            assert status["compositor"] == "gnome"
        else:
            wlr = {"virtual_pointer", "virtual_keyboard", "screencopy", "data_control", "sway_ipc"}
            assert wlr <= set(checks)
            assert f"export SWAYSOCK={info['env']['SWAYSOCK']}" in exports
    finally:
        stopped = _deskhand("desktop", "stop", desktop_id)
    assert stopped.returncode == 0, stopped.stderr
    assert not any(_procs.alive(p.pid, p.ticks) for p in state.processes)
    assert not Path(state.compositor_dir).exists() and not Path(state.runtime_dir).exists()
    assert find_state(desktop_id) is None


def test_doctor_names_the_missing_compositor_with_a_fix(tmp_path: Path) -> None:
    env = {**os.environ, "WAYLAND_DISPLAY": str(tmp_path / "wayland-9"), "SWAYSOCK": str(tmp_path / "ipc.sock")}
    env.pop("DISPLAY", None)
    doctor = _deskhand("doctor", "--json", env=env)
    assert doctor.returncode == 1
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["wayland"]["ok"] is False and "deskhand desktop start --wayland" in checks["wayland"]["fix"]
    assert checks["sway_ipc"]["ok"] is False and "SWAYSOCK" in checks["sway_ipc"]["fix"]
    # Every part is checked, and every part that failed says how to fix it.
    parts = {
        "wayland",
        "seat",
        "virtual_pointer",
        "virtual_keyboard",
        "screencopy",
        "data_control",
        "sway_ipc",
        "qt_wayland",
    }
    assert parts | {"session_bus", "atspi_bus", "javascript"} <= set(checks), checks
    assert all(c["fix"] for c in checks.values() if not c["ok"]), checks


def test_wayland_flag_without_virtual_is_refused() -> None:
    done = _deskhand("apps", "--wayland")
    assert done.returncode == 1
    assert (
        done.stderr.strip()
        == "deskhand: error: --wayland goes with --virtual: it makes the fresh private desktop a Wayland one"
    )
