"""LibreOffice Impress: the first slide's title is typed into its title placeholder, a slide is
added, and the deck is saved through the Save As dialog; checked from the saved .odp's
content.xml (two pages, the first titled). On X11 and on sway
(the gtk3 VCL plugin is a native Wayland client there)."""

from __future__ import annotations

import re
import time
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from _apps import Apps
from _display import MatrixExecutor, soffice_pid
from _observe import handle, state_with

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
PRESENTATION = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
TITLE = "Matrix deck"


@pytest.mark.matrix("LibreOffice Impress", "observe", "type", "new slide", "save")
def test_title_new_slide_and_save_as(apps: Apps, mex: MatrixExecutor, tmp_path: Path) -> None:
    apps.soffice("impress")
    app = mex.resolve(str(soffice_pid(mex)))
    # a fresh profile offers templates first, a while after the deck shows: close that dialog (on
    # sway it is mapped before the deck's window, which then takes the focus: it is in the state
    # as another window of the app, and a click by handle goes to it there)
    state = state_with(
        mex, app, r"(?:Window: \"|^g\d+:\d+ dialog )Select a Template(?s:.*)push button (?:Close|Cancel)", 90
    )
    mex.click(app, element=handle(state, r"push button (?:Close|Cancel)$"))  # not the deck's Close Document
    state = state_with(mex, app, r"Window: \"Untitled 1(?s:.*)container PresentationTitle\n\t+g\d+:\d+ paragraph")
    # one menu bar: LibreOffice's own, 0 px high under the GTK one it draws, is not shown
    assert len(re.findall(r"^\t*g\d+:\d+ menu bar$", state, re.M)) == 1, state
    mex.click(app, element=handle(state, "container PresentationTitle"))
    mex.press_key(app, "Return")  # edit the placeholder's text
    mex.type_text(app, TITLE)
    mex.press_key(app, "Escape")
    mex.press_key(app, "ctrl+m")
    state_with(mex, app, r"label Slide 2 of 2")
    mex.press_key(app, "ctrl+shift+s")
    state = state_with(mex, app, r"Window: \"Save(?: As)?\"(?s:.*)label Name")
    target = tmp_path / "deck.odp"
    mex.click(app, element=handle(state, r"text (?:\(focused\) )?\(settable, string\)"))
    mex.press_key(app, "ctrl+a")
    mex.type_text(app, str(target))
    state_with(mex, app, re.escape(str(target)))
    mex.press_key(app, "Return")
    deadline = time.monotonic() + 30
    while True:
        try:
            root = ET.fromstring(zipfile.ZipFile(target).read("content.xml"))
            break
        except (OSError, KeyError, zipfile.BadZipFile, ET.ParseError):
            assert time.monotonic() < deadline, f"{target} was not saved:\n{mex.get_app_state(app).text}"
            time.sleep(0.2)  # polling the saved file with a deadline
    pages = list(root.iter(f"{{{DRAW}}}page"))
    assert len(pages) == 2, pages
    titles = ["".join(f.itertext()) for f in pages[0].iter(f"{{{DRAW}}}frame")
              if f.get(f"{{{PRESENTATION}}}class") == "title"]  # fmt: skip
    assert titles == [TITLE], titles
