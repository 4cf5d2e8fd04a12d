"""Browser tasks in Chromium and Firefox on pages of a loopback server: open a page in a new
tab, and fill and submit a form; checked from the server's own log of what the browser asked for
(the form's submission arrives as its query)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from _agent import Agent, js, need

from realapps._apps import Apps
from realapps._launch import PageLog

pytestmark = pytest.mark.slow

FORM = """<!doctype html><title>Sign-up</title><h1>Sign up</h1>
<form action="/submit" method="get">
<label>Full name <input name="fullname"></label>
<label>City <input name="city"></label>
<button type="submit">Send</button></form>"""
PAGES = {
    "/start": "<!doctype html><title>Start page</title><p>Start here.</p>",
    "/form": FORM,
    "/second": "<!doctype html><title>Second page</title><p>The second page.</p>",
    "/submit": "<!doctype html><title>Thanks</title><p>Received.</p>",
}
BROWSERS = {"chromium": "Chromium", "firefox": "Firefox"}
FIELD = r"(?:entry|text) (?:\(focused\) )?(?:\(settable, string\) )?"
SEND = r"(?:push )?button Send"


@pytest.fixture(scope="module")
def server() -> Iterator[PageLog]:
    log = PageLog(PAGES)
    yield log
    log.close()


@pytest.fixture(autouse=True)
def _counted_under_its_browser(request: pytest.FixtureRequest) -> None:
    """Each task counts under the browser it ran in (the table's rows are apps)."""
    request.node.add_marker(pytest.mark.task(BROWSERS[request.node.callspec.params["browser"]]))


NEW_TAB_CHAIN = (
    "issue 27: ctrl+t, typeText(url) and Return in one cell outrun Chromium: the cell reports no error and "
    "the page is never requested (the text does not reach the new tab's address bar)"
)


@pytest.fixture(scope="module", params=list(BROWSERS))
def browser(request: pytest.FixtureRequest, apps: Apps, agent: Agent, server: PageLog) -> Iterator[tuple[str, int]]:
    launch: Callable[[str], object] = getattr(apps, request.param)
    running = launch(server.url("/start"))
    pid = running.pid  # type: ignore[attr-defined]
    agent.bind(pid)
    agent.until(pid, r"document web", tries=30)
    yield request.param, pid
    running.app.stop()  # type: ignore[attr-defined]


def logged(server: PageLog, prefix: str, timeout_s: float = 20.0) -> str:
    deadline = time.monotonic() + timeout_s
    while not (found := [g for g in list(server.gets) if g.startswith(prefix)]):
        assert time.monotonic() < deadline, f"no request for {prefix}: {server.gets}"
        time.sleep(0.1)  # polling the server's log with a deadline
    return found[-1]


def test_open_a_page_in_a_new_tab(
    browser: tuple[str, int], agent: Agent, server: PageLog, request: pytest.FixtureRequest
) -> None:
    name, pid = browser
    if name == "chromium":
        request.applymarker(pytest.mark.xfail(strict=False, reason=NEW_TAB_CHAIN))
    url = server.url("/second")
    agent.act(
        pid, lambda _s: f"await app.pressKey('ctrl+t'); await app.typeText({js(url)}); await app.pressKey('Return');"
    ).expect_ok()
    logged(server, "/second")
    state = agent.until(pid, r"Second page")
    assert "Start page" in state, state  # the first tab is still there


def test_fill_and_submit_a_form(browser: tuple[str, int], agent: Agent, server: PageLog) -> None:
    _name, pid = browser
    url = server.url("/form")
    agent.act(
        pid, lambda _s: f"await app.pressKey('ctrl+l'); await app.typeText({js(url)}); await app.pressKey('Return');"
    ).expect_ok()
    agent.until(pid, r"entry .*Full name|Full name")
    agent.act(
        pid,
        lambda s: (
            f"await app.click({js(need(s, FIELD + 'Full name'))});"
            "await app.typeText('Ada Lovelace');"
            f"await app.click({js(need(s, FIELD + 'City'))});"
            "await app.typeText('London');"
            f"await app.click({js(need(s, SEND))});"
        ),
    ).expect_ok()
    query = parse_qs(urlsplit(logged(server, "/submit")).query)
    assert query == {"fullname": ["Ada Lovelace"], "city": ["London"]}, query
