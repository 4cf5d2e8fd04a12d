"""An observation that first waits for the app to change (``waitForChangeMs``, a deskhand
addition): a clock that redraws every second is seen changing, its screenshot differs from the
previous one; an idle canvas is not, and the wait ends at its bound."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from _act_support import poll
from test_e2e_js import run_cells

from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop

APPS_DIR = Path(__file__).resolve().parents[1] / "apps"
SYSTEM_PYTHON = "/usr/bin/python3"
CHANGED = re.compile(r"^Notice: the app changed after (\d+) ms of waiting", re.M)
UNCHANGED = re.compile(r"^Notice: the app did not change within (\d+) ms of waiting\.$", re.M)


def _bound(ex, pid: int):
    def ready():
        try:
            app = ex.resolve(str(pid))
        except NativeError:
            return None
        return app if ex.key_window(app) is not None else None

    return poll(ready, timeout_s=10.0, what=f"pid {pid}'s window")


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
