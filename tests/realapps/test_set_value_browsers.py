"""setValue on browser form fields: Chromium's entries have no EditableText and Firefox accepts
``SetTextContents`` without changing anything, so both are set by the keyboard (focus, select
all, type) and read back. What counts is what the browser then posts to the page server: the
new values, the old text gone, and a single-line field refused a line break before anything was
sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import handle, state_with
from _pages import PageServer

from deskhand.core.errors import NativeError

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

PAGE = """<!doctype html><html><head><title>Set Form</title></head><body>
<form method="post" action="/submit"><label>Name <input name="who" value="Old name"></label>
<textarea name="note" rows="4" cols="40">Initial note</textarea>
<button type="submit">Send</button></form></body></html>"""

NOTE = "Line one\nline two ✓ (Grüße)"


@pytest.fixture(scope="module")
def server() -> Iterator[PageServer]:
    with PageServer({"/": PAGE}) as srv:
        yield srv


def set_and_post(ex: MatrixExecutor, app: Any, server: PageServer) -> None:
    state = state_with(ex, app, r"entry \(settable, string\) Value: Initial note$")
    name = handle(state, r"entry \(settable, string\) Name, Value: Old name$")
    note = handle(state, r"entry \(settable, string\) Value: Initial note$")
    with pytest.raises(NativeError) as refused:
        ex.set_value(app, name, "two\nlines")
    assert (refused.value.code, refused.value.dispatched) == ("bad_payload", False)
    done = ex.set_value(app, name, "Ada Lovelace")
    assert done.outcome is not None and done.outcome.effect == "confirmed", done
    assert done.structured["before"] == "Old name"
    assert ex.set_value(app, note, NOTE).structured["after"] == NOTE
    state = state_with(ex, app, r"push button Send$")
    ex.click(app, element=handle(state, r"push button Send$"))
    post = server.wait_post("/submit")
    # the browser posts a textarea's line breaks as CR LF
    assert post.form == {"who": ["Ada Lovelace"], "note": [NOTE.replace("\n", "\r\n")]}, post


@pytest.mark.matrix("Chromium", "setValue")
def test_chromium_set_value_by_keys(apps: Apps, mex: MatrixExecutor, server: PageServer) -> None:
    server.posts.clear()
    running = apps.chromium(server.url("/"))
    set_and_post(mex, mex.resolve(str(running.pid)), server)


@pytest.mark.matrix("Firefox ESR", "setValue")
def test_firefox_set_value_by_keys(apps: Apps, mex: MatrixExecutor, server: PageServer) -> None:
    server.posts.clear()
    running = apps.firefox(server.url("/"))
    set_and_post(mex, mex.resolve(str(running.pid)), server)
