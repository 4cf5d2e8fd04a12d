"""The Python SDK performs the demo task on Mousepad in its own private desktop (X11, or with
``wayland=True`` a headless sway), and drives the desktop the environment names; on X11 and on sway."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _act_support import mousepad_env

from deskhand import Computer
from deskhand.core.errors import ArgumentError, NativeError

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin")]


def test_sdk_does_the_demo_task_on_mousepad(tmp_path: Path, display: str):
    with Computer.virtual(wayland=display == "sway") as computer:
        assert computer.get_platform() == "linux"
        pid = computer.launch(["mousepad"], env=mousepad_env(tmp_path))
        apps = computer.list_apps()
        assert any(a["id"] == "org.xfce.mousepad" and a["isRunning"] for a in apps)
        app = computer.get_app(str(pid))

        app.paste("# Groceries\n\n- **apples** and pears\n- bread\n", format="md")
        state = app.get_ax_state(disable_diffing=True)
        doc = re.search(r"(g\d+:\d+) text \(settable", state)
        assert doc, state
        app.select_text(doc.group(1), "pears", prefix="and ")
        app.type_text("plums")
        app.press_key("ctrl+End")
        app.type_text("- milk ✓ (Grüße)\n")
        diff = app.get_ax_state()
        # exactly one changed line: the document's value
        diff_lines = [line for line in diff.splitlines() if line[:1] in ("~", "+", "-")]
        assert diff_lines == [
            "~\t\t\t\tg1:5 text (settable, string) Value: # Groceries\\n\\n- **apples** and plums\\n- bread\\n"
            "- milk ✓ (Grüße)\\n"
        ], diff
        image = app.get_screenshot()
        assert image[:3] == b"\xff\xd8\xff"

        # Typed errors, refused before anything is dispatched.
        with pytest.raises(ArgumentError, match="direction must be up, down, left, or right"):
            app.scroll([1, 1], "sideways")
        with pytest.raises(NativeError) as err:
            app.select_text(doc.group(1), "bananas")
        assert err.value.code == "text_not_found"
    assert computer.desktop is not None and not computer.desktop.running


def test_create_operates_the_desktop_the_environment_names(launch, desktop, monkeypatch):
    """``Computer.create()`` on an existing display: no desktop of its own; the app launched there is driven."""
    app = launch.gtk_fixture()
    app.events.wait_for("ready")
    for key, value in desktop.env.items():
        monkeypatch.setenv(key, value)
    if desktop.wayland:  # a Wayland session without XWayland
        monkeypatch.delenv("DISPLAY", raising=False)
    with Computer.create() as computer:
        assert computer.desktop is None  # it started nothing
        bound = computer.get_app(str(app.pid))
        state = bound.get_ax_state(disable_diffing=True)
        app_id = re.search(r"App=(\S+)", state)
        assert app_id, state
        assert {"id": app_id.group(1), "isRunning": True}.items() <= next(
            a for a in computer.list_apps() if a["id"] == app_id.group(1)
        ).items()
        apply = re.search(r"(g\d+:\d+) push button Apply", state)
        assert apply, state
        bound.click(apply.group(1))
        app.events.wait_for("clicked", name="Apply")
