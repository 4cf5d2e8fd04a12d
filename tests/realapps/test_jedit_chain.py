"""jEdit (Swing) in ONE `js` cell (issue 27): ``click(Replace All)`` by handle, ``click(Close)``,
then ``ctrl+s``; checked on disk, several runs in a row.

java-atk-wrapper performs a press action later on Swing's event dispatch thread (``invokeLater``,
then ``doClick``'s 68 ms press), and AWT answers the X ping from another thread, so the barrier's
round trip there is an accessible getter (``core.barrier.LOOP_TOOLKITS``): Close runs after
Replace All has replaced, and what follows Close sees the dialog gone. The keys pinned to the
observed dialog are refused once it has closed (this call sent nothing, and the calls sent are
named; or, while X still shows the closing dialog as the key window, the gate's "The target window
changed before the action"); the cell observes, as the guidance shows, and saves.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps
from _cells import run_cell
from _observe import state_with
from test_jedit import ATK_WRAPPER_JAR, JEDIT_SWAY, WITH_WRAPPER, _jedit

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.desktop import VirtualDesktop

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway", sway=JEDIT_SWAY)]

RUNS = 3
FIND = (
    "var s = await app.getAXState({disableDiffing: true, emit: false});\n"
    "var h = (p) => new RegExp(`(g\\\\d+:\\\\d+) ${p}`, 'm').exec(s)[1];\n"
)


def _open_replace(desktop: VirtualDesktop, mex: LinuxExecutor, app: Any, find: str, replace: str) -> None:
    """Setup, not the chain under test: the Search And Replace dialog with both fields set."""
    state_with(mex, app, r"^Window: \"jEdit - ", timeout_s=60)
    mex.press_key(app, "ctrl+f")
    state_with(mex, app, r"push button Replace All", timeout_s=30)
    cell = (
        f'var app = await cua.getApp("{app.pid}");\n{FIND}'
        f"await app.setValue(h('text \\\\(settable, string\\\\) Search for:'), {find!r});\n"
        f"await app.setValue(h('text \\\\(settable, string\\\\) Replace with:'), {replace!r});"
    )
    result = run_cell(desktop, cell)
    assert not result.is_error, result.text


@pytest.mark.matrix("jEdit", "cell chain", "replace all", "close", "save")
def test_jedit_replace_all_close_and_save_in_one_cell_saves_the_replaced_text(
    apps: Apps, mex: LinuxExecutor, matrix_desktop: VirtualDesktop, tmp_path: Path
) -> None:
    if not ATK_WRAPPER_JAR.exists():
        pytest.skip("libatk-wrapper-java is not installed (make deps installs it)")
    _running, path = _jedit(apps, tmp_path, "chain", env=WITH_WRAPPER, on_bus=True, ex=mex)
    app = mex.resolve("jEdit")
    text = path.read_text()  # "hello\n"
    for run in range(RUNS):
        old, new = ("hello", f"omega{run}") if run == 0 else (f"omega{run - 1}", f"omega{run}")
        _open_replace(matrix_desktop, mex, app, old, new)
        chain = (
            f'var app = await cua.getApp("{app.pid}");\n{FIND}'
            "const r = [];\n"
            "r.push(await app.click(h('push button Replace All')));\n"  # a press action on the EDT, later
            "r.push(await app.click(h('push button Close')));\n"
            "let refused = '';\n"
            "try { await app.pressKey('ctrl+s'); } catch (e) { refused = String(e.message || e); }\n"
            "if (refused) { await app.getAXState({emit: false}); r.push(await app.pressKey('ctrl+s')); }\n"
            "nodeRepl.write('OUT' + JSON.stringify({r, refused}) + 'END');"
        )
        result = run_cell(matrix_desktop, chain)
        assert not result.is_error, result.text
        found = re.search(r"OUT(.*?)END", result.text, re.S)
        assert found is not None, result.text
        out = json.loads(found.group(1))
        if out["refused"]:  # keys pinned to the dialog, which closed: nothing sent, the calls named
            said = out["refused"]
            assert "this call sent nothing" in said or "The target window changed before the action" in said, out
            assert "click(g" in said, out
        assert "unsettled" not in result.text, (run, result.text)
        text = text.replace(old, new)
        deadline = time.monotonic() + 30
        while path.read_text() != text:
            assert time.monotonic() < deadline, (run, path.read_text(), out)
            time.sleep(0.2)  # polling the saved file with a deadline
