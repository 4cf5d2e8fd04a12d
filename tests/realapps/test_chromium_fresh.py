"""Chromium: the state follows navigations, old handles never click what replaced them, and a
``<select>`` shows its selected option.

One Chromium per module on the session desktop, pages from a loopback server that logs every
request: a button's click is a ``fetch`` the server sees, so "no click" is checked from the
page's side.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _launch import PageLog, chromium_app, placed, state_with, wait_for

from deskhand.backends.base import RunningApp
from deskhand.core.errors import NativeError
from deskhand.desktop import VirtualDesktop
from display_support import executor_for

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway")]

# Both pages put their button at the same spot, so a click at page A's button's old position
# would land on page B's (the ghost click this guards against).
PAGES = {
    "/a": (
        "<!doctype html><title>Trial Form</title><body style='margin:0'>"
        "<button style='position:absolute;left:40px;top:40px;width:160px;height:40px'"
        " onclick=\"fetch('/clicked?b=a')\">Send A</button>"
        "<input style='position:absolute;left:40px;top:120px' aria-label='Alpha field'>"
        "<a style='position:absolute;left:40px;top:180px' href='/b'>Go to the article</a>"
        "</body>"
    ),
    "/b": (
        "<!doctype html><title>Trial Article</title><body style='margin:0'>"
        "<button style='position:absolute;left:40px;top:40px;width:160px;height:40px'"
        " onclick=\"fetch('/clicked?b=b')\">Send B</button>"
        "<p style='position:absolute;left:40px;top:120px'>Beta paragraph</p>"
        "<input style='position:absolute;left:40px;top:180px' aria-label='Beta field'>"
        "</body>"
    ),
    "/select": (
        "<!doctype html><title>Fruit Order</title><body>"
        "<label>Fruit <select><option>Apple</option><option selected>Banana</option>"
        "<option>Cherry</option></select></label></body>"
    ),
}


@pytest.fixture(scope="module")
def browser(apps: Apps, mex: MatrixExecutor) -> Iterator[tuple[MatrixExecutor, RunningApp, PageLog]]:
    with chromium_app(apps, mex, PAGES, "/a") as got:
        yield got


def go(ex: MatrixExecutor, app: RunningApp, url: str) -> None:
    """Navigate the way a user does: focus the omnibox, type the address, press Enter."""
    ex.press_key(app, "ctrl+l")
    ex.type_text(app, url)
    ex.press_key(app, "Return")


def handle_of(text: str, pattern: str) -> str:
    m = re.search(r"(g\d+:\d+) " + pattern, text)
    assert m is not None, f"{pattern!r} not in:\n{text}"
    return m.group(1)


@pytest.mark.matrix("Chromium", "fresh tree")
def test_a_navigation_shows_the_new_document_in_the_next_state(
    browser: tuple[MatrixExecutor, RunningApp, PageLog],
) -> None:
    ex, app, pages = browser
    go(ex, app, pages.url("/a"))
    first = state_with(ex, app, r"entry \(settable, string\) Alpha field")
    assert "document web Trial Form" in first
    go(ex, app, pages.url("/b"))
    # The first state with the new page's field: it must not list the old page any more.
    after = state_with(ex, app, r"entry \(settable, string\) Beta field")
    assert "document web Trial Article" in after, after
    assert "Alpha field" not in after and "Send A" not in after and "document web Trial Form" not in after, after
    assert "Beta paragraph" in after

    # Back by clicking a link on the page (no omnibox): the form again, and only it.
    go(ex, app, pages.url("/a"))
    _state, link = placed(ex, app, r"link Go to the article")
    ex.click(app, element=link)
    again = state_with(ex, app, r"entry \(settable, string\) Beta field")
    assert "Alpha field" not in again and "document web Trial Form" not in again, again


@pytest.mark.matrix("Chromium", "fresh tree")
def test_a_handle_whose_page_was_replaced_is_stale_and_nothing_is_clicked(
    browser: tuple[MatrixExecutor, RunningApp, PageLog],
) -> None:
    ex, app, pages = browser
    clicks_before = pages.count("/clicked")
    visits = pages.gets.count("/b")
    go(ex, app, pages.url("/a"))
    _state, old = placed(ex, app, r"push button Send A")
    go(ex, app, pages.url("/b"))
    wait_for(lambda: pages.gets.count("/b") > visits, "page B requested")
    wait_for(lambda: _titled(ex, app, "Trial Article"), "page B shown")
    with pytest.raises(NativeError) as err:
        ex.click(app, element=old)  # no observation in between: the snapshot still has it
    assert err.value.code == "stale_element", err.value
    assert err.value.dispatched is False
    assert pages.count("/clicked") == clicks_before, pages.gets

    # The live button does get clicked (the log does see clicks).
    _state, fresh = placed(ex, app, r"push button Send B")
    ex.click(app, element=fresh)
    wait_for(lambda: pages.count("/clicked") > clicks_before, "the click on Send B")
    # A ghost click would have reached the page before this one.
    assert pages.count("/clicked") == clicks_before + 1, pages.gets
    assert pages.gets[-1] == "/clicked?b=b" or "/clicked?b=b" in pages.gets, pages.gets


def test_a_select_shows_its_selected_option_as_value(browser: tuple[MatrixExecutor, RunningApp, PageLog]) -> None:
    ex, app, pages = browser
    go(ex, app, pages.url("/select"))
    state = state_with(ex, app, r"combo box Fruit")
    line = next(x for x in state.split("\n") if "combo box Fruit" in x)
    assert line.endswith("Value: Banana"), line


def _titled(ex: MatrixExecutor, app: RunningApp, title: str) -> bool:
    key = next((w for w in ex.list_windows(app.pid) if w.is_key), None)
    return key is not None and key.title.startswith(title)


@pytest.mark.matrix("Chromium", "fresh tree")
def test_after_a_reload_the_old_handles_are_stale(
    browser: tuple[MatrixExecutor, RunningApp, PageLog], matrix_desktop: VirtualDesktop
) -> None:
    """A reload replaces every object of the page: a handle from before it clicks nothing."""
    ex, app, pages = browser
    go(ex, app, pages.url("/b"))
    state, old = placed(ex, app, r"push button Send B")
    visits, clicks = pages.count("/b"), pages.count("/clicked")
    page = re.search(r"(g\d+:\d+) document web Trial Article", state.text)
    assert page is not None, state.text
    before = getattr(ex.element(app, page.group(1)).ref, "path", None)
    ex.press_key(app, "F5")
    wait_for(lambda: pages.count("/b") > visits, "the reload's request")
    # Another observer watches for the new document, leaving this executor's snapshot (and
    # the old handle in it) as it was.
    watcher = executor_for(matrix_desktop)
    try:
        watched = watcher.resolve(str(app.pid))
        wait_for(lambda: _document_path(watcher, watched) not in (before, None), "the reloaded document")
    finally:
        watcher.close()
    with pytest.raises(NativeError) as err:
        ex.click(app, element=old)
    if err.value.code != "stale_element":
        pytest.fail(f"expected stale_element, got {err.value.code}: {err.value}")
    assert err.value.dispatched is False
    # The reloaded page's own button works, and is the only click the page ever saw.
    _state, fresh = placed(ex, app, r"push button Send B")
    ex.click(app, element=fresh)
    wait_for(lambda: pages.count("/clicked") > clicks, "the click on the reloaded Send B")
    assert pages.count("/clicked") == clicks + 1, pages.gets


def _document_path(ex: MatrixExecutor, app: RunningApp) -> str | None:
    """The object path of the page's document as the app reports it now."""
    state = ex.get_app_state(app, disable_diff=True).text
    m = re.search(r"(g\d+:\d+) document web Trial Article", state)
    if m is None:
        return None
    ref = ex.element(app, m.group(1)).ref
    return getattr(ref, "path", None)
