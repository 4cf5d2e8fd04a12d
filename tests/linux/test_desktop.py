"""The embedded virtual desktop against real Xvfb, D-Bus, AT-SPI and openbox processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from Xlib import X, Xatom
from Xlib import display as xdisplay

from deskhand.desktop import A11yBus, VirtualDesktop, _procs, cleanup_stale, find_state, teardown
from deskhand.desktop.registry import DesktopState

DEADLINE_S = 15.0


def _client_pids(display: str) -> list[int]:
    """``_NET_WM_PID`` of every window in the WM's ``_NET_CLIENT_LIST``."""
    d = xdisplay.Display(display)
    try:
        root = d.screen().root
        clients = root.get_full_property(d.intern_atom("_NET_CLIENT_LIST"), Xatom.WINDOW)
        pids = []
        for wid in clients.value if clients else []:
            prop = d.create_resource_object("window", wid).get_full_property(
                d.intern_atom("_NET_WM_PID"), Xatom.CARDINAL
            )
            if prop is not None:
                pids.append(int(prop.value[0]))
        return pids
    finally:
        d.close()


def _wait(predicate: object, what: str, timeout_s: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():  # type: ignore[operator]
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def _assert_all_gone(state: DesktopState) -> None:
    for record in state.processes:
        assert not _procs.alive(record.pid, record.ticks), f"{record.role} (pid {record.pid}) still runs"
    assert _procs.marked_pids(state.id) == []
    assert not Path(f"/tmp/.X{state.display}-lock").exists()
    assert not Path(f"/tmp/.X11-unix/X{state.display}").exists()
    assert not Path(state.runtime_dir).exists()
    assert find_state(state.id) is None


def test_session_desktop_is_complete(desktop: VirtualDesktop) -> None:
    d = xdisplay.Display(desktop.env["DISPLAY"])
    try:
        screen = d.screen()
        assert (screen.width_in_pixels, screen.height_in_pixels) == (1920, 1080)
        assert d.screen().root.get_full_property(d.intern_atom("_NET_SUPPORTING_WM_CHECK"), X.AnyPropertyType)
    finally:
        d.close()
    with desktop.a11y() as bus:
        assert bus.registry_ready()
    assert set(desktop.timings) >= {"xvfb", "dbus", "atspi", "wm", "total"}
    print(f"desktop start timings (ms): { {k: round(v * 1000) for k, v in desktop.timings.items()} }")


def test_mousepad_appears_on_its_bus_and_is_gone_after_stop(tmp_path: Path) -> None:
    with VirtualDesktop() as vd:
        app = vd.launch(["mousepad"], log_path=tmp_path / "mousepad.log")
        with vd.a11y() as bus:
            found = bus.wait_for_pid(app.pid, timeout_s=DEADLINE_S)
            assert "mousepad" in found.name.lower()
        _wait(lambda: app.pid in _client_pids(vd.env["DISPLAY"]), "the mousepad window in _NET_CLIENT_LIST")
        state = find_state(vd.id)
        assert state is not None
        assert any(p.pid == app.pid for p in state.processes)
    assert not app.running()
    assert not _procs.alive(app.pid)
    _assert_all_gone(state)


def test_app_stop_removes_it_from_the_bus(launch: object, a11y: A11yBus) -> None:
    running = launch(["mousepad"])  # type: ignore[operator]
    assert running.a11y is not None
    running.app.stop()
    assert a11y.wait_gone(running.pid, timeout_s=DEADLINE_S)
    assert not _procs.alive(running.pid)


def test_two_desktops_run_side_by_side_without_touching_each_other() -> None:
    with VirtualDesktop() as a, VirtualDesktop(wm=False) as b:
        assert a.display != b.display
        assert a.env["AT_SPI_BUS_ADDRESS"] != b.env["AT_SPI_BUS_ADDRESS"]
        assert a.env["DBUS_SESSION_BUS_ADDRESS"] != b.env["DBUS_SESSION_BUS_ADDRESS"]
        app = a.launch(["mousepad"])
        with a.a11y() as bus_a, b.a11y() as bus_b:
            bus_a.wait_for_pid(app.pid, timeout_s=DEADLINE_S)
            assert bus_b.find_pid(app.pid) is None
            assert bus_b.apps() == []
        b_state = find_state(b.id)
        assert b_state is not None
        a.stop()
        # b still serves clients after a is gone.
        with b.a11y() as bus_b:
            assert bus_b.registry_ready()
        d = xdisplay.Display(b.env["DISPLAY"])
        d.close()
        assert not b_state.is_stale()
    _assert_all_gone(b_state)


def test_stop_leaves_no_process_and_no_lock() -> None:
    vd = VirtualDesktop().start()
    state = find_state(vd.id)
    assert state is not None
    roles = {p.role for p in state.processes}
    assert roles >= {"xvfb", "dbus", "atspi-launcher", "atspi-registryd", "openbox"}
    assert Path(f"/tmp/.X11-unix/X{state.display}").exists()
    helper_pids = _procs.marked_pids(vd.id)  # includes the a11y dbus-daemon the launcher forked
    vd.stop()
    _assert_all_gone(state)
    assert not any(_procs.alive(pid) for pid in helper_pids)
    vd.stop()  # idempotent


_OWNER = """
import json, os, subprocess, sys, time
from deskhand.desktop import VirtualDesktop
from deskhand.desktop._procs import MARKER_ENV
vd = VirtualDesktop().start()
app = vd.launch(["mousepad"])
# an X client in no group of the desktop, whose environment lost the marker (Chromium's rewrites it)
client = "from Xlib import display; d = display.Display(); d.sync(); import time; time.sleep(600)"
env = {k: v for k, v in {**os.environ, **vd.env}.items() if k != MARKER_ENV}
stray = subprocess.Popen(["setsid", sys.executable, "-c", client], env=env)
while stray.poll() is None and not any(
    os.readlink(f"/proc/{stray.pid}/fd/{fd}").startswith("socket:") for fd in os.listdir(f"/proc/{stray.pid}/fd")
):
    time.sleep(0.05)  # polling for its X connection
print(json.dumps({"id": vd.id, "stray": stray.pid}), flush=True)
while True:
    time.sleep(1)
"""


def test_a_killed_owner_does_not_leave_its_desktop_running() -> None:
    owner = subprocess.Popen([sys.executable, "-c", _OWNER], stdout=subprocess.PIPE, start_new_session=True)
    assert owner.stdout is not None
    with owner.stdout:
        line = owner.stdout.readline()
    assert line, "the owner process did not start a desktop"
    started = json.loads(line)
    state = find_state(started["id"])
    assert state is not None
    assert all(_procs.alive(p.pid, p.ticks) for p in state.processes)
    assert _procs.alive(started["stray"])
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    _wait(lambda: find_state(state.id) is None, "the watchdog to tear the desktop down")
    _assert_all_gone(state)
    # the watchdog asked the X server for its clients: the stray one is gone too
    _wait(lambda: not _procs.alive(started["stray"]), "the unmarked X client to end")


def test_stale_desktop_is_cleaned_up_after_its_server_died() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "deskhand", "desktop", "start", "--json", "--no-wm"],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    state = find_state(json.loads(out.stdout)["id"])
    assert state is not None
    try:
        server = state.server_pid()
        assert server is not None
        os.kill(server, signal.SIGKILL)
        _wait(lambda: not _procs.alive(server), "Xvfb to die")
        assert state.is_stale()
        assert state.id in cleanup_stale()
        _assert_all_gone(state)
    finally:
        teardown(state)


@pytest.mark.parametrize("size", ["1280x720x24", "800x600x16"])
def test_screen_size_is_honoured(size: str) -> None:
    with VirtualDesktop(size=size, wm=False) as vd:
        d = xdisplay.Display(vd.env["DISPLAY"])
        try:
            s = d.screen()
            assert f"{s.width_in_pixels}x{s.height_in_pixels}x{s.root_depth}" == size
        finally:
            d.close()


def test_each_desktop_gives_apps_fresh_settings() -> None:
    write = ["sh", "-c", 'echo seen > "$XDG_CONFIG_HOME/probe"']
    with VirtualDesktop(wm=False) as first:
        app = first.launch(write)
        assert app.popen.wait(timeout=30) == 0
        probe = Path(first.app_env()["XDG_CONFIG_HOME"]) / "probe"
        assert probe.read_text() == "seen\n"
    assert not probe.exists()
    with VirtualDesktop(wm=False) as second:
        assert second.app_env()["XDG_CONFIG_HOME"] != str(probe.parent)
        assert not (Path(second.app_env()["XDG_CONFIG_HOME"]) / "probe").exists()


def test_wait_for_window_finds_a_tk_window_that_sets_no_net_wm_pid(desktop: VirtualDesktop) -> None:
    """Tk sets no ``_NET_WM_PID``: the window is found through its X client's pid (X-Resource),
    so ``serve --launch`` and ``Computer.launch`` of a Tk app do not time out."""
    tk = Path(__file__).resolve().parent.parent / "apps" / "tk_canvas.py"
    app = desktop.launch(["/usr/bin/python3", str(tk)], env={"DESKHAND_EVENT_LOG": os.devnull})
    try:
        wid = desktop.wait_for_window(app.pid, timeout_s=20)
        d = xdisplay.Display(desktop.env["DISPLAY"])
        try:
            win = d.create_resource_object("window", wid)
            assert win.get_full_property(d.intern_atom("_NET_WM_PID"), Xatom.CARDINAL) is None
            assert win.get_wm_name() == "Deskhand Tk Canvas"
        finally:
            d.close()
    finally:
        app.stop()
