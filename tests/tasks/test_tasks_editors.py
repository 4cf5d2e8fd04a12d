"""Saves through dialogs: Mousepad and gedit write a typed text under a new name with Save As,
checked from the file on disk."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _agent import Agent, js, need

from realapps._apps import Apps
from realapps._apps import need as need_binary

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

TEXT = "Shopping list\nmilk\nbread"
#: The file name field of a GTK 3 file chooser (named or not).
NAME_FIELD = r"text (?:\(focused\) )?(?:\(settable, string\) )?(?:Name)?"


def wait_file(path: Path, text: str, timeout_s: float = 15.0) -> str:
    deadline = time.monotonic() + timeout_s
    while True:
        got = path.read_text() if path.exists() else None
        if got is not None and got.rstrip("\n") == text:
            return got
        assert time.monotonic() < deadline, f"{path}: {got!r}"
        time.sleep(0.1)  # polling the saved file with a deadline


def save_as(agent: Agent, pid: int, target: Path, shortcut: str) -> None:
    """Type the text, open Save As by its shortcut (observing the dialog it opens), then type the
    path into its name field and press Return, in one cell."""
    agent.act(pid, lambda _s: f"await app.typeText({js(TEXT)}); await app.pressKey({js(shortcut)});").expect_ok()
    dialog = agent.until(pid, r"Window: .*Save As")
    agent.act(
        pid,
        lambda s: (
            f"await app.click({js(need(s, NAME_FIELD))}); await app.pressKey('ctrl+a');"
            f"await app.typeText({js(str(target))}); await app.pressKey('Return');"
        ),
    ).expect_ok()
    assert "Save As" in dialog


@pytest.mark.task("Mousepad")
def test_mousepad_save_as_writes_the_typed_text(apps: Apps, agent: Agent, tmp_path: Path) -> None:
    target = tmp_path / "list.txt"
    pid = apps.mousepad().pid
    agent.bind(pid)
    save_as(agent, pid, target, "ctrl+shift+s")
    wait_file(target, TEXT)


@pytest.mark.task("gedit")
def test_gedit_save_as_writes_the_typed_text(apps: Apps, agent: Agent, tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    pid = apps.run([need_binary("gedit"), "--standalone"], "gedit").pid
    agent.bind(pid)
    save_as(agent, pid, target, "ctrl+shift+s")
    wait_file(target, TEXT)
