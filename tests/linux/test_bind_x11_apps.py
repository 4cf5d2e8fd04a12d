"""xeyes and xclock (x11-apps): no accessibility, no ``_NET_WM_PID``, no keyboard focus.

They are found through X-Resource, bind by pid, class, title and executable, give a
screenshot-only state, take drags (xeyes's pupils follow the pointer, so its capture changes;
the X server says where the pointer is and that no button stays held), and refuse keys before
anything is posted.
"""

from __future__ import annotations

import hashlib
import shutil
from typing import Any

import pytest
from _act_support import poll
from Xlib import X
from Xlib import display as xdisplay

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.x11 import ownership
from deskhand.core.axtree.notices import NO_ACCESSIBILITY
from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop

BUTTONS = X.Button1Mask | X.Button2Mask | X.Button3Mask | X.Button4Mask | X.Button5Mask


def _start(launch: Any, ex: LinuxExecutor, cmd: str) -> Any:
    path = shutil.which(cmd)
    if path is None:
        pytest.skip(f"{cmd} is not installed (x11-apps)")
    app = launch([path], wait_on_bus=False)
    poll(lambda: _mapped(ex, app.pid), timeout_s=10.0, what=f"{cmd}'s window")
    return app


def _mapped(ex: LinuxExecutor, pid: int) -> bool:
    try:
        app = ex.resolve(str(pid))
    except NativeError:
        return False
    key = ex.key_window(app)
    return key is not None and key.client.width > 50


def _digest(ex: LinuxExecutor, app: Any) -> str:
    state = ex.get_app_state(app)
    assert state.image is not None
    return hashlib.sha256(state.image.data).hexdigest()


def _pointer(display_name: str) -> tuple[int, int, int, list[int]]:
    """Root position, button mask and the window chain under the pointer, from the X server."""
    d = xdisplay.Display(display_name)
    try:
        win = d.screen().root
        reply = win.query_pointer()
        x, y, mask = reply.root_x, reply.root_y, reply.mask
        chain = []
        while reply.child:
            chain.append(int(reply.child.id))
            reply = reply.child.query_pointer()
        return x, y, mask, chain
    finally:
        d.close()


def test_xeyes_binds_by_what_a_user_knows_and_follows_a_drag(launch: Any, desktop: Any, ex: LinuxExecutor) -> None:
    eyes = _start(launch, ex, "xeyes")
    app = ex.resolve(str(eyes.pid))
    key = ex.key_window(app)
    assert key is not None
    assert ex.x.property(ex.x.window(key.id), "_NET_WM_PID") is None  # the pid came from X-Resource
    assert ownership.window_pid(ex.x, key.id) == eyes.pid
    for selector in ("xeyes", "XEyes", shutil.which("xeyes") or "", "XEYES"):
        assert ex.resolve(selector).pid == eyes.pid
    assert any(a.pid == eyes.pid and a.is_running for a in ex.list_apps())
    state = ex.get_app_state(app)
    assert state.text.startswith(f"App=xeyes (pid {eyes.pid})\nWindow: ")
    assert state.text.rstrip().endswith(NO_ACCESSIBILITY)
    assert state.image is not None and state.image.width > 50
    # xeyes's window is shaped to its two eyes: aim at the eyes' centres (a quarter and three
    # quarters across its client area, half way down), where the window really is.
    t = ex.transform(app)
    assert t is not None

    def at(fx: float, fy: float) -> tuple[float, float]:
        c = key.client
        return (
            (c.x + c.width * fx - t.origin_x) * t.pixels_per_point,
            (c.y + c.height * fy - t.origin_y) * t.pixels_per_point,
        )

    ex.drag(app, at(0.25, 0.5), at(0.27, 0.4))
    before = _digest(ex, app)
    result = ex.drag(app, at(0.23, 0.55), at(0.75, 0.5))
    end = result.structured["to"]
    x, y, mask, chain = _pointer(desktop.env["DISPLAY"])
    assert (x, y) == (round(end[0]), round(end[1])) and mask & BUTTONS == 0
    assert ex.key_window(app).id in chain  # the pointer is over xeyes's window
    poll(lambda: _digest(ex, app) != before, timeout_s=5.0, what="xeyes's pupils to follow the drag")
    with pytest.raises(NativeError) as err:
        ex.press_key(app, "a")
    assert err.value.code == "feature_unavailable" and err.value.dispatched is False


def test_xclock_binds_captures_and_takes_a_drag(launch: Any, desktop: Any, ex: LinuxExecutor) -> None:
    clock = _start(launch, ex, "xclock")
    app = ex.resolve("XClock")
    assert app.pid == clock.pid
    assert ex.resolve("xclock").pid == clock.pid
    state = ex.get_app_state(app)
    assert f"(pid {clock.pid})" in state.text and NO_ACCESSIBILITY in state.text
    assert state.image is not None
    w, h = state.image.width, state.image.height
    result = ex.drag(app, (w * 0.3, h * 0.5), (w * 0.7, h * 0.6))
    assert result.structured["events"] == 5
    x, y, mask, chain = _pointer(desktop.env["DISPLAY"])
    assert (x, y) == tuple(round(v) for v in result.structured["to"]) and mask & BUTTONS == 0
    assert ex.key_window(app).id in chain
    with pytest.raises(NativeError) as err:
        ex.type_text(app, "x")
    assert err.value.code == "feature_unavailable" and err.value.dispatched is False
