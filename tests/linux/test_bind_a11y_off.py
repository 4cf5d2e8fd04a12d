"""An app whose toolkit has accessibility but runs with it off binds screenshot-only: its state is
the App= and Window: lines, and its notice names its toolkit and the exact fix (GTK 3 under
``NO_AT_BRIDGE=1``); the screenshot is of its window."""

from __future__ import annotations

from typing import Any

import pytest
from _act_support import poll

from deskhand.backends.linux import procfs
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop


def test_gtk_app_with_accessibility_off_binds_screenshot_only_with_the_gtk_fix(launch: Any, ex: LinuxExecutor) -> None:
    app = launch.gtk_fixture(env={"NO_AT_BRIDGE": "1"}, wait_on_bus=False)
    app.events.wait_for("ready", timeout_s=20.0)
    target = poll(lambda: _bound(ex, app.pid), timeout_s=10.0, what="the GTK fixture's window")
    assert procfs.toolkit(app.pid) == "gtk3"
    state = ex.get_app_state(target)
    lines = state.text.split("\n")
    assert lines[0] == f"App={target.identity.app_id} (pid {app.pid})" and lines[1].startswith("Window: ")
    assert not any(line.lstrip("\t").startswith("g1:") for line in lines), state.text
    assert state.image is not None and state.image.width > 0
    notice = next(line for line in lines if line.startswith("Notice: this app is not on the accessibility bus"))
    assert "GTK 3" in notice and "NO_AT_BRIDGE=1" in notice and "IsEnabled=true" in notice
    assert "QT_ACCESSIBILITY" not in notice


def _bound(ex: LinuxExecutor, pid: int) -> Any:
    try:
        target = ex.resolve(str(pid))
    except NativeError:
        return None
    return target if ex.key_window(target) is not None else None
