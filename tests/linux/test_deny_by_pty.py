"""A terminal is denied by what it is, not by what it is called: a copy of xterm under another
name holds a pseudo-terminal master, so typing into it is refused before anything is sent, and the
shell inside it never receives a key (its own file stays empty)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _act_support import poll
from test_e2e_js import run_cells

from deskhand.backends.linux import procfs

pytestmark = pytest.mark.desktop


@pytest.mark.skipif(shutil.which("xterm") is None, reason="xterm is not installed")
def test_a_renamed_xterm_is_a_terminal_and_gets_no_keys(launch, desktop, ex, tmp_path: Path):
    copy = tmp_path / "notaterm"
    shutil.copy2(shutil.which("xterm") or "", copy)
    received = tmp_path / "received.txt"
    received.write_text("")
    app = launch([str(copy), "-e", "sh", "-c", f"cat > {received}"], wait_on_bus=False)
    bound = poll(lambda: _resolved(ex, app.pid), what="the copy's window")
    assert bound.identity.app_id == "notaterm"  # no name on the deny list
    assert bound.holds_terminal and procfs.holds_pty_master(app.pid)

    [result] = run_cells(desktop.env, [f"await cua.computer.type_text({{app: '{app.pid}', text: 'id\\n'}});"])
    assert result.is_error and "not allowed" in result.text
    assert result.structured["nativeCallsRejectedBeforeDispatch"] == 1
    assert result.structured["nativeResultUnknown"] is False
    assert received.read_text() == ""


def _resolved(ex, pid: int):
    try:
        app = ex.resolve(str(pid))
    except Exception:
        return None
    return app if app.pid == pid else None
