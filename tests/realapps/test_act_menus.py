"""Menus clicked by handle in KCalc (Qt 5): a menu-bar item opens its menu, and an activated menu
item closes it and does what it says, each checked in KCalc's own accessibility tree (issue 12
item 8; the real click of menus on screen is ``backends/linux/act/clicks.py``), on X11 and on
sway (natively on Wayland there)."""

from __future__ import annotations

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import handle, state_with

from deskhand.backends.base import RunningApp

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]


@pytest.fixture(scope="module")
def kcalc(apps: Apps, mex: MatrixExecutor) -> RunningApp:
    app = mex.resolve(str(apps.kcalc().pid))
    state_with(mex, app, r"menu item Settings\b")
    return app


@pytest.mark.matrix("KCalc", "menus")
def test_a_menu_bar_item_opens_and_a_menu_item_closes_its_menu(mex: MatrixExecutor, kcalc: RunningApp) -> None:
    app = kcalc
    text = state_with(mex, app, r"menu item Settings\b")
    assert "check box Hyp" not in text  # simple mode: no scientific keys yet
    got = mex.click(app, element=handle(text, r"menu item Settings\b"))
    text = state_with(mex, app, r"menu item Science Mode\b", timeout_s=10.0)
    assert "popup menu" in text, text
    assert got.structured["route"] == "synthetic", got
    mex.click(app, element=handle(text, r"menu item Science Mode\b"))
    state_with(mex, app, r"\A(?![\s\S]*popup menu)[\s\S]*check box Hyp", timeout_s=10.0)  # closed, science keys
