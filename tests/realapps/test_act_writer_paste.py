"""A rich paste (markdown) into LibreOffice Writer is confirmed, never a false
``clipboard_target_timeout``, and lands as formatted paragraphs: the document is saved and read
back by a headless LibreOffice (``--convert-to txt``), whose text must hold the pasted lines
(issue 12 item 4)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_act_browsers import desktop, ex, home, poll  # noqa: F401 - the module's fixtures

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.desktop import VirtualDesktop
from proc_support import descendants

pytestmark = pytest.mark.desktop

MARKDOWN = "# Shopping\n\nBuy **fresh** bread\n\n- apples\n- pears\n"
#: How the headless reading of the saved document shows it (bullets become list text).
EXPECTED_LINES = ("Shopping", "Buy fresh bread", "apples", "pears")


def _soffice() -> str:
    found = shutil.which("soffice")
    if found is None:
        pytest.skip("libreoffice is not installed")
    return found


def _convert(src: Path, fmt: str, out_dir: Path, profile: Path) -> Path:
    """``soffice --headless --convert-to`` with a profile of its own (not the GUI instance's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    subprocess.run(
        [_soffice(), f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
         "--convert-to", fmt, "--outdir", str(out_dir), str(src)],
        check=True, capture_output=True, timeout=120, env=env,
    )  # fmt: skip
    return out_dir / f"{src.stem}.{fmt.split(':', 1)[0]}"


@pytest.fixture(scope="module")
def writer(
    desktop: VirtualDesktop,  # noqa: F811
    ex: LinuxExecutor,  # noqa: F811
    tmp_path_factory: Any,
) -> Iterator[tuple[RunningApp, Path, Path]]:
    tmp = tmp_path_factory.mktemp("writer")
    seed = tmp / "doc.txt"
    seed.write_text("")
    doc = _convert(seed, "odt", tmp, tmp / "convert-profile")
    profile = tmp / "gui-profile"
    argv = [_soffice(), f"-env:UserInstallation={profile.as_uri()}", "--norestore", "--nologo", str(doc)]
    proc = desktop.launch(argv, env=home(tmp), log_path=tmp / "writer.log")

    def ready() -> RunningApp | None:
        for pid in descendants(proc.pid):
            try:
                app = ex.resolve(str(pid))
                if ex.key_window(app) and "doc.odt" in ex.get_app_state(app, disable_diff=True).text:
                    return app
            except Exception:
                continue
        return None

    try:
        yield poll(ready, 90.0, "Writer with doc.odt on the bus"), doc, tmp
    finally:
        proc.stop()


@pytest.mark.matrix("LibreOffice Writer", "paste")
def test_markdown_paste_into_writer_is_confirmed_and_saved(
    ex: LinuxExecutor,  # noqa: F811
    writer: tuple[RunningApp, Path, Path],
) -> None:
    app, doc, tmp = writer
    got = ex.paste(app, MARKDOWN, "md")
    assert got.outcome is not None and got.outcome.effect == "confirmed", got
    before = doc.stat().st_mtime_ns
    ex.press_key(app, "ctrl+s")
    poll(lambda: doc.stat().st_mtime_ns != before, 30.0, "doc.odt saved")
    out = tmp / "out"
    text = poll(lambda: _read(doc, out, tmp), 60.0, "the saved document read back")
    lines = [line.strip(" \u2022\t-*") for line in text.splitlines() if line.strip()]
    for want in EXPECTED_LINES:
        assert want in lines, (want, lines)


def _read(doc: Path, out: Path, tmp: Path) -> str | None:
    try:
        return _convert(doc, "txt:Text (encoded):UTF8", out, tmp / "read-profile").read_text(encoding="utf-8-sig")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
