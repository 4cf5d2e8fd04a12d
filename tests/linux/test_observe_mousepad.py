"""get_app_state against a real Debian app, Mousepad: its document is a settable text element,
and text typed into it through AT-SPI comes back as a ``~`` diff line; on X11 and on sway."""

from __future__ import annotations

import re
import shutil
import time
from typing import Any

import pytest

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.atspi.connection import EDITABLE_TEXT, Call
from display_support import MatrixExecutor

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin")]

MOUSEPAD = shutil.which("mousepad")
DOCUMENT = r"\t(g\d+:\d+) text \(settable, string\)"


def state_with(executor: MatrixExecutor, app: RunningApp, pattern: str, timeout_s: float = 20.0) -> str:
    """Full state text once ``pattern`` is in it (Mousepad builds its window after it joins the bus)."""
    deadline = time.monotonic() + timeout_s
    while True:
        text: str = executor.get_app_state(app, disable_diff=True).text
        if re.search(pattern, text, re.M):
            return text
        assert time.monotonic() < deadline, f"{pattern!r} never appeared in:\n{text}"
        time.sleep(0.05)  # polling the app's state with a deadline


@pytest.mark.skipif(MOUSEPAD is None, reason="mousepad is not installed")
def test_document_is_settable_text_and_typing_comes_back_as_a_diff(launch: Any, executor: MatrixExecutor) -> None:
    fx = launch([str(MOUSEPAD), "--disable-server"])
    app = executor.resolve(str(fx.pid))
    first = state_with(executor, app, DOCUMENT)
    assert re.match(rf"App=\S*mousepad \(pid {fx.pid}\)\n", first), first
    m = re.search(DOCUMENT + "(.*)$", first, re.M)
    assert m is not None
    handle = m.group(1)
    assert "Value:" not in m.group(2), "a new document is empty"

    # The state that the diff is taken against.
    executor.get_app_state(app)
    ref: Any = executor.element(app, handle).ref  # an AtspiRef
    typed = "deskhand was here"
    reply = executor.atspi.call(Call(ref.bus, ref.path, EDITABLE_TEXT, "InsertText", "isi", (0, typed, len(typed))))
    assert reply == (True,)

    diff = executor.get_app_state(app).text
    assert diff.startswith("The following is a diff from the previous accessibility tree"), diff
    line = re.search(r"^~\t+" + re.escape(handle) + r" text \(settable, string\).*$", diff, re.M)
    assert line is not None, diff
    assert f"Value: {typed}" in line.group(0)
