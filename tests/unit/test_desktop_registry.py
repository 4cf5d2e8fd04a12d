"""Unit tests of the desktop registry, process helpers and screen-size parsing (no display)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deskhand.desktop import _procs
from deskhand.desktop.registry import (
    DesktopState,
    ProcessRecord,
    cleanup_stale,
    find_state,
    list_states,
    registry_dir,
    teardown,
)
from deskhand.desktop.virtual import parse_size


@pytest.fixture(autouse=True)
def private_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "registry"
    monkeypatch.setenv("DESKHAND_DESKTOPS_DIR", str(path))
    return path


def _state(desktop_id: str, processes: list[ProcessRecord], *, owner: int | None = None) -> DesktopState:
    runtime = registry_dir() / desktop_id
    runtime.mkdir()
    return DesktopState(
        id=desktop_id, display=65001, width=800, height=600, depth=24, wm=False,
        env={"DISPLAY": ":65001"}, runtime_dir=str(runtime), owner_pid=owner,
        owner_ticks=_procs.start_ticks(owner) if owner else None, processes=processes, created_at=time.time(),
    )  # fmt: skip


def _spawn_sleeper(desktop_id: str | None = None) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    if desktop_id is not None:
        env[_procs.MARKER_ENV] = desktop_id
    return subprocess.Popen(["sleep", "300"], env=env, start_new_session=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1920x1080x24", (1920, 1080, 24)), ("1280x720", (1280, 720, 24)), ("640X480X16", (640, 480, 16))],
)
def test_parse_size(text: str, expected: tuple[int, int, int]) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "1920", "axb", "0x100", "1x2x3x4"])
def test_parse_size_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="1920x1080x24"):
        parse_size(text)


def test_registry_dir_honours_override(private_registry: Path) -> None:
    assert registry_dir() == private_registry
    assert private_registry.stat().st_mode & 0o777 == 0o700


def test_state_round_trip() -> None:
    state = _state("abc", [ProcessRecord("xvfb", 123, 456)], owner=os.getpid())
    state.save()
    loaded = find_state("abc")
    assert loaded == state
    assert [s.id for s in list_states()] == ["abc"]


def test_state_with_dead_owner_is_stale() -> None:
    done = subprocess.Popen(["true"])
    done.wait()
    server = _spawn_sleeper()
    try:
        live = _state("live", [ProcessRecord("xvfb", server.pid, _procs.start_ticks(server.pid))], owner=os.getpid())
        assert not live.is_stale()
        dead = _state("dead", [ProcessRecord("xvfb", server.pid, _procs.start_ticks(server.pid))], owner=os.getpid())
        dead.owner_pid = done.pid
        assert dead.is_stale()
    finally:
        server.kill()
        server.wait()


def test_state_with_dead_server_is_stale() -> None:
    assert _state("noserver", [ProcessRecord("xvfb", 2**22 + 7, 1)]).is_stale()


def test_reused_pid_is_not_alive() -> None:
    proc = _spawn_sleeper()
    try:
        ticks = _procs.start_ticks(proc.pid)
        assert ticks is not None
        assert _procs.alive(proc.pid, ticks)
        assert not _procs.alive(proc.pid, ticks + 1)
    finally:
        proc.kill()
        proc.wait()


def test_terminate_ends_group_children_and_marked_strays() -> None:
    # A shell leader with a child in its group, and a stray in its own session carrying the marker.
    leader = subprocess.Popen(["sh", "-c", "sleep 300 & echo $!; wait"], stdout=subprocess.PIPE, start_new_session=True)
    assert leader.stdout is not None
    child = int(leader.stdout.readline())
    stray = _spawn_sleeper("unit-marker")
    try:
        assert _procs.alive(child)
        # a process just started may show its marker a moment later (a clean-clone CI run saw none)
        deadline = time.monotonic() + 10
        while stray.pid not in _procs.marked_pids("unit-marker") and time.monotonic() < deadline:
            time.sleep(0.01)  # polling /proc with a deadline
        assert stray.pid in _procs.marked_pids("unit-marker")
        left = _procs.terminate([leader.pid], "unit-marker")
        assert left == []
        for pid in (leader.pid, child, stray.pid):
            assert not _procs.alive(pid)
        assert _procs.marked_pids("unit-marker") == []
    finally:
        for p in (leader, stray):
            p.kill()
            p.wait()
        leader.stdout.close()


def test_terminate_kills_what_ignores_sigterm() -> None:
    stubborn = subprocess.Popen(
        [sys.executable, "-c", "import signal,sys,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
         "print('ready', flush=True)\nwhile True: time.sleep(1)"],
        stdout=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    assert stubborn.stdout is not None
    with stubborn.stdout:
        assert stubborn.stdout.readline().strip() == b"ready"
        assert _procs.terminate([stubborn.pid], None, grace_s=0.2) == []
        assert stubborn.wait(timeout=5) == -signal.SIGKILL


def test_teardown_removes_processes_state_runtime_and_lock() -> None:
    server = _spawn_sleeper("unit-teardown")
    lock = Path("/tmp/.X65001-lock")
    if lock.exists():
        pytest.skip("display 65001 is in use on this machine")
    lock.write_text(f"{server.pid:>10}\n")
    try:
        state = _state("unit-teardown", [ProcessRecord("xvfb", server.pid, _procs.start_ticks(server.pid))])
        state.save()
        assert teardown(state) == []
        server.wait(timeout=5)
        assert not lock.exists()
        assert not Path(state.runtime_dir).exists()
        assert find_state("unit-teardown") is None
    finally:
        lock.unlink(missing_ok=True)
        if server.poll() is None:
            server.kill()
            server.wait()


def test_lock_of_another_server_is_kept() -> None:
    lock = Path("/tmp/.X65003-lock")
    if lock.exists():
        pytest.skip("display 65003 is in use on this machine")
    lock.write_text(f"{os.getpid():>10}\n")
    try:
        _procs.remove_x_lock(65003, 2**22 + 11)
        assert lock.exists()
    finally:
        lock.unlink(missing_ok=True)


def test_lock_of_a_live_server_is_kept() -> None:
    server = _spawn_sleeper()
    lock = Path("/tmp/.X65002-lock")
    if lock.exists():
        pytest.skip("display 65002 is in use on this machine")
    lock.write_text(f"{server.pid:>10}\n")
    try:
        _procs.remove_x_lock(65002, server.pid)
        assert lock.exists()
    finally:
        lock.unlink(missing_ok=True)
        server.kill()
        server.wait()


def test_cleanup_stale_ends_only_stale_desktops() -> None:
    orphan = _spawn_sleeper("unit-orphan")
    server = _spawn_sleeper()
    try:
        stale = _state("unit-orphan", [ProcessRecord("xvfb", 2**22 + 9, 1), ProcessRecord("app", orphan.pid, None)])
        stale.save()
        fresh = _state(
            "unit-fresh", [ProcessRecord("xvfb", server.pid, _procs.start_ticks(server.pid))], owner=os.getpid()
        )
        fresh.save()
        assert cleanup_stale() == ["unit-orphan"]
        orphan.wait(timeout=5)
        assert server.poll() is None
        assert [s.id for s in list_states()] == ["unit-fresh"]
    finally:
        for p in (orphan, server):
            if p.poll() is None:
                p.kill()
                p.wait()
