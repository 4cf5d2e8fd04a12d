"""LibreOffice chains as ONE `js` cell (issue 27), checked from the saved .odt's content.xml.

Writer's Font Name box: click its field, ctrl+a, the font's name, Return, ctrl+s. LibreOffice
applies the font on Return and hands the focus back to the document some 100-300 ms later (VCL
moves a frame's focus from a posted event); it answers the barrier's round trip in between, and a
key that comes while no window has the focus reaches none: before the barrier waited for the focus
to land (``core.barrier``: ``refocus``), the ctrl+s was lost and nothing was saved (5 of 5).

A dialog closed by a click on its OK button by handle, then ctrl+s: keys go only to the observed
key window (native-contract 6.5), so ctrl+s right after the click is refused (``stale_window``),
and its text says what was sent and what was not; the guidance's pattern, a bounded
``getAXState({waitForChangeMs})`` in the same cell, observes the document again and the save goes.

Each chain runs several times in a row on one Writer, and once more with two CPU hogs spinning.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps
from _cells import run_cells
from _display import MatrixExecutor
from _observe import state_with
from test_cell_chains import FIND

from deskhand.desktop import VirtualDesktop
from proc_support import cpu_hogs
from tasks._odf import content, make_odt, q, spans, text_styles

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

TEXT = "Set in another face."
# The fonts set differ from the default paragraph style's (DejaVu Serif: setting it adds no style)
# and from the run before (each run must change the saved file).
SVG_FAMILY = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}font-family"
#: The Font Name box's field (its container's name grows a warning once the font is not installed).
FONT_FIELD = r"Font Name[^\n]*\n\s+(g\d+:\d+) text"
#: The Character dialog's font family field: the text just above the list of families.
FAMILY_FIELD = (
    r"(g\d+:\d+) text (?:\(focused\) )?\(settable, string\) Value: [^\n]*"
    r"(?=\n\t*g\d+:\d+ scroll pane[^\n]*\n\t*g\d+:\d+ tree table Description: Select the font)"
)
#: Until the document window is the key window again (the guidance's bounded in-cell wait).
BACK_IN_DOCUMENT = (
    "let w = '';\n"
    'for (let i = 0; i < 10 && !/Window: "chain\\.odt/.test(w); i++)\n'
    "  w = await app.getAXState({waitForChangeMs: 1000, emit: false});\n"
    "if (!/Window: \"chain\\.odt/.test(w)) throw new Error('still no document: ' + w.slice(0, 300));\n"
)


@pytest.fixture(scope="module")
def writer(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    doc = make_odt(tmp_path_factory.mktemp("chains") / "chain.odt", [TEXT])
    running = apps.soffice("writer", doc)
    state_with(mex, mex.resolve(str(running.pid)), FONT_FIELD, timeout_s=90.0)
    yield {"pid": running.pid, "doc": doc}


def _font_of_text(doc: Path) -> str | None:
    """The font family on the text: its automatic style's font name, through the document's font
    face declarations (LibreOffice names a second declaration of a family "DejaVu Serif1")."""
    root = content(doc)
    styles = text_styles(root)
    families = {
        face.get(q("style:name"), ""): face.get(SVG_FAMILY, "").strip("'") for face in root.iter(q("style:font-face"))
    }
    names = [styles.get(style, {}).get("font-name") for text, style in spans(root) if TEXT in text]
    return next((families.get(n, n) for n in names if n), None)


def saved_font(doc: Path, mtime: int, font: str, timeout_s: float = 30.0) -> None:
    """The document was saved after ``mtime`` with ``font`` on the text (polled with a deadline)."""
    deadline = time.monotonic() + timeout_s
    found: str | None = None
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, KeyError, ValueError, SyntaxError):
            if doc.stat().st_mtime_ns != mtime and (found := _font_of_text(doc)) == font:
                return
        time.sleep(0.2)  # polling the saved file with a deadline
    saved = doc.stat().st_mtime_ns != mtime
    raise AssertionError(f"{doc} without {font!r} on the text after {timeout_s} s (saved: {saved}, font: {found!r})")


def _select_text(desktop: VirtualDesktop, pid: int) -> None:
    """Setup, not the chain: select the whole paragraph (an accessible selection, then observed)."""
    cell = (
        f'var app = await cua.getApp("{pid}");\n{FIND}'
        f"await app.selectText(h('paragraph (?:\\\\(focused\\\\) )?\\\\(settable, string\\\\) Set in'), {TEXT!r});\n"
        "await app.getAXState({emit: false});"
    )
    [result] = run_cells(desktop, [cell])
    assert not result.is_error, result.text


def _results(text: str) -> list[dict[str, Any]]:
    line = next(ln for ln in text.splitlines() if ln.startswith("[{"))
    results: list[dict[str, Any]] = json.loads(line)
    return results


@pytest.mark.matrix("LibreOffice Writer", "cell chain", "font name box", "save")
@pytest.mark.parametrize(
    ("font", "load"),
    [("Times New Roman", False), ("Courier New", False), ("Liberation Sans", False), ("DejaVu Sans Mono", True)],
    ids=["run1", "run2", "run3", "two_cpu_hogs"],
)
def test_writer_font_name_box_click_type_return_save_in_one_cell(
    writer: dict[str, Any], matrix_desktop: VirtualDesktop, font: str, load: bool
) -> None:
    pid, doc = writer["pid"], writer["doc"]
    _select_text(matrix_desktop, pid)
    mtime = doc.stat().st_mtime_ns
    cell = (
        f'var app = await cua.getApp("{pid}");\n{FIND}'
        f"const field = new RegExp({FONT_FIELD!r}).exec(s)[1];\n"
        "const r = [];\n"
        "r.push(await app.click(field));\n"
        "r.push(await app.pressKey('ctrl+a'));\n"
        f"r.push(await app.typeText({font!r}));\n"
        "r.push(await app.pressKey('Return'));\n"  # the font is applied; the focus goes back later
        "r.push(await app.pressKey('ctrl+s'));\n"  # waits until it has landed in the document
        "nodeRepl.write(JSON.stringify(r));"
    )
    with cpu_hogs(load):
        [result] = run_cells(matrix_desktop, [cell])
        assert not result.is_error, result.text
        try:
            saved_font(doc, mtime, font)
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.text[-3000:]}") from None
    results = _results(result.text)
    # no step claims more than the app showed: keys are unverifiable, the typed name was read back
    assert [r["effect"] for r in results[1:]] == ["unverifiable", "confirmed", "unverifiable", "unverifiable"], results
    if not load:
        assert not any("unsettled" in r for r in results), results


def _open_character_dialog(desktop: VirtualDesktop, pid: int) -> None:
    """Setup, not the chain: Format > Character..., observed until its window is the key window."""
    cell = (
        f'var app = await cua.getApp("{pid}");\n{FIND}'
        "await app.click(h('(?:menu )?Format$'));\n"
        "let m = '';\n"
        "for (let i = 0; i < 10 && !/menu item Character/.test(m); i++)\n"
        "  m = await app.getAXState({waitForChangeMs: 1000, emit: false, disableDiffing: true});\n"
        "await app.click(new RegExp('(g\\\\d+:\\\\d+) menu item Character', 'm').exec(m)[1]);\n"
        "let d = '';\n"
        'for (let i = 0; i < 10 && !/Window: "Character/.test(d); i++)\n'
        "  d = await app.getAXState({waitForChangeMs: 1000, emit: false});\n"
        "if (!/Window: \"Character/.test(d)) throw new Error('no dialog: ' + d.slice(0, 300));"
    )
    [result] = run_cells(desktop, [cell])
    assert not result.is_error, result.text


def _dialog_cell(pid: int, font: str, then: str) -> str:
    return (
        f'var app = await cua.getApp("{pid}");\n{FIND}'
        f"const family = new RegExp({FAMILY_FIELD!r}).exec(s)[1];\n"
        "const r = [];\n"
        f"r.push(await app.setValue(family, {font!r}));\n"
        "r.push(await app.click(h('push button OK')));\n"  # by handle: an accessible press action
        f"{then}"
        "r.push(await app.pressKey('ctrl+s'));\n"
        "nodeRepl.write(JSON.stringify(r));"
    )


@pytest.mark.matrix("LibreOffice Writer", "cell chain", "dialog OK", "observe in the cell", "save")
@pytest.mark.parametrize(
    ("font", "load"),
    [("Liberation Mono", False), ("DejaVu Sans", False), ("Liberation Serif", False), ("FreeSans", True)],
    ids=["run1", "run2", "run3", "two_cpu_hogs"],
)
def test_writer_dialog_ok_by_handle_then_a_bounded_look_then_ctrl_s_saves_in_one_cell(
    writer: dict[str, Any], matrix_desktop: VirtualDesktop, font: str, load: bool
) -> None:
    pid, doc = writer["pid"], writer["doc"]
    _select_text(matrix_desktop, pid)
    _open_character_dialog(matrix_desktop, pid)
    mtime = doc.stat().st_mtime_ns
    with cpu_hogs(load):
        [result] = run_cells(matrix_desktop, [_dialog_cell(pid, font, BACK_IN_DOCUMENT)])
        assert not result.is_error, result.text
        saved_font(doc, mtime, font)
    results = _results(result.text)
    assert [r["effect"] for r in results] == ["confirmed", "unverifiable", "unverifiable"], results


@pytest.mark.matrix("LibreOffice Writer", "cell chain", "dialog OK", "refusal names the calls sent")
def test_writer_ctrl_s_right_after_the_dialog_closed_is_refused_and_says_what_was_and_was_not_sent(
    writer: dict[str, Any], matrix_desktop: VirtualDesktop
) -> None:
    pid, doc = writer["pid"], writer["doc"]
    _select_text(matrix_desktop, pid)
    _open_character_dialog(matrix_desktop, pid)
    mtime = doc.stat().st_mtime_ns
    [result] = run_cells(matrix_desktop, [_dialog_cell(pid, "Liberation Sans Narrow", "")])
    assert result.is_error, result.text
    text = result.text
    assert "stale_window" in text or "key window changed" in text, text
    wid = r"\d+" if matrix_desktop.wayland else r"0x[0-9a-f]+"  # a compositor's view id, or an X window's
    gone = rf"observed key window {wid}, which is gone \(now window {wid} \('chain\.odt"
    assert re.search(gone, text), text
    assert "Not sent: press_key('ctrl+s')." in text, text
    assert re.search(r"set_value\(g\d+:\d+\), click\(g\d+:\d+\) were sent", text), text
    assert "getAXState({waitForChangeMs" in text, text  # the way on
    assert doc.stat().st_mtime_ns == mtime  # ctrl+s never went out
    # the way on, as the refusal says: observe the document, then the keys again
    way_on = f'var app = await cua.getApp("{pid}");\n{BACK_IN_DOCUMENT}await app.pressKey("ctrl+s");'
    [again] = run_cells(matrix_desktop, [way_on])
    assert not again.is_error, again.text
    saved_font(doc, mtime, "Liberation Sans Narrow")  # the OK click had applied it; the save came now
