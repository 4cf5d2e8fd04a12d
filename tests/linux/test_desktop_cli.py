"""``deskhand desktop start|status|stop|run`` as a user runs them, in subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from deskhand.desktop import _procs, find_state, teardown


def _deskhand(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deskhand", *args], check=False, capture_output=True, text=True, timeout=120, env=env
    )


def test_start_status_stop_round_trip() -> None:
    started = _deskhand("desktop", "start", "--json")
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout)
    desktop_id = info["id"]
    try:
        status = _deskhand("desktop", "status", desktop_id, "--json")
        assert status.returncode == 0, status.stderr
        described = json.loads(status.stdout)
        assert described["env"] == info["env"]
        assert described["detached"] is True
        assert described["stale"] is False
        exports = _deskhand("desktop", "status", desktop_id).stdout
        assert f"export DISPLAY={info['env']['DISPLAY']}" in exports
        assert "export AT_SPI_BUS_ADDRESS=" in exports
        # A client that uses the printed environment reaches that desktop.
        doctor = _deskhand("doctor", "--json", env={**os.environ, **info["env"]})
        assert json.loads(doctor.stdout)["ok"] is True, doctor.stdout
    finally:
        state = find_state(desktop_id)
        stopped = _deskhand("desktop", "stop", desktop_id)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.strip() == f"stopped {desktop_id}"
    assert state is not None
    assert not any(_procs.alive(p.pid, p.ticks) for p in state.processes)
    assert _procs.marked_pids(desktop_id) == []
    assert find_state(desktop_id) is None


def test_start_prints_shell_exports_that_eval() -> None:
    script = (
        'eval "$("$@" desktop start --no-wm)" && echo "$DESKHAND_DESKTOP_ID" && echo "$DISPLAY" '
        '&& "$@" desktop stop "$DESKHAND_DESKTOP_ID"'
    )
    done = subprocess.run(
        ["bash", "-c", script, "bash", sys.executable, "-m", "deskhand"],
        check=False, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    desktop_id, display, stopped = ([*done.stdout.split("\n"), "", "", ""])[:3]
    try:
        assert done.returncode == 0, done.stderr
        assert display.startswith(":")
        assert stopped == f"stopped {desktop_id}"
    finally:
        state = find_state(desktop_id) if desktop_id else None
        if state is not None:
            teardown(state)


def test_run_passes_the_exit_code_and_environment() -> None:
    done = _deskhand(
        "desktop", "run", "--no-wm", "--", "sh", "-c", 'test -n "$AT_SPI_BUS_ADDRESS" && echo "$DISPLAY"; exit 7'
    )
    assert done.returncode == 7
    display = done.stdout.strip()
    assert display.startswith(":")
    assert not os.path.exists(f"/tmp/.X11-unix/X{display[1:]}")


def test_errors_are_one_line_and_non_zero() -> None:
    missing = _deskhand("desktop", "stop", "no-such-desktop")
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines() == [
        "deskhand: error: no desktop with id 'no-such-desktop' (see `deskhand desktop status`)"
    ]
    no_cmd = _deskhand("desktop", "run")
    assert no_cmd.returncode == 1
    assert "needs a command" in no_cmd.stderr
    not_found = _deskhand("desktop", "run", "--no-wm", "--", "no-such-program-xyz")
    assert not_found.returncode == 1
    assert not_found.stderr.strip() == "deskhand: error: command not found: no-such-program-xyz"
    bad_size = _deskhand("desktop", "run", "--size", "huge", "--", "true")
    assert bad_size.returncode == 2
    assert "1920x1080x24" in bad_size.stderr


def test_virtual_flag_gives_any_command_a_private_desktop() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")}
    done = _deskhand("doctor", "--virtual", "--json", env=env)
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["ok"] is True
