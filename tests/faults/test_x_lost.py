"""The X server goes away and comes back (issue 14 item 5).

A private desktop of its own (the session's other tests keep theirs): its Xvfb is killed, calls
get one plain error that says what to do (no python-xlib text), then a new Xvfb is started on the
same display with the same cookie, and the same executor works again: it lists apps and observes
and clicks a fixture app started on the new server (checked in the app's own log), nothing held.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

import pytest
from _act_support import bind, nothing_held, poll

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core import deadline
from deskhand.core.errors import DeskhandError
from deskhand.desktop import VirtualDesktop
from proc_support import alive

pytestmark = pytest.mark.desktop

#: A call's deadline, and the contract's bound past it.
TIMEOUT_S, OVERRUN_S = 2.0, 0.5
APPS = os.path.join(os.path.dirname(__file__), "..", "apps")


def _xvfb_pid(vd: VirtualDesktop) -> int:
    state = vd._state
    assert state is not None
    return next(p.pid for p in state.processes if p.role == "xvfb")


def _plain(err: DeskhandError, display: str) -> None:
    assert f"The X server at {display} went away" in err.message
    assert "deskhand desktop start" in err.message
    assert "Display connection" not in err.message and "Broken pipe" not in err.message


def test_a_lost_x_server_is_said_plainly_and_the_executor_comes_back(tmp_path):
    vd = VirtualDesktop()
    vd.start()
    display = f":{vd.display}"
    ex = LinuxExecutor(display=display, a11y_address=vd.env["AT_SPI_BUS_ADDRESS"])
    again: subprocess.Popen[bytes] | None = None
    try:
        assert isinstance(ex.list_apps(), list)
        pid = _xvfb_pid(vd)
        os.kill(pid, signal.SIGKILL)
        poll(lambda: not alive(pid), 10.0, "the X server gone")
        for _ in range(2):  # every call while it is gone: the same plain words, typed, within its deadline
            t0 = time.monotonic()
            with deadline.within(TIMEOUT_S), pytest.raises(DeskhandError) as info:
                ex.list_apps()
            overrun = time.monotonic() - t0 - TIMEOUT_S
            print(f"a call with the X server gone: overrun past its deadline {overrun:.3f} s")
            assert overrun <= OVERRUN_S
            _plain(info.value, display)
        # a new X server on the same display, with the desktop's cookie
        again = subprocess.Popen(
            ["Xvfb", display, "-screen", "0", f"{vd.width}x{vd.height}x{vd.depth}", "-nolisten", "tcp",
             "-auth", str(vd.runtime_dir / "xserver.auth"), "-noreset"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        poll(lambda: _lists(ex), 10.0, "the executor lists apps again")
        env = {"DESKHAND_EVENT_LOG": str(tmp_path / "events.jsonl")}
        app = vd.launch(["/usr/bin/python3", os.path.join(APPS, "gtk_fixture.py")], env=env,
                        log_path=tmp_path / "app.log")  # fmt: skip
        poll(lambda: '"ready"' in _read(tmp_path / "events.jsonl"), 30.0, "the fixture on the new server")
        bound = bind(ex, app.pid)
        since = time.time()
        ex.click(bound.app, element=bound.handle(r"push button Apply"))
        poll(lambda: '"clicked"' in _read(tmp_path / "events.jsonl"), 10.0, "the click in the app's log")
        assert since > 0
        assert nothing_held(vd) == ((), set())
    finally:
        with contextlib.suppress(Exception):  # its X server may be the dead one
            ex.close()
        vd.stop()
        if again is not None:
            again.kill()
            again.wait()


def _lists(ex: LinuxExecutor) -> bool:
    try:
        ex.list_apps()
    except DeskhandError:
        return False
    return True


def _read(path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""
