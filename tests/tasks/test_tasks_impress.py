"""Slides in LibreOffice Impress: set the title of the first slide, add a slide, save as .odp;
checked from the saved file's content.xml."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from _agent import Agent, js, need
from _odf import q
from _soffice import Office
from test_tasks_writer import save_as, saved

from realapps._apps import Apps

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

TITLE = "Quarterly results"


@pytest.fixture(scope="module")
def impress(apps: Apps, agent: Agent) -> Iterator[Office]:
    yield Office(apps, agent, "impress")


@pytest.mark.task("LibreOffice Impress")
def test_title_a_slide_add_a_slide_and_save(impress: Office, agent: Agent, tmp_path: Path) -> None:
    impress.open(None, r"(?:Untitled 1 - LibreOffice Impress|Select a Template)")
    # a fresh profile offers templates first, a while after the deck shows: close that dialog (on
    # sway it is mapped before the deck's window, which then takes the focus: another window of the
    # app in the state, not the key window)
    agent.until(
        impress.pid, r"(?:Window: \"|^g\d+:\d+ dialog )Select a Template(?s:.*)push button (?:Close|Cancel)$", tries=30
    )
    agent.act(impress.pid, lambda s: f"await app.click({js(need(s, r'push button (?:Close|Cancel)$'))});").expect_ok()
    agent.until(impress.pid, r"Window: \"Untitled 1(?s:.*)container PresentationTitle")
    agent.act(
        impress.pid,
        lambda s: (
            f"await app.click({js(need(s, TITLE_SHAPE))}); await app.pressKey('Return');"
            f"await app.typeText({js(TITLE)}); await app.pressKey('Escape');"
        ),
    ).expect_ok()
    agent.act(impress.pid, lambda _s: "await app.pressKey('ctrl+m');").expect_ok()
    target = tmp_path / "deck.odp"
    save_as(agent, impress.pid, target)

    def check(root: ET.Element) -> None:
        pages = list(root.iter(q("draw:page")))
        assert len(pages) == 2, pages
        titles = ["".join(f.itertext()) for f in pages[0].iter(q("draw:frame"))
                  if f.get(q("presentation:class")) == "title"]  # fmt: skip
        assert titles == [TITLE], titles

    saved(target, check)


TITLE_SHAPE = r"(?:shape|paragraph|text|panel|container)[^\n]*(?:PresentationTitle|Title text|Click to add Title)"
