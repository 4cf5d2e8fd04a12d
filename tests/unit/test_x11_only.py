"""Which apps draw only on X11 (``backends.linux.x11_only``): named (VLC), or read from real files
(a binary's ELF ``DT_NEEDED`` entries, a wrapper script that runs Java); one lookup says why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from deskhand.backends.linux.inventory import DesktopApp
from deskhand.backends.linux.x11_only import needed_libraries, toolkit_without_wayland, x11_only_note

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF binaries")


def test_an_elf_binary_s_needed_libraries_are_read() -> None:
    libs = needed_libraries(str(Path(sys.executable).resolve()))
    assert any(lib.startswith("libc.so") for lib in libs), libs


def test_a_file_that_is_no_elf_has_none(tmp_path: Path) -> None:
    (tmp_path / "x").write_bytes(b"\x7fELF" + b"\0" * 10)
    assert needed_libraries(str(tmp_path / "x")) == []
    assert needed_libraries(str(tmp_path / "missing")) == []


def _script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_java_wrapper_is_x11_only_and_the_note_names_the_app(tmp_path: Path) -> None:
    java = _script(tmp_path, "jedit", '#!/bin/sh\nrun_java org.gjt.sp.jedit.jEdit "$@"\n')
    shell = _script(tmp_path, "tool", '#!/bin/sh\nexec mousepad "$@"\n')
    assert toolkit_without_wayland(java) == "Java (AWT/Swing)"
    assert toolkit_without_wayland(shell) is None
    assert toolkit_without_wayland(str(Path(sys.executable).resolve())) is None  # links no X11-only toolkit
    apps = [DesktopApp("jedit", "jEdit", "jedit", java), DesktopApp("tool", "Tool", "tool", shell)]
    note = x11_only_note("JEDIT", apps)
    assert note is not None and note.startswith("jEdit is a Java (AWT/Swing) app, which has no Wayland backend")
    assert "XWayland" in note
    assert x11_only_note(java, apps) == note  # by its path too
    assert x11_only_note("tool", apps) is None
    assert x11_only_note("nothing", apps) is None


def test_an_app_that_needs_x11_is_named_with_why_and_where_it_runs() -> None:
    for selector in ("vlc", "VLC media player", "/usr/bin/vlc", "org.videolan.VLC"):
        notice = x11_only_note(selector, [])
        assert notice is not None and "Qt's Wayland platform" in notice and "X11 desktop" in notice, selector
        assert notice.startswith("It cannot run natively on this Wayland desktop, which has no XWayland: VLC 3")
    assert x11_only_note("mousepad", []) is None and x11_only_note("vlcx", []) is None
