"""Desktops under hostile host processes (Ray-like workers), with X access control and accessibility on.

Each test judges from the outside: /proc (processes, their signal state, their environment), the
X socket, the registry, the runtime directory, a real X client, and real apps on the AT-SPI bus.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from deskhand.desktop import VirtualDesktop, _procs, _xclients, find_state, teardown
from deskhand.desktop.atspi import A11yBus
from deskhand.desktop.registry import DesktopState, registry_dir
from proc_support import children, processes

DEADLINE_S = 20.0
DESKHAND = [sys.executable, "-m", "deskhand"]

# A host process that starts a desktop with Mousepad and reports what it started.
_OWNER = """
import json, os, signal, sys, time
if sys.argv[1] == "hostile":  # what Ray's workers hand their children
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    blocked = {signal.SIGTERM, signal.SIGINT, signal.SIGCHLD, signal.SIGUSR1, signal.SIGALRM}
    signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
from deskhand.desktop import VirtualDesktop
vd = VirtualDesktop().start()
app = vd.launch(["mousepad"])
# a helper in the app's process group that is no child of the owner and carries no marker variable
group = vd.launch(["sh", "-c", "env -i sleep 600 & echo $! > " + str(vd.runtime_dir / "helper.pid") + "; wait"])
with vd.a11y() as bus:
    bus.wait_for_pid(app.pid, timeout_s=20)
helper = vd.runtime_dir / "helper.pid"
while not helper.exists() or not helper.read_text().strip():
    time.sleep(0.01)
print(json.dumps({"id": vd.id, "app": app.pid, "helper": int(helper.read_text())}), flush=True)
if sys.argv[2] == "stop":
    sys.stdin.readline()
    vd.stop()
    print("stopped", flush=True)
else:
    time.sleep(600)
"""


def _wait(predicate: object, what: str, timeout_s: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():  # type: ignore[operator]
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def _watchdogs(state: DesktopState) -> list[int]:
    """Live processes whose command line names the desktop's state file (its watchdog)."""
    path = str(state.path).encode()
    return [pid for pid, (_, cmd) in processes().items() if path in cmd.split(b"\0") and _procs.alive(pid)]


def _leftovers(state: DesktopState, owner: int) -> list[str]:
    """Everything of the desktop that still exists."""
    left = [f"{r.role} pid {r.pid}" for r in state.processes if _procs.alive(r.pid, r.ticks)]
    left += [f"marked pid {pid}" for pid in _procs.marked_pids(state.id)]
    left += [f"watchdog pid {pid}" for pid in _watchdogs(state)]
    paths = [f"/tmp/.X11-unix/X{state.display}", f"/tmp/.X{state.display}-lock", state.runtime_dir]
    paths += [str(state.path), str(registry_dir() / f"xauth-{owner}")]
    return left + [p for p in paths if Path(p).exists()]


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1], 16)
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def _close(owner: subprocess.Popen[str]) -> None:
    for pipe in (owner.stdin, owner.stdout):
        if pipe is not None:
            pipe.close()
    owner.wait()


def _start_owner(mode: str, end: str) -> tuple[subprocess.Popen[str], DesktopState, int, int]:
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER, mode, end], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert owner.stdout is not None
    line = owner.stdout.readline()
    assert line, f"the owner did not start a desktop (exit {owner.poll()})"
    info = json.loads(line)
    state = find_state(info["id"])
    assert state is not None
    return owner, state, int(info["app"]), int(info["helper"])


def test_an_owner_killed_with_its_direct_children_leaves_nothing_behind() -> None:
    owner, state, app, helper = _start_owner("plain", "kill")
    helper_ticks = _procs.start_ticks(helper)
    assert _watchdogs(state), "the desktop should have a watchdog"
    try:
        kids = children(owner.pid)
        assert app in kids and state.server_pid() in kids
        assert helper not in kids and helper not in _procs.marked_pids(state.id)
        for pid in kids:  # the way Ray ends a worker: its direct children and itself
            os.kill(pid, signal.SIGKILL)
        _wait(lambda: not any(_procs.alive(pid) for pid in kids), "the direct children to die")
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
        _wait(lambda: not _leftovers(state, owner.pid), f"the watchdog to clean up {_leftovers(state, owner.pid)}")
        _wait(lambda: not _procs.alive(helper, helper_ticks), "the app's process group to end")
    finally:
        _close(owner)
        teardown(state)


def test_a_desktop_started_with_sigchld_ignored_and_signals_blocked_starts_and_cleans_up() -> None:
    owner, state, app, _ = _start_owner("hostile", "stop")
    assert owner.stdin is not None and owner.stdout is not None
    try:
        owner_blocked = _status(owner.pid, "SigBlk")
        assert owner_blocked & (1 << (signal.SIGCHLD - 1)), "the owner should block SIGCHLD"
        assert _status(owner.pid, "SigIgn") & (1 << (signal.SIGCHLD - 1))
        for record in state.processes:  # Xvfb, the buses, openbox and the app start clean
            assert _status(record.pid, "SigBlk") == 0, record.role
            assert not _status(record.pid, "SigIgn") & (1 << (signal.SIGCHLD - 1)), record.role
        with A11yBus(state.env["AT_SPI_BUS_ADDRESS"]) as bus:
            assert bus.find_pid(app) is not None
        owner.stdin.write("\n")
        owner.stdin.flush()
        assert owner.stdout.readline().strip() == "stopped"
        assert owner.wait(timeout=30) == 0
        _wait(lambda: not _leftovers(state, owner.pid), f"nothing left ({_leftovers(state, owner.pid)})")
    finally:
        owner.kill()
        _close(owner)
        teardown(state)


def test_a_failed_start_shows_the_log_tail() -> None:
    # Xvfb refuses a depth it cannot do; its own words must reach the error, after one attempt.
    from deskhand.core.errors import BackendUnavailable  # noqa: PLC0415

    vd = VirtualDesktop(size=(640, 480, 7), wm=False, start_timeout_s=5.0)
    with pytest.raises(
        BackendUnavailable, match=r"Xvfb did not start; its log ends:\n(.|\n)*Couldn't add screen"
    ) as err:
        vd.start()
    assert str(err.value).count("Fatal server error") == 1
    assert not vd.runtime_dir.exists()
    assert find_state(vd.id) is None


# -- X access control ---------------------------------------------------------------------------

_CONNECT = "from Xlib import display; d = display.Display(); print(d.screen().width_in_pixels)"


def _x_client(display: str, xauthority: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DISPLAY": display, "XAUTHORITY": xauthority}
    return subprocess.run(
        [sys.executable, "-c", _CONNECT], check=False, env=env, capture_output=True, text=True, timeout=30
    )


def test_a_client_without_the_cookie_is_refused_and_one_with_it_connects(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.touch()
    with VirtualDesktop(wm=False, size=(800, 600, 24)) as vd:
        xauth = vd.env["XAUTHORITY"]
        assert Path(xauth).parent == vd.runtime_dir
        assert Path(xauth).stat().st_mode & 0o777 == 0o600
        refused = _x_client(vd.env["DISPLAY"], str(empty))
        assert refused.returncode != 0
        assert "Authorization required" in refused.stderr
        allowed = _x_client(vd.env["DISPLAY"], xauth)
        assert allowed.returncode == 0, allowed.stderr
        assert allowed.stdout.strip() == "800"
        # xdotool (libxcb/libXau) through the desktop's own env reaches the server too
        done = subprocess.run(
            ["xdotool", "getdisplaygeometry"], check=False, env=vd.app_env(), capture_output=True, text=True
        )
        assert done.stdout.split() == ["800", "600"], done.stderr
        app = vd.launch(["sleep", "30"])
        environ = dict(
            e.split(b"=", 1) for e in Path(f"/proc/{app.pid}/environ").read_bytes().split(b"\0") if b"=" in e
        )
        assert environ[b"XAUTHORITY"].decode() == xauth


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root to become another user")
def test_another_local_user_cannot_type_into_the_desktop(desktop: VirtualDesktop) -> None:
    # The attack of issue 15: uid 65534 ran xdotool against root's desktop. The socket is world-writable,
    # so only the cookie keeps that user out.
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "xdotool", "getdisplaygeometry"]
    done = subprocess.run(
        nobody, check=False, env={"DISPLAY": desktop.env["DISPLAY"], "PATH": os.environ["PATH"]},
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode != 0
    assert "Authorization required" in done.stderr, done.stderr


def test_the_server_runs_without_ac(desktop: VirtualDesktop) -> None:
    state = find_state(desktop.id)
    assert state is not None
    server = state.server_pid()
    assert server is not None
    argv = Path(f"/proc/{server}/cmdline").read_bytes().split(b"\0")
    assert b"-ac" not in argv
    assert b"-auth" in argv


# -- accessibility on, policy kept, for a shell on the desktop ---------------------------------


def _shell(script: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script, "bash", *DESKHAND], check=False, capture_output=True, text=True, timeout=120, env=env
    )


_BROWSERS = {
    # Debian's root flags only: no accessibility flag, the desktop's exports must be enough.
    "chromium": "chromium --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
    "--disable-component-update --disable-sync --user-data-dir={profile} about:blank",
    "firefox-esr": "firefox-esr --no-remote --profile {profile} about:blank",
}


def _started_from_a_shell(command: str) -> tuple[DesktopState, str]:
    """A desktop started by ``eval "$(deskhand desktop start)"`` in a shell that then starts
    ``command`` in the background: the desktop's state and the command's pid."""
    script = (
        'eval "$("$@" desktop start --no-wm)" || exit 1\n'
        'echo "$DESKHAND_DESKTOP_ID"\n'
        f"{command} >/dev/null 2>&1 &\n"
        "echo $!\n"
    )
    done = _shell(script)
    assert done.returncode == 0, done.stderr
    desktop_id, pid = done.stdout.split()
    state = find_state(desktop_id)
    assert state is not None
    return state, pid


@pytest.mark.parametrize("browser", sorted(_BROWSERS))
def test_a_browser_started_from_a_shell_on_the_desktop_registers_on_the_bus(browser: str) -> None:
    if shutil.which(browser) is None:
        pytest.skip(f"{browser} is not installed")
    profile = tempfile.mkdtemp(prefix="dh-browser-")
    state, pid = _started_from_a_shell(_BROWSERS[browser].format(profile=profile))
    try:
        with A11yBus(state.env["AT_SPI_BUS_ADDRESS"]) as bus:
            found = bus.wait_for_pid(int(pid), timeout_s=60)
        assert browser.split("-", maxsplit=1)[0] in found.name.lower()
    finally:
        teardown(state)
        shutil.rmtree(profile, ignore_errors=True)
    # Ended by teardown itself: by the marker sweep, or, when the browser has rewritten the memory
    # that /proc/<pid>/environ shows (Chromium reuses it for its process title), as a client of
    # the desktop's X server.
    assert not _procs.alive(int(pid)), f"{browser} ({pid}) outlived its desktop"


def test_an_x_client_without_the_marker_started_from_a_shell_ends_with_its_desktop() -> None:
    # A detached X client whose environment lost the marker (as Chromium's does once it rewrites
    # its process title) and that is in no group of the desktop: only the X server knows it.
    client = "import time; from Xlib import display; d = display.Display(); d.sync(); time.sleep(600)"
    state, pid = _started_from_a_shell(f"env -u {_procs.MARKER_ENV} setsid {sys.executable} -c '{client}'")
    try:
        deadline = time.monotonic() + DEADLINE_S
        while int(pid) not in _xclients.client_pids(state.env["DISPLAY"], state.env["XAUTHORITY"]):
            assert _procs.alive(int(pid)), "the X client died before it connected"
            assert time.monotonic() < deadline, "the X client never connected"
            time.sleep(0.05)  # polling the X server's client list with a deadline
        assert int(pid) not in _procs.marked_pids(state.id)
    finally:
        teardown(state)
    assert not _procs.alive(int(pid))


def test_the_users_policy_file_still_applies_on_the_desktop(tmp_path: Path) -> None:
    policy = tmp_path / ".config" / "deskhand" / "policy.toml"
    policy.parent.mkdir(parents=True)
    policy.write_text('[deny]\napps = ["mousepad"]\n')
    probe = "from deskhand.host.policy import AppPolicy; print('mousepad' in AppPolicy.load().denied)"
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "DESKHAND_POLICY")}
    env["HOME"] = str(tmp_path)
    script = (
        'eval "$("$@" desktop start --no-wm)" || exit 1\n'
        f'{sys.executable} -c "{probe}"\n'
        '"$@" desktop run --no-wm -- ' + f'{sys.executable} -c "{probe}"\n'
        '"$@" desktop stop "$DESKHAND_DESKTOP_ID" >/dev/null\n'
    )
    done = _shell(script, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
