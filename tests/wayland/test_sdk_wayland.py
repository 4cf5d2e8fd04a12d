"""``Computer.virtual(wayland=True, compositor=...)``: the SDK binds apps native on a headless sway,
KWin or GNOME Shell, observes them through AT-SPI and the compositor's capture and acts through the
session's pointer and keyboard. Judged from the app's side: Mousepad's text through AT-SPI, the GTK
fixture's event log."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from _wl_support import COMPOSITORS, compositor_missing

from deskhand import Computer
from desktop_support import APPS_DIR, SYSTEM_PYTHON, EventLog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "linux"))
from _act_support import mousepad_env

#: What each compositor can type: KWin's fake input types with the session's layout (us here);
#: GNOME commits text the layout lacks through the shell's input method.
WIDE = {
    "sway": ("Hello Wayland ✓ Grüße", "wayland ✓"),
    "kwin": ("Hello Wayland (1+1=2)", "wayland #2"),
    "gnome": ("Hello Wayland ✓ Grüße", "wayland ✓"),
}


@pytest.fixture(params=COMPOSITORS)
def compositor(request: pytest.FixtureRequest) -> str:
    reason = compositor_missing(request.param)
    if reason is not None:
        pytest.skip(reason)
    return str(request.param)


def _doc_text(state: str) -> str | None:
    found = re.search(r"text \(settable, string\) Value: (.*)", state)
    return found.group(1) if found else None


def test_mousepad_on_wayland_types_and_the_tree_shows_it(tmp_path: Path, compositor: str) -> None:
    with Computer.virtual(wayland=True, compositor=compositor, size="1280x800x24") as computer:
        pid = computer.launch(["mousepad"], env=mousepad_env(tmp_path))
        assert any(a["isRunning"] for a in computer.list_apps())
        app = computer.get_app(str(pid))
        state = app.get_ax_state(disable_diffing=True)
        doc = re.search(r"(g\d+:\d+) text \(settable", state)
        assert doc, state
        app.click(doc.group(1))
        app.type_text(WIDE[compositor][0])
        app.press_key("Return")
        app.type_text("second line")
        app.press_key("ctrl+Home shift+End")
        app.type_text("First")
        deadline = time.monotonic() + 10.0
        while (text := _doc_text(app.get_ax_state(disable_diffing=True))) != "First\\nsecond line":
            assert time.monotonic() < deadline, text
        image = app.get_screenshot()
        assert image[:3] == b"\xff\xd8\xff"
        app.select_text(doc.group(1), "second")  # AT-SPI, as on X11
        app.paste("pasted ✓")  # the clipboard transaction through data-control
        deadline = time.monotonic() + 10.0
        while (text := _doc_text(app.get_ax_state(disable_diffing=True))) != "First\\npasted ✓ line":
            assert time.monotonic() < deadline, text
    assert computer.desktop is not None and not computer.desktop.running


def test_clicks_land_at_the_observed_elements_and_keys_reach_the_fixture(tmp_path: Path, compositor: str) -> None:
    events = EventLog(tmp_path / "events.jsonl")
    with Computer.virtual(wayland=True, compositor=compositor, size="1280x800x24") as computer:
        pid = computer.launch(
            [SYSTEM_PYTHON, str(APPS_DIR / "gtk_fixture.py")], env={"DESKHAND_EVENT_LOG": str(events.path)}
        )
        events.wait_for("ready")
        app = computer.get_app(str(pid))
        state = app.get_ax_state(disable_diffing=True)
        apply = re.search(r"(g\d+:\d+) push button Apply", state)
        name = re.search(r"(g\d+:\d+) text \(settable, string\) Name$", state, re.MULTILINE)
        assert apply and name, state
        app.click(apply.group(1))
        events.wait_for("clicked", name="Apply")
        app.click(name.group(1))
        events.wait_for("focus", name="Name")
        app.type_text(WIDE[compositor][1])
        events.wait_for("text", name="Name", text=WIDE[compositor][1])
        app.press_key("ctrl+a BackSpace")
        events.wait_for("text", name="Name", text="")
