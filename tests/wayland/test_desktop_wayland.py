"""The embedded Wayland desktop: ``VirtualDesktop(wayland=True)``, ``deskhand desktop start --wayland``
and ``--compositor kwin|gnome`` as a user runs them, on a real headless sway, KWin and GNOME Shell."""

from __future__ import annotations

import json
import os
import pwd
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from _wl_support import WaylandLauncher, comp_of, compositor_missing, sway_missing

from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.core.errors import NativeError
from deskhand.desktop import VirtualDesktop, _procs, find_state

pytestmark = pytest.mark.skipif(sway_missing() is not None, reason=str(sway_missing()))


def _deskhand(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deskhand", *args], check=False, capture_output=True, text=True, timeout=120, env=env
    )


def _uid_of(pid: int) -> int:
    line = next(ln for ln in Path(f"/proc/{pid}/status").read_text().splitlines() if ln.startswith("Uid:"))
    return int(line.split()[1])


def test_the_compositor_runs_in_its_own_0700_dir_and_apps_run_native(
    wl_desktop: VirtualDesktop, wl_launch: WaylandLauncher
) -> None:
    """sway runs unprivileged (it refuses root); KWin and GNOME Shell as the caller, on the
    desktop's bus, with XDG_CURRENT_DESKTOP telling the backend which compositor it is (GNOME Shell
    in the runtime dir of its own it is given, ``run`` in its folder)."""
    env = wl_desktop.env
    assert wl_desktop.compositor_dir is not None and wl_desktop.compositor is not None
    kind = wl_desktop.compositor.name
    socket = Path(env["WAYLAND_DISPLAY"])
    runtime = wl_desktop.compositor_dir / "run" if kind == "gnome" else wl_desktop.compositor_dir
    assert socket.is_absolute() and socket.parent == runtime and socket.is_socket()
    desktop_name = {"kwin": "KDE", "gnome": "GNOME"}
    assert Path(env["SWAYSOCK"]).is_socket() if kind == "sway" else env["XDG_CURRENT_DESKTOP"] == desktop_name[kind]
    assert "DISPLAY" not in wl_desktop.app_env()
    assert (env["GDK_BACKEND"], env["QT_QPA_PLATFORM"], env["XDG_SESSION_TYPE"]) == ("wayland", "wayland", "wayland")
    assert wl_desktop._state is not None
    sway = wl_desktop._state.server_pid()
    assert sway is not None
    info = wl_desktop.compositor_dir.stat()
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == _uid_of(sway)
    if os.geteuid() == 0 and kind == "sway":  # sway refuses root: it runs as an unprivileged system user
        assert _uid_of(sway) != 0
        assert pwd.getpwuid(_uid_of(sway)).pw_name == os.environ.get("DESKHAND_WAYLAND_USER", "deskhand")
    app = wl_launch.gtk_fixture()
    app.events.wait_for("ready", window_id=None)  # no X window: GTK runs on Wayland
    view = next(v for v in comp_of(wl_desktop).views() if v.pid == app.pid)
    assert view.shell != "xwayland"  # native, not XWayland (which neither desktop starts)


def test_start_doctor_stop_round_trip_from_the_cli() -> None:
    started = _deskhand("desktop", "start", "--wayland", "--size", "1024x768x24", "--json")
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
        assert {"wayland", "virtual_pointer", "virtual_keyboard", "screencopy", "data_control", "sway_ipc"} <= set(
            checks
        )
        assert "1024x768" in checks["wayland"]["detail"]
        exports = _deskhand("desktop", "status", desktop_id).stdout
        assert "unset DISPLAY" in exports and f"export SWAYSOCK={info['env']['SWAYSOCK']}" in exports
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


@pytest.mark.parametrize("flags", [["--wayland"], ["--compositor", "kwin"]])
def test_wayland_flag_without_virtual_is_refused(flags: list[str]) -> None:
    done = _deskhand("apps", *flags, env={k: v for k, v in os.environ.items() if k != "DESKHAND_COMPOSITOR"})
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "deskhand: error: --wayland and --compositor go with --virtual: they make the fresh desktop a Wayland one"
    )


@pytest.mark.parametrize("trusted", [True, False], ids=["trusted", "as_a_plasma_session"])
def test_kwin_start_doctor_stop_from_the_cli(trusted: bool) -> None:
    """``desktop start --compositor kwin``, then ``doctor``: on the private desktop every KWin check
    passes; on one that withholds KWin's trust, as a user's Plasma session does, fake input and
    ScreenShot2 fail with the .desktop allow-list that grants them, and the backend refuses to start."""
    reason = compositor_missing("kwin")
    if reason is not None:
        pytest.skip(reason)
    env = {**os.environ, "DESKHAND_KWIN_TRUST": "1" if trusted else "0"}
    started = _deskhand("desktop", "start", "--compositor", "kwin", "--size", "1024x768x24", "--json", env=env)
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout)
    state = find_state(info["id"])
    try:
        assert state is not None and state.compositor == "kwin" and state.compositor_dir
        assert info["env"]["XDG_CURRENT_DESKTOP"] == "KDE" and "SWAYSOCK" not in info["env"]
        client_env = {k: v for k, v in {**os.environ, **info["env"]}.items() if k != "DISPLAY"}
        doctor = json.loads(_deskhand("doctor", "--json", env=client_env).stdout)
        checks = {c["name"]: c for c in doctor["checks"]}
        kwin = {"wayland", "fake_input", "data_control", "keymap", "kwin_scripting", "screenshot"}
        assert kwin <= set(checks) and "sway_ipc" not in checks and "1024x768" in checks["wayland"]["detail"]
        if trusted:
            assert doctor["ok"] is True and all(checks[name]["ok"] for name in kwin), doctor
        else:
            assert doctor["ok"] is False and checks["kwin_scripting"]["ok"] and checks["data_control"]["ok"]
            for name in ("fake_input", "screenshot"):
                fix = checks[name]["fix"]
                assert not checks[name]["ok"] and f"Exec={os.path.realpath(sys.executable)}\n" in fix, fix
                assert "X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input" in fix
                assert "X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2" in fix
            with pytest.raises(NativeError) as refused:
                WaylandExecutor(client_env)
            assert refused.value.code == "not_trusted" and "X-KDE-Wayland-Interfaces" in refused.value.message
    finally:
        stopped = _deskhand("desktop", "stop", info["id"])
    assert stopped.returncode == 0, stopped.stderr
    assert not any(_procs.alive(p.pid, p.ticks) for p in state.processes)
    assert not Path(state.compositor_dir).exists() and find_state(info["id"]) is None


def test_gnome_start_doctor_stop_from_the_cli() -> None:
    """``desktop start --compositor gnome``, then ``doctor``: deskhand's shell extension answers and
    Mutter's remote desktop gives input, with no wlroots check; ``stop`` leaves no process or folder."""
    reason = compositor_missing("gnome")
    if reason is not None:
        pytest.skip(reason)
    started = _deskhand("desktop", "start", "--compositor", "gnome", "--size", "1024x768x24", "--json")
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout)
    state = find_state(info["id"])
    try:
        assert state is not None and state.compositor == "gnome" and state.compositor_dir
        status = json.loads(_deskhand("desktop", "status", info["id"], "--json").stdout)
        assert status["compositor"] == "gnome" and status["stale"] is False
        client_env = {k: v for k, v in {**os.environ, **info["env"]}.items() if k != "DISPLAY"}
        doctor = json.loads(_deskhand("doctor", "--json", env=client_env).stdout)
        checks = {c["name"]: c for c in doctor["checks"]}
        assert doctor["ok"] is True and checks["gnome_extension"]["ok"] and checks["gnome_input"]["ok"], doctor
        assert "screencopy" not in checks and "sway_ipc" not in checks and "1024x768" in checks["wayland"]["detail"]
        exports = _deskhand("desktop", "status", info["id"]).stdout
        assert "unset DISPLAY" in exports and "export DESKHAND_COMPOSITOR=gnome" in exports
        assert "XDG_CURRENT_DESKTOP=GNOME" in exports
    finally:
        stopped = _deskhand("desktop", "stop", info["id"])
    assert stopped.returncode == 0, stopped.stderr
    assert not any(_procs.alive(p.pid, p.ticks) for p in state.processes)
    assert not Path(state.compositor_dir).exists() and find_state(info["id"]) is None


def test_an_unknown_compositor_is_a_usage_error_naming_the_ones_deskhand_starts() -> None:
    done = _deskhand("desktop", "start", "--compositor", "weston")
    named = "no compositor 'weston': deskhand starts gnome, kwin, sway"
    assert done.returncode == 2 and named in done.stderr, done.stderr
