"""The element models behind the real-app goldens (``tests/golden/realapp_*.json``) are what the
Linux reader builds from Writer and Chromium today.

Each test reads the app's state and takes the model the reader handed to the observer. The
document's part of it (every element under the document: role, role text, name, value, in
order) must equal the recorded model's document part; the rest of the window (toolbars, tabs)
is recorded but not compared, since it follows the window's size and the app's profile.
``DESKHAND_UPDATE_GOLDEN=1`` records the whole model anew; ``tests/unit/test_axtree_golden.py``
renders the recorded models with no display, and those renderings are the reviewed goldens.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor, frame_of
from _observe import handle, state_with
from _office import convert
from _pages import PageServer

from axtree_json import read, write
from deskhand.core.axtree import AppTree, Element, Observer

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

PAGE = """<!doctype html><html lang="en"><head><title>Order Form</title></head><body>
<h1>Order supplies</h1>
<p>Fill in the form and press <b>Order</b>. See <a href="/help">the help page</a> first.</p>
<ul><li>Paper, A4</li><li>Pens, blue</li></ul>
<table><caption>Stock</caption><tr><th>Item</th><th>Left</th></tr>
<tr><td>Paper</td><td>40</td></tr><tr><td>Pens</td><td>12</td></tr></table>
<form method="post" action="/order">
<label>Name <input name="name" value="Ada"></label>
<label>Item <select name="item"><option>Paper</option><option selected>Pens</option></select></label>
<label><input type="checkbox" name="rush" checked> Rush</label>
<textarea name="note" rows="3" cols="30">Leave at the desk</textarea>
<button type="submit">Order</button>
</form></body></html>"""

PARAGRAPHS = ["Minutes of the meeting", "Present: Ada, Grace and Linus.", "Next meeting on Friday."]


def _document(el: Element) -> Element | None:
    if (el.role_description or "").startswith("document"):
        return el
    for child in el.children:
        found = _document(child)
        if found is not None:
            return found
    return None


def _skeleton(tree: AppTree) -> list[tuple[int, str, str | None, str | None, str]]:
    """The document's elements in order: depth, role, role text, name, value."""
    docs = [d for w in tree.windows if (d := _document(w.root)) is not None]
    assert docs, "no document in the model"
    rows: list[tuple[int, str, str | None, str | None, str]] = []

    def walk(el: Element, depth: int) -> None:
        rows.append((depth, el.role, el.role_description, el.title, repr(el.value)))
        for child in el.children:
            walk(child, depth + 1)

    walk(docs[0], 0)
    return rows


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[AppTree]:
    """Every model the reader hands to the core's observer while the test runs."""
    trees: list[AppTree] = []
    original = Observer.observe

    def observe(self: Observer, tree: AppTree, *args: Any, **kwargs: Any) -> Any:
        trees.append(tree)
        return original(self, tree, *args, **kwargs)

    monkeypatch.setattr(Observer, "observe", observe)
    return trees


def _check(name: str, tree: AppTree) -> None:
    path = GOLDEN / f"realapp_{name}.json"
    if os.environ.get("DESKHAND_UPDATE_GOLDEN"):
        write(path, tree)
    assert _skeleton(tree) == _skeleton(read(path))


def _laid_out(ex: MatrixExecutor, app: Any, pattern: str, timeout_s: float = 30.0) -> None:
    """Until the element matching ``pattern`` has a frame: the page is laid out, and its nodes
    show (before, a web document's text runs are read as children of their own: on sway, Chromium's
    first states after the load listed them)."""
    deadline = time.monotonic() + timeout_s
    while frame_of(ex, app, handle(state_with(ex, app, pattern), pattern)) is None:
        assert time.monotonic() < deadline, f"{pattern!r} never had a frame"
        time.sleep(0.1)  # polling the app's state with a deadline


@pytest.fixture(scope="module")
def server() -> Iterator[PageServer]:
    with PageServer({"/": PAGE, "/help": "<!doctype html><title>Help</title><p>help</p>"}) as srv:
        yield srv


@pytest.mark.matrix("Chromium", "golden")
def test_chromium_model_matches_its_golden(
    apps: Apps, mex: MatrixExecutor, server: PageServer, captured: list[AppTree]
) -> None:
    running = apps.chromium(server.url("/"))
    app = mex.resolve(str(running.pid))
    _laid_out(mex, app, r"(?:push )?button Order$")
    captured.clear()
    state_with(mex, app, r"Leave at the desk")
    _check("chromium", captured[-1])


@pytest.mark.matrix("LibreOffice Writer", "golden")
def test_writer_model_matches_its_golden(
    apps: Apps, mex: MatrixExecutor, tmp_path: Path, captured: list[AppTree]
) -> None:
    seed = tmp_path / "minutes.txt"
    seed.write_text("\n".join(PARAGRAPHS) + "\n")
    doc = convert(seed, "odt", tmp_path, tmp_path / "convert-profile")
    running = apps.soffice("writer", doc)
    app = mex.resolve(str(running.pid))
    captured.clear()
    state_with(mex, app, r"paragraph \(settable, string\) Next meeting on Friday\.$")
    _check("writer", captured[-1])
