"""LibreOffice's display name follows its windows: bound by pid while only the Start Center is
open, the app is named after it; once the Start Center has made a Writer document (its window
replaces the Start Center's), the same pid resolves to "LibreOffice Writer", in the binding and
in the state's header."""

from __future__ import annotations

import re
import time

import pytest
from _apps import Apps, need
from _display import MatrixExecutor
from _observe import handle, state_with

from deskhand.core.errors import NativeError

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]


@pytest.mark.matrix("LibreOffice Writer", "display name")
def test_the_display_name_follows_the_start_center_to_writer(apps: Apps, mex: MatrixExecutor) -> None:
    profile = apps.tmp / "lo-profile-names"
    apps.run(
        [need("soffice"), "--norestore", "--nologo", "--nolockcheck", f"-env:UserInstallation={profile.as_uri()}"],
        "soffice-start",
        env={"SAL_USE_VCLPLUGIN": "gtk3"},
        timeout_s=90.0,
    )
    # A fresh profile makes LibreOffice restart once: bind the soffice.bin that shows the Start Center.
    deadline = time.monotonic() + 60
    while True:
        try:
            app = mex.resolve("soffice.bin")
            state = mex.get_app_state(app, disable_diff=True).text
            if re.search(r"push button Create Writer Document|push button Writer Document", state):
                break
        except NativeError:
            pass
        assert time.monotonic() < deadline, "the Start Center never showed"
        time.sleep(0.2)  # polling the app with a deadline
    pid = str(app.pid)
    start_name = mex.resolve(pid).display_name
    assert start_name != "LibreOffice Writer", start_name
    assert f"App: {start_name}." in state, state
    mex.click(app, element=handle(state, r"push button (Create )?Writer Document"))
    deadline = time.monotonic() + 60
    while (app := mex.resolve(pid)).display_name != "LibreOffice Writer":
        assert time.monotonic() < deadline, app.display_name
        time.sleep(0.2)  # polling the binding with a deadline
    state = state_with(mex, app, r"^Window: \"Untitled 1 - LibreOffice Writer\", App: LibreOffice Writer\.$")
    assert "Start Center" not in state.splitlines()[1], state
