"""A cell of actions never outruns the app on Wayland too (issue 27): the chains of
``tests/linux/test_cell_barrier.py`` run as ONE `js` cell through the service on a headless sway
and GNOME Shell,
checked from the fixture's own event log, idle and with two CPU hogs spinning (child processes
this test starts and ends).

Here a click by handle is a pointer click, so Qt's deferred press (``animateClick``, 100 ms after
the call) is reached through its accessible action (``performSecondaryAction``): without the
barrier the value set after it reaches the field before the button has been clicked. Typed text
is key events sent at once: the keys after it must act on the typed text.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from _wl_support import WaylandLauncher

from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.core import barrier
from deskhand.desktop import VirtualDesktop
from proc_support import cpu_hogs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "linux"))
from _act_support import poll
from test_cell_barrier import chain_cell
from test_e2e_js import run_cells

WL_COMPOSITORS = ("sway", "gnome")


@pytest.mark.parametrize("load", [False, True], ids=["idle", "two_cpu_hogs"])
def test_qt_a_press_action_is_handled_before_the_value_set_after_it(
    wl_launch: WaylandLauncher, wl_desktop: VirtualDesktop, load: bool
) -> None:
    app = wl_launch.qt_fixture()
    app.events.wait_for("ready")
    body = (
        "const r = [];\n"
        "r.push(await app.performSecondaryAction(h('Apply'), 'Press'));\n"  # Qt clicks 100 ms later
        "r.push(await app.setValue(h('Name'), 'abc'));\n"  # over D-Bus at once, unless the barrier holds
        "r.push(await app.click(h('Name')));\n"
        "r.push(await app.pressKey('ctrl+a'));\n"  # must select 'abc'
        "r.push(await app.typeText('xyz'));"
    )
    with cpu_hogs(load):
        [result] = run_cells(wl_desktop.env, [chain_cell(app.pid, body)])
    assert not result.is_error, result.text
    clicked = app.events.wait_for("clicked", name="Apply")
    app.events.wait_for("text", name="Name", text="xyz")
    texts = [e for e in app.events.of_type("text") if e.get("name") == "Name"]
    assert texts and clicked["t"] < texts[0]["t"], (clicked, texts)  # the click came first
    assert poll(lambda: app.events.of_type("text")[-1]["text"] == "xyz", what="the field's last text") is True
    assert "unsettled" not in result.text, result.text


@pytest.mark.parametrize("load", [False, True], ids=["idle", "two_cpu_hogs"])
def test_gtk_keys_after_text_typed_into_an_entry_act_on_the_typed_text(
    wl_launch: WaylandLauncher, wl_desktop: VirtualDesktop, load: bool
) -> None:
    app = wl_launch.gtk_fixture()
    app.events.wait_for("ready")
    body = (
        "const r = [];\n"
        "r.push(await app.click(h('Name')));\n"
        "r.push(await app.typeText('hello'));\n"  # key events into a single-line entry
        "r.push(await app.pressKey('ctrl+a'));\n"  # must select 'hello'
        "r.push(await app.typeText('xyz'));\n"
        "r.push(await app.click(h('Apply')));\n"
        "r.push(await app.pressKey('shift+Tab'));"
    )
    with cpu_hogs(load):
        [result] = run_cells(wl_desktop.env, [chain_cell(app.pid, body)])
    assert not result.is_error, result.text
    app.events.wait_for("clicked", name="Apply")
    texts = [e["text"] for e in app.events.of_type("text") if e.get("name") == "Name"]
    assert "hello" in texts and texts[-1] == "xyz", texts
    assert "unsettled" not in result.text, result.text


def test_a_key_after_keys_the_app_has_not_answered_for_says_unsettled(
    wl_launch: WaylandLauncher, wl_ex: WaylandExecutor
) -> None:
    """The app is stopped after the first key: the barrier's round trip gets no answer within its
    cap, the second key still goes (as one a person makes without looking) and says so."""
    running = wl_launch.gtk_fixture()
    running.events.wait_for("ready")
    app = wl_ex.resolve(str(running.pid))
    wl_ex.get_app_state(app, disable_diff=True)
    first = wl_ex.press_key(app, "End")  # the first action after an observation waits for nothing
    assert "unsettled" not in first.structured
    os.kill(running.pid, signal.SIGSTOP)
    try:
        second = wl_ex.press_key(app, "End")
    finally:
        os.kill(running.pid, signal.SIGCONT)
    assert second.structured.get("unsettled") == barrier.UNSETTLED, second.structured
