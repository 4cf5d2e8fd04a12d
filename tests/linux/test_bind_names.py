"""Binding real apps by the names a user knows: LibreOffice Writer by its ``.desktop`` name (it
runs as ``soffice.bin`` behind two wrapper scripts), Chromium by its wrapper script's path
``/usr/bin/chromium`` and by "Chromium" (its window class)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from _act_support import poll

from deskhand.backends.base import RunningApp
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop


def _resolves(ex: LinuxExecutor, selector: str) -> RunningApp | None:
    try:
        return ex.resolve(selector)
    except NativeError:
        return None


def test_libreoffice_writer_binds_by_its_desktop_name(launch: Any, ex: LinuxExecutor, tmp_path: Path) -> None:
    if shutil.which("libreoffice") is None:
        pytest.skip("libreoffice is not installed")
    profile = tmp_path / "lo-profile"
    argv = ["libreoffice", "--writer", "--norestore", "--nologo", f"-env:UserInstallation={profile.as_uri()}"]
    launch(argv, env={"SAL_USE_VCLPLUGIN": "gtk3"}, wait_on_bus=False)
    first = poll(lambda: _resolves(ex, "LibreOffice Writer"), timeout_s=90.0, what="LibreOffice on the bus")
    assert Path(first.identity.executable).name == "soffice.bin"

    def writer_window() -> RunningApp | None:
        # before its window maps the process goes by its start-without-options entry's name
        app = _resolves(ex, "LibreOffice Writer")
        return app if app is not None and app.display_name == "LibreOffice Writer" else None

    # (a fresh profile makes LibreOffice restart once: the pid may differ from the first one)
    app = poll(writer_window, timeout_s=60.0, what="LibreOffice Writer's window (WM_CLASS libreoffice-writer)")
    assert Path(app.identity.executable).name == "soffice.bin"
    for selector in ("libreoffice writer", "libreoffice-writer", "soffice.bin"):
        assert ex.resolve(selector).pid == app.pid
    row = next(r for r in ex.list_apps() if r.pid == app.pid)
    assert (row.display_name, row.is_running) == ("LibreOffice Writer", True)
    assert row.id == app.identity.app_id == "libreoffice-startcenter"  # the entry started without options
    with pytest.raises(NativeError) as err:
        ex.resolve("LibreOffice Impress Nonexistent")
    assert err.value.code == "target_not_running"


def test_chromium_binds_by_its_wrapper_script_and_its_name(launch: Any, ex: LinuxExecutor, tmp_path: Path) -> None:
    wrapper = "/usr/bin/chromium"
    if not Path(wrapper).exists():
        pytest.skip("chromium is not installed")
    argv = [
        wrapper, "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'chromium'}", "about:blank",
    ]  # fmt: skip
    browser = launch(argv, wait_on_bus=False)
    app = poll(lambda: _resolves(ex, "Chromium"), timeout_s=60.0, what="Chromium's window")
    assert app.pid == browser.pid  # the wrapper execs the browser: same pid
    assert Path(app.identity.executable).name == "chromium" and app.identity.executable != wrapper
    assert Path(wrapper).read_bytes()[:2] == b"#!"  # really a wrapper script
    assert ex.resolve(wrapper).pid == app.pid
    assert ex.resolve("chromium").pid == app.pid
    titled = poll(lambda: _resolves(ex, "about:blank - Chromium"), timeout_s=30.0, what="Chromium's window title")
    assert titled.pid == app.pid
    row = next(r for r in ex.list_apps() if r.pid == app.pid)
    assert row.is_running and row.id == "chromium"
