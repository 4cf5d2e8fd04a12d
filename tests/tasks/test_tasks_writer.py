"""Document formatting in LibreOffice Writer: bold a word, set a font, insert a table, save as
.odt and as .docx; each checked from the saved file's XML. One Writer serves the module."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar
from xml.etree import ElementTree as ET

import pytest
from _agent import Agent, js, need
from _odf import content, make_odt, q, spans, text_styles
from _soffice import Office

from realapps._apps import Apps

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

T = TypeVar("T")
PARAGRAPH = r"paragraph (?:\(focused\) )?(?:\(settable, string\) )?"
#: The Character dialog's font family field: the text just above the list of families.
FAMILY_FIELD = (
    r"text (?:\(focused\) )?\(settable, string\) Value: [^\n]*"
    r"(?=\n\t*g\d+:\d+ scroll pane[^\n]*\n\t*g\d+:\d+ tree table Description: Select the font)"
)
COLUMNS = r"spin button (?:\(focused\) )?\(settable, string\) Description: Enter the number of columns"
INSERT = "push button Insert"
USE_WORD = "push button Use Word"
ROWS = r"spin button (?:\(focused\) )?\(settable, string\) Description: Enter the number of rows"


@pytest.fixture(scope="module")
def writer(apps: Apps, agent: Agent) -> Iterator[Office]:
    yield Office(apps, agent, "writer")


def saved(path: Path, check: Callable[[ET.Element], T], member: str = "content.xml", timeout_s: float = 30.0) -> T:
    """``check`` of the saved document, polled until it passes (the save may still be writing)."""
    deadline = time.monotonic() + timeout_s
    mtime = path.stat().st_mtime_ns if path.exists() else 0
    while True:
        try:
            if path.exists() and (mtime == 0 or path.stat().st_mtime_ns != mtime or time.monotonic() > deadline - 25):
                return check(content(path, member))
        except (AssertionError, KeyError, ET.ParseError, OSError, ValueError) as e:
            if time.monotonic() > deadline:
                raise AssertionError(f"{path}: {e}") from e
        assert time.monotonic() < deadline, f"{path} was not saved"
        time.sleep(0.2)  # polling the saved file with a deadline


def bold(word: str) -> Callable[[ET.Element], None]:
    def check(root: ET.Element) -> None:
        styles = text_styles(root)
        found = [(t, styles.get(s, {})) for t, s in spans(root)]
        assert any(t == word and p.get("font-weight") == "bold" for t, p in found), found

    return check


def save_as(agent: Agent, pid: int, target: Path) -> str:
    """Save As through the dialog: open it (and observe it), type the path into its name field and
    press Return in one cell; the state after."""
    agent.act(pid, lambda _s: "await app.pressKey('ctrl+shift+s');").expect_ok()
    agent.until(pid, r"Window: \"Save(?: As)?\"(?s:.*)label Name")
    field = r"text (?:\(focused\) )?(?:\(settable, string\) )?(?:Name)?"
    agent.act(
        pid,
        lambda s: (
            f"await app.click({js(need(s, field))}); await app.pressKey('ctrl+a');"
            f"await app.typeText({js(str(target))}); await app.pressKey('Return');"
        ),
    ).expect_ok()
    return agent.observe(pid, wait_ms=2000)


@pytest.mark.task("LibreOffice Writer")
def test_bold_one_word_and_save(writer: Office, agent: Agent, tmp_path: Path) -> None:
    doc = make_odt(tmp_path / "fox.odt", ["The quick brown fox jumps."])
    writer.open(doc, "fox.odt")
    agent.act(
        writer.pid,
        lambda s: (
            f"await app.selectText({js(need(s, PARAGRAPH + 'The quick'))}, 'brown');"
            "await app.pressKey('ctrl+b'); await app.pressKey('ctrl+s');"
        ),
    ).expect_ok()
    saved(doc, bold("brown"))


@pytest.mark.task("LibreOffice Writer")
def test_set_the_font_of_the_text_and_save(writer: Office, agent: Agent, tmp_path: Path) -> None:
    doc = make_odt(tmp_path / "font.odt", ["Set in another face."])
    writer.open(doc, "font.odt")
    # select the text, open Format > Character..., set the family, OK; then save
    agent.act(
        writer.pid,
        lambda s: (
            f"await app.selectText({js(need(s, PARAGRAPH + 'Set in'))}, 'Set in another face.');"
            f"await app.click({js(need(s, r'(?:menu )?Format$'))});"
        ),
    ).expect_ok()
    menu = agent.until(writer.pid, r"menu item Character")
    agent.act(writer.pid, lambda s: f"await app.click({js(need(s or menu, r'menu item Character'))});").expect_ok()
    agent.until(writer.pid, r"Window: \"Character")
    agent.act(
        writer.pid,
        lambda s: (
            f"await app.setValue({js(need(s, FAMILY_FIELD))}, 'DejaVu Sans Mono');"
            f"await app.click({js(need(s, r'push button OK'))});"
        ),
    ).expect_ok()
    agent.until(writer.pid, r"Window: \"font\.odt")
    agent.act(writer.pid, lambda _s: "await app.pressKey('ctrl+s');").expect_ok()

    def check(root: ET.Element) -> None:
        styles = text_styles(root)
        faces = [styles.get(s, {}).get("font-name") for t, s in spans(root) if "another face" in t]
        assert "DejaVu Sans Mono" in faces, (faces, styles)

    saved(doc, check)


@pytest.mark.task("LibreOffice Writer")
def test_insert_a_three_by_four_table_and_save(writer: Office, agent: Agent, tmp_path: Path) -> None:
    doc = make_odt(tmp_path / "table.odt", ["Table below."])
    writer.open(doc, "table.odt")
    agent.act(writer.pid, lambda _s: "await app.pressKey('ctrl+F12');").expect_ok()
    agent.until(writer.pid, r"Window: \"Insert Table(?s:.*)spin button")
    agent.act(
        writer.pid,
        lambda s: (
            f"await app.setValue({js(need(s, COLUMNS))}, '3');"
            f"await app.setValue({js(need(s, ROWS))}, '4');"
            f"await app.click({js(need(s, INSERT))});"
        ),
    ).expect_ok()
    agent.until(writer.pid, r"Window: \"table\.odt")
    agent.act(writer.pid, lambda _s: "await app.pressKey('ctrl+s');").expect_ok()

    def check(root: ET.Element) -> None:
        tables = list(root.iter(q("table:table")))
        assert len(tables) == 1, tables
        rows = list(tables[0].iter(q("table:table-row")))
        assert [len(r.findall(q("table:table-cell"))) for r in rows] == [3, 3, 3, 3]

    saved(doc, check)


@pytest.mark.task("LibreOffice Writer")
def test_save_as_word_document(writer: Office, agent: Agent, tmp_path: Path) -> None:
    doc = make_odt(tmp_path / "memo.odt", ["Quarterly memo for the board."])
    writer.open(doc, "memo.odt")
    target = tmp_path / "memo.docx"
    save_as(agent, writer.pid, target)
    # LibreOffice asks which format to keep (an alert, seconds after the file dialog closes on a
    # loaded machine), unless it saves at once: look until one or the other shows
    state = agent.until(writer.pid, rf"{USE_WORD}|Window: \"memo\.docx")
    if re.search(USE_WORD, state):
        agent.act(writer.pid, lambda s: f"await app.click({js(need(s, USE_WORD))});").expect_ok()

    def check(root: ET.Element) -> None:
        text = "".join(t.text or "" for t in root.iter(q("w:t")))
        assert text == "Quarterly memo for the board.", text

    saved(target, check, member="word/document.xml")


@pytest.mark.task("LibreOffice Writer")
def test_save_as_odt_under_a_new_name(writer: Office, agent: Agent, tmp_path: Path) -> None:
    doc = make_odt(tmp_path / "draft.odt", ["Final text."])
    writer.open(doc, "draft.odt")
    target = tmp_path / "final.odt"
    save_as(agent, writer.pid, target)
    saved(target, lambda root: None if any(t == "Final text." for t, _ in spans(root)) else pytest.fail("no text"))
