"""Calculator tasks: galculator by its buttons, gnome-calculator by typing an expression; the
result is read from the app's own accessibility tree by an executor of the checker's own (not
the agent's session)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from _agent import Agent, js, need

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.desktop import VirtualDesktop
from realapps._apps import Apps

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]
Checker = LinuxExecutor | WaylandExecutor


@pytest.fixture(scope="module")
def ex(display_desktop: VirtualDesktop) -> Iterator[Checker]:
    """The checker's own executor on the display server the task runs on."""
    env = display_desktop.env
    checker: Checker = (
        WaylandExecutor(env)
        if display_desktop.wayland
        else LinuxExecutor(display=env["DISPLAY"], a11y_address=env["AT_SPI_BUS_ADDRESS"])
    )
    try:
        yield checker
    finally:
        checker.close()


def shows(ex: Checker, pid: int, pattern: str, timeout_s: float = 10.0) -> str:
    """The app's tree, read by the checker, once ``pattern`` is in it."""
    app = ex.resolve(str(pid))
    deadline = time.monotonic() + timeout_s
    while True:
        text = ex.get_app_state(app, disable_diff=True).text
        if re.search(pattern, text, re.M):
            return text
        assert time.monotonic() < deadline, f"{pattern!r} not in:\n{text}"
        time.sleep(0.1)  # polling the app's display with a deadline


@pytest.mark.task("galculator")
def test_galculator_multiplies_by_its_buttons(apps: Apps, agent: Agent, ex: Checker) -> None:
    pid = apps.galculator().pid
    agent.bind(pid)

    def press(state: str) -> str:
        # digits by their names, the operators by what their descriptions say they do
        keys = [r"1, Description", r"2, Description", r"\S+, Description: Multiply", r"7, Description", r"=, "]
        return "".join(f"await app.click({js(need(state, 'toggle button ' + k))});" for k in keys)

    agent.act(pid, press).expect_ok()
    shows(ex, pid, r"text Value: 84$")


@pytest.mark.task("gnome-calculator")
def test_gnome_calculator_evaluates_a_typed_expression(apps: Apps, agent: Agent, ex: Checker) -> None:
    pid = apps.gnome_calculator().pid
    agent.bind(pid)
    agent.act(pid, lambda _s: "await app.typeText('(17+4)*3'); await app.pressKey('Return');").expect_ok()
    shows(ex, pid, r"\b63\b")
