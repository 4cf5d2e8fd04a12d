"""An observation that first waits for the app to change (``waitForChangeMs``, a deskhand
addition): a clock that redraws every second is seen changing, its screenshot differs from the
previous one; an idle canvas is not, and the wait ends at its bound. Those two are X11 apps (xclock,
Tk). On X11 and on sway: a value another client sets during the wait ends it, and an idle GTK
fixture does not (on Wayland only the app's accessibility events count, which the notice says).
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path

import pytest
from _act_support import bind, executor_for, poll
from test_e2e_js import run_cells

from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop

APPS_DIR = Path(__file__).resolve().parents[1] / "apps"
SYSTEM_PYTHON = "/usr/bin/python3"
CHANGED = re.compile(r"^Notice: the app changed after (\d+) ms of waiting", re.M)
IDLE = re.compile(r"^Notice: the app did not change within (\d+) ms of waiting\.", re.M)
UNCHANGED = re.compile(r"^Notice: the app did not change within (\d+) ms of waiting\.$", re.M)


def _bound(ex, pid: int):
    def ready():
        try:
            app = ex.resolve(str(pid))
        except NativeError:
            return None
        return app if ex.key_window(app) is not None else None

    return poll(ready, timeout_s=10.0, what=f"pid {pid}'s window")


@pytest.mark.displays("x11", "sway", "kwin")
def test_a_change_another_client_makes_during_the_wait_ends_it(launch, desktop, ex):
    fx = launch.gtk_fixture()
    fx.events.wait_for("ready")
    other = executor_for(desktop)
    try:
        theirs = bind(other, fx.pid)
        bound = bind(ex, fx.pid)  # observed after the other client's look
        name = bound.handle(r"text \(settable, string\) Name")
        _idle(ex, bound.app)
        # while the observation waits (or just before it: a change after the last observation
        # counts all the same), another client sets the entry
        change = threading.Timer(0.3, other.set_value, (theirs.app, name, "set meanwhile"))
        change.start()
        start = time.monotonic()
        state = ex.get_app_state(bound.app, wait_for_change_s=10.0)
        waited = time.monotonic() - start
        change.join()
    finally:
        other.close()
    m = CHANGED.search(state.text)
    assert m, state.text
    assert "Value: set meanwhile" in state.text and waited < 10.0  # it ended on the change, not the bound
    assert desktop.wayland == ("only the app's accessibility events count" in state.text)


@pytest.mark.displays("x11", "sway", "kwin")
def test_an_idle_app_does_not_change_and_the_wait_ends_at_its_bound(launch, ex):
    fx = launch.gtk_fixture()
    fx.events.wait_for("ready")
    bound = bind(ex, fx.pid)
    assert _idle(ex, bound.app) >= 400


def _idle(ex, app) -> int:
    """Observe until the wait of one ends at its 400 ms bound (an app just started may still
    announce things, such as its window's activation; left alone, it goes quiet); the ms waited."""

    def idle() -> re.Match[str] | None:
        return IDLE.search(ex.get_app_state(app, wait_for_change_s=0.4).text)

    return int(poll(idle, timeout_s=10.0, what="an observation whose wait ended at its bound").group(1))


def test_a_redrawing_clock_is_seen_changing(launch, ex):
    path = shutil.which("xclock")
    if path is None:
        pytest.skip("xclock is not installed (x11-apps)")
    clock = launch([path, "-digital", "-update", "1"], wait_on_bus=False)
    app = _bound(ex, clock.pid)
    before = ex.get_app_state(app)
    start = time.monotonic()
    after = ex.get_app_state(app, wait_for_change_s=5.0)
    waited = time.monotonic() - start
    m = CHANGED.search(after.text)
    assert m, after.text
    assert int(m.group(1)) <= waited * 1000 + 1 and waited < 5.0  # it ended on the change, not the bound
    assert before.image is not None and after.image is not None and after.image.data != before.image.data


def test_an_idle_canvas_does_not_change_and_the_wait_ends_at_its_bound(launch, desktop, ex):
    if not Path(SYSTEM_PYTHON).exists():
        pytest.skip(f"{SYSTEM_PYTHON} (with python3-tk) is missing")
    tk = launch([SYSTEM_PYTHON, str(APPS_DIR / "tk_canvas.py")], wait_on_bus=False)
    tk.events.wait_for("ready", timeout_s=20.0)
    _bound(ex, tk.pid)
    # through a js cell: the option reaches the native call and the notice reaches the model
    cell = f'const app = await cua.getApp("{tk.pid}"); await app.getAXState({{waitForChangeMs: 400}});'
    (result,) = run_cells(desktop.env, [cell])
    assert not result.is_error, result.text
    m = UNCHANGED.search(result.text)
    assert m, result.text
    assert int(m.group(1)) >= 400
