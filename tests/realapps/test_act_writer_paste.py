"""A rich paste (markdown) into LibreOffice Writer is confirmed, never a false
``clipboard_target_timeout``, and lands as formatted paragraphs: the document is saved and read
back by a headless LibreOffice (``--convert-to txt``), whose text must hold the pasted lines
(issue 12 item 4). On X11 and on sway (the gtk3 VCL plugin is a native Wayland client there,
the paste goes through data control)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps
from _display import MatrixExecutor
from _observe import state_with
from _office import convert

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

MARKDOWN = "# Shopping\n\nBuy **fresh** bread\n\n- apples\n- pears\n"
#: How the headless reading of the saved document shows it (bullets become list text).
EXPECTED_LINES = ("Shopping", "Buy fresh bread", "apples", "pears")


@pytest.fixture(scope="module")
def writer(apps: Apps, mex: MatrixExecutor, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("writer-paste")
    seed = tmp / "doc.txt"
    seed.write_text("")
    doc = convert(seed, "odt", tmp, tmp / "convert-profile")
    running = apps.soffice("writer", doc)
    app = mex.resolve(str(running.pid))
    state_with(mex, app, r'^Window: "doc\.odt', timeout_s=90.0)
    yield {"app": app, "doc": doc, "tmp": tmp}


def _poll(fn: Any, timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (got := fn()):
        assert time.monotonic() < deadline, f"{what}: not within {timeout_s} s"
        time.sleep(0.1)  # polling with a deadline
    return got


@pytest.mark.matrix("LibreOffice Writer", "paste")
def test_markdown_paste_into_writer_is_confirmed_and_saved(writer: dict[str, Any], mex: MatrixExecutor) -> None:
    app, doc, tmp = writer["app"], writer["doc"], writer["tmp"]
    mex.get_app_state(app)
    got = mex.paste(app, MARKDOWN, "md")
    assert got.outcome is not None and got.outcome.effect == "confirmed", got
    before = doc.stat().st_mtime_ns
    mex.press_key(app, "ctrl+s")
    _poll(lambda: doc.stat().st_mtime_ns != before, 30.0, "doc.odt saved")
    text = _poll(lambda: _read(doc, tmp / "out", tmp), 60.0, "the saved document read back")
    lines = [line.strip(" \u2022\t-*") for line in text.splitlines() if line.strip()]
    for want in EXPECTED_LINES:
        assert want in lines, (want, lines)


def _read(doc: Path, out: Path, tmp: Path) -> str | None:
    try:
        return convert(doc, "txt:Text (encoded):UTF8", out, tmp / "read-profile").read_text(encoding="utf-8-sig")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
