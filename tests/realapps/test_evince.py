"""Evince: a PDF's page text in the state, a page gone to through the page entry, a search result
clicked by its handle, each checked in Evince's own tree (the pages it shows, its page entry).
On X11 and on sway (Evince is a native Wayland client there).

The PDF is written here: three pages of one line each, in Helvetica (no font is embedded). Evince's
pages are ``page`` objects whose Text is the page's text; a search result is a container cell of
the results list, named in the state by its parts' texts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import handle, state_with

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

PAGES = ("Page one: alpha introduction", "Page two: beta methods", "Page three: gamma results")


def write_pdf(path: Path, lines: tuple[str, ...]) -> None:
    """A minimal PDF with one line of text per page."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for line in lines:
        stream = f"BT /F1 24 Tf 72 700 Td ({line}) Tj ET"
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {len(objects)} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>"
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(out)


def page_line(text: str) -> str:
    return rf"container Value: {re.escape(text)}$"


@pytest.fixture(scope="module")
def evince(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> object:
    doc = tmp_path_factory.mktemp("evince") / "report.pdf"
    write_pdf(doc, PAGES)
    return mex.resolve(str(apps.evince(doc).pid))


@pytest.mark.matrix("Evince", "observe", "page text")
def test_the_shown_page_s_text_is_in_the_state(evince: object, mex: MatrixExecutor) -> None:
    # the header bar's entries come into the tree a moment after the page (polled together)
    state = state_with(mex, evince, r"page-label-entry, Value: 1$(?s:.*)" + page_line(PAGES[0]))
    assert re.search(r"text \(disabled, settable, string\) Value: of 3$", state, re.M), state


@pytest.mark.matrix("Evince", "go to page")
def test_a_page_is_gone_to_through_the_page_entry(evince: object, mex: MatrixExecutor) -> None:
    state = state_with(mex, evince, r"page-label-entry, Value: \d+$")
    mex.click(evince, element=handle(state, r"text \(settable, string\) page-label-entry"))  # type: ignore[arg-type]
    mex.press_key(evince, "ctrl+a")
    mex.type_text(evince, "3\n")
    state = state_with(mex, evince, r"page-label-entry, Value: 3$")
    assert re.search(page_line(PAGES[2]), state, re.M), state
    assert not re.search(page_line(PAGES[0]), state, re.M), state  # page one scrolled away


@pytest.mark.matrix("Evince", "search result")
def test_a_search_result_clicked_by_handle_shows_its_page(evince: object, mex: MatrixExecutor) -> None:
    state_with(mex, evince, r"page-label-entry, Value: \d+$")  # keys go to an observed window (alone, too)
    mex.press_key(evince, "ctrl+f")
    state_with(mex, evince, r"text \(settable, string\) Search")
    mex.type_text(evince, "Page")
    result = r"table cell (?:\(selected\) )?Page one: alpha introduction 1, Secondary Actions"
    state = state_with(mex, evince, r"table cell (?:\(selected\) )?Page three: gamma results 3")
    mex.click(evince, element=handle(state, result))  # type: ignore[arg-type]
    state = state_with(mex, evince, r"page-label-entry, Value: 1$")
    assert re.search(result.replace("(?:\\(selected\\) )?", "\\(selected\\) "), state, re.M), state
    assert re.search(page_line(PAGES[0]), state, re.M), state
