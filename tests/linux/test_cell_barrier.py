"""A cell of actions never outruns the app (issue 27): each chain runs as ONE `js` cell through the
service, the kernel and the Linux backend, and is checked from the fixture's own event log, once
on an idle machine and once with two CPU hogs spinning (child processes this test starts and ends).

Qt performs a press action 100 ms after the call (``animateClick``): without the barrier, the
accessible value set after it reaches the field before the button has been clicked (the idle
run fails so with the barrier taken out). A key chord
sent after an accessible insert must select the inserted text, not the field as it was.
"""

from __future__ import annotations

import pytest
from _act_support import poll
from test_e2e_js import run_cells

from proc_support import cpu_hogs

pytestmark = pytest.mark.desktop

#: The chain's handles, read from the cell's own first observation.
FIND = (
    "const s = await app.getAXState({disableDiffing: true, emit: false});\n"
    "const h = (n) => new RegExp(`(g\\\\d+:\\\\d+) [^\\\\n]* ${n}$`, 'm').exec(s)[1];"
)


def chain_cell(pid: int, body: str) -> str:
    """A cell that binds ``pid``, reads the handles (``FIND``), runs ``body`` and writes ``r``."""
    return f'const app = await cua.getApp("{pid}");\n{FIND}\n{body}\nnodeRepl.write(JSON.stringify(r));'


@pytest.mark.parametrize("load", [False, True], ids=["idle", "two_cpu_hogs"])
def test_qt_a_press_action_is_handled_before_the_text_typed_after_it(launch, desktop, load):
    app = launch.qt_fixture()
    app.events.wait_for("ready")
    body = (
        "const r = [];\n"
        "r.push(await app.click(h('Apply')));\n"  # an accessible press action: Qt clicks 100 ms later
        "r.push(await app.setValue(h('Name'), 'abc'));\n"  # over D-Bus at once, unless the barrier holds
        "r.push(await app.click(h('Name')));\n"
        "r.push(await app.pressKey('ctrl+a'));\n"
        "r.push(await app.typeText('xyz'));"
    )
    with cpu_hogs(load):
        [result] = run_cells(desktop.env, [chain_cell(app.pid, body)])
    assert not result.is_error, result.text
    assert "the app performed the accessible action" in result.text, result.text  # the press action ran
    clicked = app.events.wait_for("clicked", name="Apply")
    final = app.events.wait_for("text", name="Name", text="xyz")
    texts = [e for e in app.events.of_type("text") if e.get("name") == "Name"]
    assert texts and clicked["t"] < texts[0]["t"], (clicked, texts)  # the click came first
    assert final["text"] == "xyz"
    assert poll(lambda: app.events.of_type("text")[-1]["text"] == "xyz", what="the field's last text") is True
    assert "unsettled" not in result.text, result.text


@pytest.mark.parametrize("load", [False, True], ids=["idle", "two_cpu_hogs"])
def test_gtk_keys_after_an_accessible_insert_act_on_the_inserted_text(launch, desktop, load):
    app = launch.gtk_fixture()
    app.events.wait_for("ready")
    body = (
        "const r = [];\n"
        "r.push(await app.click(h('Name')));\n"
        "r.push(await app.typeText('hello'));\n"  # EditableText over D-Bus
        "r.push(await app.pressKey('ctrl+a'));\n"  # XTest: must select 'hello'
        "r.push(await app.typeText('xyz'));\n"
        "r.push(await app.click(h('Apply')));\n"
        "r.push(await app.pressKey('shift+Tab'));"
    )
    with cpu_hogs(load):
        [result] = run_cells(desktop.env, [chain_cell(app.pid, body)])
    assert not result.is_error, result.text
    app.events.wait_for("clicked", name="Apply")
    texts = [e["text"] for e in app.events.of_type("text") if e.get("name") == "Name"]
    assert "hello" in texts and texts[-1] == "xyz", texts
    assert "unsettled" not in result.text, result.text


def test_keys_to_one_app_then_a_click_on_another_wait_for_the_first_and_say_nothing_unsettled(launch, desktop):
    # the barrier waits for the app the previous action went to: the keys' app before the click on
    # the other, whose focus (lost to the keys' app) is not a focus in transit; waited for on the
    # other app, each action after the first said "unsettled" after 2 s
    first, second = launch.gtk_fixture(), launch.gtk_fixture()
    for running in (first, second):
        running.events.wait_for("ready")
    name = "(s) => /(g\\d+:\\d+) [^\\n]* Name$/m.exec(s)[1]"
    cell = (
        f'const a = await cua.getApp("{first.pid}"), b = await cua.getApp("{second.pid}");\n'
        f"const name = {name};\n"
        "const look = (x) => x.getAXState({disableDiffing: true, emit: false});\n"
        "const na = name(await look(a)), nb = name(await look(b));\n"
        "const r = [await a.click(na)];\n"
        "for (let i = 0; i < 3; i++) { r.push(await a.pressKey('a b c d e f')); r.push(await b.click(nb)); }\n"
        "nodeRepl.write(JSON.stringify(r));"
    )
    [result] = run_cells(desktop.env, [cell])
    assert not result.is_error, result.text
    first.events.wait_for("text", name="Name", text="abcdef" * 3)
    assert not [e for e in second.events.of_type("text") if e.get("name") == "Name"]
    assert "unsettled" not in result.text, result.text
