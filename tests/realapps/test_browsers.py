"""Browsers on a loopback page: the state shows the text of paragraphs, table cells and a textarea
(no unnamed ``;;`` actions), and what is typed into the page and sent is what the page server
received."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor, frame_of
from _observe import handle, state_with
from _pages import PageServer

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

PAGE = """<!doctype html><html><head><title>Matrix Page</title></head><body>
<h1>Quarterly notes</h1>
<p>The first paragraph has <a href="/other">a link</a> inside it.</p>
<p>A second paragraph of plain text.</p>
<table><tr><th>Fruit</th><th>Count</th></tr><tr><td>Apples</td><td>12</td></tr><tr><td>Pears</td><td>7</td></tr></table>
<form method="post" action="/submit"><textarea name="note" rows="4" cols="40">Initial note</textarea>
<button type="submit">Send</button></form>
</body></html>"""


@pytest.fixture(scope="module")
def server() -> Iterator[PageServer]:
    with PageServer({"/": PAGE, "/other": "<!doctype html><title>Other</title><p>other</p>"}) as srv:
        yield srv


def on_screen(ex: MatrixExecutor, app: Any, pattern: str, timeout_s: float = 20.0) -> str:
    """The handle of the element matching ``pattern`` once it has a frame (the page is laid out)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = handle(state_with(ex, app, pattern), pattern)
        if frame_of(ex, app, found) is not None:
            return found
        assert time.monotonic() < deadline, f"{pattern!r} never got a frame"
        time.sleep(0.1)  # polling the app's state with a deadline


def check_page_and_post(ex: MatrixExecutor, app: Any, server: PageServer, name: str) -> None:
    # Firefox may show a heading's text before its name (one run read "heading Value: Quarterly
    # notes" while the page filled in): both lines in their final form, then the rest is checked
    state_with(ex, app, r"heading Quarterly notes$")
    state = state_with(ex, app, r"paragraph A second paragraph of plain text\.$")
    print(f"{name}: state {len(state)} chars")
    # on sway Chromium's frame outgrows its window (a client-side shadow), and its client view two
    # panels down places it (``observe.placement``): the state has no notice of guessed places
    assert "draws its own decorations" not in state, state
    assert re.search(r"paragraph The first paragraph has a link inside it\.$", state, re.M), state
    assert re.search(r"heading Quarterly notes$", state, re.M), state
    for text in ("Fruit", "Count", "Apples", "12", "Pears", "7"):
        assert re.search(rf" (row|text|table cell|cell) {text}(,|$)", state, re.M), (text, state)
    assert ";;" not in state and "Secondary Actions: ," not in state, state
    area = on_screen(ex, app, r"entry( \(settable, string\))? Value: Initial note")
    ex.click(app, element=area)
    ex.press_key(app, "ctrl+a")
    ex.type_text(app, "Sent from the matrix")
    state_with(ex, app, r"Value: Sent from the matrix")
    ex.click(app, element=on_screen(ex, app, r"push button Send"))
    post = server.wait_post("/submit")
    assert post.form == {"note": ["Sent from the matrix"]}


@pytest.mark.matrix("Firefox ESR", "observe", "click", "type")
def test_firefox_page_text_and_form_post(apps: Apps, mex: MatrixExecutor, server: PageServer) -> None:
    running = apps.firefox(server.url("/"))
    check_page_and_post(mex, mex.resolve(str(running.pid)), server, "firefox")


@pytest.mark.matrix("Chromium", "observe", "click", "type")
def test_chromium_page_text_and_form_post(apps: Apps, mex: MatrixExecutor, server: PageServer) -> None:
    server.posts.clear()
    running = apps.chromium(server.url("/"))
    check_page_and_post(mex, mex.resolve(str(running.pid)), server, "chromium")
