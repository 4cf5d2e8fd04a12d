"""An app whose toolkit has accessibility but runs with it off does not bind as a screenshot-only
app: the error names its toolkit and the fix (GTK 3 under ``NO_AT_BRIDGE=1``)."""

from __future__ import annotations

from typing import Any

import pytest
from _act_support import poll

from deskhand.backends.linux import procfs
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop


def test_gtk_app_with_accessibility_off_gets_the_gtk_fix(launch: Any, ex: LinuxExecutor) -> None:
    app = launch.gtk_fixture(env={"NO_AT_BRIDGE": "1"}, wait_on_bus=False)
    app.events.wait_for("ready", timeout_s=20.0)
    target = poll(lambda: _bound(ex, app.pid), timeout_s=10.0, what="the GTK fixture's window")
    assert procfs.toolkit(app.pid) == "gtk3"
    with pytest.raises(NativeError) as err:
        ex.get_app_state(target)
    assert err.value.code == "ax_failed"
    message = err.value.message
    assert f"(pid {app.pid}) is not on the accessibility bus" in message
    assert "GTK 3" in message and "NO_AT_BRIDGE=1" in message and "IsEnabled=true" in message
    assert "QT_ACCESSIBILITY" not in message


def _bound(ex: LinuxExecutor, pid: int) -> Any:
    try:
        target = ex.resolve(str(pid))
    except NativeError:
        return None
    return target if ex.key_window(target) is not None else None
