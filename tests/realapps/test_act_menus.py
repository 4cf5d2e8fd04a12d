"""Menus clicked by handle in KCalc (Qt 5): a menu-bar item opens its menu, and an activated menu
item closes it and does what it says, each checked in KCalc's own accessibility tree (issue 12
item 8; the real click of menus on screen is ``backends/linux/act/clicks.py``)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from test_act_browsers import desktop, ex, home, poll  # noqa: F401 - the module's fixtures

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.desktop import VirtualDesktop

pytestmark = pytest.mark.desktop


@pytest.fixture(scope="module")
def kcalc(desktop: VirtualDesktop, ex: LinuxExecutor, tmp_path_factory: Any) -> Iterator[RunningApp]:  # noqa: F811
    binary = shutil.which("kcalc")
    if binary is None:
        pytest.skip("kcalc is not installed")
    tmp = tmp_path_factory.mktemp("kcalc")
    proc = desktop.launch([binary], env=home(tmp), log_path=tmp / "kcalc.log")

    def ready() -> RunningApp | None:
        try:
            app = ex.resolve(str(proc.pid))
            return app if ex.key_window(app) and "menu bar" in _state(ex, app) else None
        except Exception:
            return None

    try:
        yield poll(ready, 40.0, "KCalc with its menu bar on the bus")
    finally:
        proc.stop()


def _state(ex: LinuxExecutor, app: RunningApp) -> str:  # noqa: F811
    return ex.get_app_state(app, disable_diff=True).text


def _handle(text: str, pattern: str) -> str | None:
    m = re.search(rf"(g\d+:\d+) {pattern}", text)
    return m.group(1) if m else None


@pytest.mark.matrix("KCalc", "menus")
def test_a_menu_bar_item_opens_and_a_menu_item_closes_its_menu(ex: LinuxExecutor, kcalc: RunningApp) -> None:  # noqa: F811
    app = kcalc
    text = _state(ex, app)
    assert "check box Hyp" not in text  # simple mode: no scientific keys yet
    settings = _handle(text, r"menu item Settings\b")
    assert settings is not None, text
    got = ex.click(app, element=settings)
    opened = poll(lambda: _handle(_state(ex, app), r"menu item Science Mode\b"), 10.0, "the Settings menu open")
    assert "popup menu" in _state(ex, app)
    assert got.structured["route"] == "synthetic", got
    ex.click(app, element=opened)
    poll(lambda: "popup menu" not in (t := _state(ex, app)) and "check box Hyp" in t, 10.0, "menu closed, science keys")
