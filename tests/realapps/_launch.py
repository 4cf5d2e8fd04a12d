"""Small launchers (Chromium with a loopback page server, Mousepad) for the freshness and
transient-window tests, until the shared real-app harness of ``tests/realapps/conftest.py`` is
there to use instead.

``chromium_app`` starts a private desktop with accessibility enabled (``org.a11y.Status``), a
page server on 127.0.0.1 and Chromium with a fresh profile, and yields (executor, app, pages);
``mousepad_app`` yields (executor, app) for a Mousepad with a fresh HOME.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

from deskhand.backends.base import AppState, RunningApp
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.errors import NativeError
from deskhand.desktop import VirtualDesktop

CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--force-renderer-accessibility",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--password-store=basic",
    "--window-size=1000,800",
    "--window-position=0,0",
)
POLL_S = 0.05


class PageLog:
    """Serves ``pages`` (path -> HTML) on a free loopback port and logs every request path."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.gets: list[str] = []
        log = self.gets

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                log.append(self.path)
                body = pages.get(self.path.split("?", 1)[0], "<!doctype html><title>Nothing</title>")
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}{path}"

    def count(self, prefix: str) -> int:
        return sum(1 for g in list(self.gets) if g.startswith(prefix))

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def wait_for(check: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {timeout_s} s"
        time.sleep(POLL_S)  # polling with a deadline


def state_with(ex: LinuxExecutor, app: RunningApp, pattern: str, *, full: bool = True, timeout_s: float = 20.0) -> str:
    """The first state whose text matches ``pattern`` (polled with a deadline)."""
    deadline = time.monotonic() + timeout_s
    while True:
        text: str = ex.get_app_state(app, disable_diff=full).text
        if re.search(pattern, text):
            return text
        assert time.monotonic() < deadline, f"{pattern!r} never appeared in:\n{text}"
        time.sleep(POLL_S)


def placed(ex: LinuxExecutor, app: RunningApp, pattern: str, timeout_s: float = 20.0) -> tuple[AppState, str]:
    """A full state with a screenshot in which the element matching ``pattern`` has its frame
    (a page still laying out, or a read cut short, has none yet), and its handle."""
    deadline = time.monotonic() + timeout_s
    while True:
        state = ex.get_app_state(app, disable_diff=True)
        m = re.search(r"(g\d+:\d+) " + pattern, state.text)
        try:
            if m is not None and state.image is not None and ex.element(app, m.group(1)).frame is not None:
                return state, m.group(1)
        except NativeError:
            pass  # it changed since this state: observe again
        assert time.monotonic() < deadline, f"{pattern!r} never had a frame in:\n{state.text}"
        time.sleep(0.05)  # polling the app's state with a deadline


def enable_accessibility(desktop: VirtualDesktop) -> None:
    conn = open_dbus_connection(bus=desktop.env["DBUS_SESSION_BUS_ADDRESS"])
    try:
        addr = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.freedesktop.DBus.Properties")
        conn.send_and_get_reply(
            new_method_call(addr, "Set", "ssv", ("org.a11y.Status", "IsEnabled", ("b", True))), timeout=5.0
        )
    finally:
        conn.close()


@contextlib.contextmanager
def chromium_app(pages: dict[str, str], first: str, tmp: Path) -> Iterator[tuple[LinuxExecutor, RunningApp, PageLog]]:
    binary = shutil.which("chromium")
    if binary is None or shutil.which("Xvfb") is None:
        pytest.skip("chromium or Xvfb is not installed (make deps installs them)")
    server = PageLog(pages)
    desktop = VirtualDesktop()
    desktop.start()
    try:
        enable_accessibility(desktop)
        profile = tmp / "profile"
        profile.mkdir()
        proc = desktop.launch(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", server.url(first)],
            env={"HOME": str(tmp), "GSETTINGS_BACKEND": "memory"},
            log_path=tmp / "chromium.log",
        )
        ex = LinuxExecutor(display=desktop.env["DISPLAY"], a11y_address=desktop.env["AT_SPI_BUS_ADDRESS"])
        try:
            deadline = time.monotonic() + 60.0
            while True:
                try:
                    app = ex.resolve(str(proc.pid))
                    if "document web" in ex.get_app_state(app, disable_diff=True).text:
                        break
                except NativeError:
                    pass
                assert proc.running(), (tmp / "chromium.log").read_text(errors="replace")[-2000:]
                assert time.monotonic() < deadline, "Chromium showed no page within 60 s"
                time.sleep(0.2)  # polling Chromium's start with a deadline
            yield ex, app, server
        finally:
            ex.close()
            proc.stop()
    finally:
        desktop.stop()
        server.close()


@contextlib.contextmanager
def mousepad_app(tmp: Path) -> Iterator[tuple[LinuxExecutor, RunningApp]]:
    binary = shutil.which("mousepad")
    if binary is None or shutil.which("Xvfb") is None:
        pytest.skip("mousepad or Xvfb is not installed (make deps installs them)")
    desktop = VirtualDesktop()
    desktop.start()
    try:
        proc = desktop.launch(
            [binary, "--disable-server"],
            env={"HOME": str(tmp), "GSETTINGS_BACKEND": "memory", "XDG_CONFIG_HOME": str(tmp / "config")},
            log_path=tmp / "mousepad.log",
        )
        ex = LinuxExecutor(display=desktop.env["DISPLAY"], a11y_address=desktop.env["AT_SPI_BUS_ADDRESS"])
        try:
            deadline = time.monotonic() + 30.0
            while True:
                try:
                    app = ex.resolve(str(proc.pid))
                    if "text (settable, string)" in ex.get_app_state(app, disable_diff=True).text:
                        break
                except NativeError:
                    pass
                assert proc.running(), (tmp / "mousepad.log").read_text(errors="replace")[-2000:]
                assert time.monotonic() < deadline, "Mousepad showed no document within 30 s"
                time.sleep(0.1)  # polling Mousepad's start with a deadline
            yield ex, app
        finally:
            ex.close()
            proc.stop()
    finally:
        desktop.stop()


@contextlib.contextmanager
def writer_app(tmp: Path) -> Iterator[tuple[LinuxExecutor, RunningApp]]:
    """LibreOffice Writer (GTK 3 plugin, fresh profile); the app is ``soffice.bin``, which the
    ``soffice`` launcher starts."""
    binary = shutil.which("soffice")
    if binary is None or shutil.which("Xvfb") is None:
        pytest.skip("soffice or Xvfb is not installed (make deps installs them)")
    desktop = VirtualDesktop()
    desktop.start()
    try:
        enable_accessibility(desktop)
        argv = [binary, "--norestore", "--nologo", "--nolockcheck", f"-env:UserInstallation={(tmp / 'lo').as_uri()}"]
        proc = desktop.launch(
            [*argv, "--writer"],
            env={"HOME": str(tmp), "SAL_USE_VCLPLUGIN": "gtk3", "GSETTINGS_BACKEND": "memory"},
            log_path=tmp / "soffice.log",
        )
        ex = LinuxExecutor(display=desktop.env["DISPLAY"], a11y_address=desktop.env["AT_SPI_BUS_ADDRESS"])
        try:
            deadline = time.monotonic() + 90.0
            while True:
                found = [p for p in ex.running() if p.identity.executable.endswith("soffice.bin")]
                try:
                    if found:
                        app = ex.resolve(str(found[0].identity.pid))
                        if re.search(r"paragraph", ex.get_app_state(app, disable_diff=True).text):
                            break
                except NativeError:
                    pass
                assert time.monotonic() < deadline, "Writer showed no document within 90 s"
                time.sleep(0.5)  # polling LibreOffice's start with a deadline
            yield ex, app
        finally:
            ex.close()
            proc.stop()
    finally:
        desktop.stop()


FIREFOX_PREFS = (
    'user_pref("browser.shell.checkDefaultBrowser", false);',
    'user_pref("browser.aboutwelcome.enabled", false);',
    'user_pref("datareporting.policy.dataSubmissionEnabled", false);',
    'user_pref("browser.startup.homepage_override.mstone", "ignore");',
    'user_pref("app.update.enabled", false);',
)


@contextlib.contextmanager
def firefox_app(pages: dict[str, str], first: str, tmp: Path) -> Iterator[tuple[LinuxExecutor, RunningApp, PageLog]]:
    binary = shutil.which("firefox-esr")
    if binary is None or shutil.which("Xvfb") is None:
        pytest.skip("firefox-esr or Xvfb is not installed (make deps installs them)")
    server = PageLog(pages)
    desktop = VirtualDesktop()
    desktop.start()
    try:
        enable_accessibility(desktop)
        profile = tmp / "profile"
        profile.mkdir()
        (profile / "user.js").write_text("\n".join(FIREFOX_PREFS) + "\n")
        proc = desktop.launch(
            [binary, "--no-remote", "--new-instance", "--profile", str(profile), server.url(first)],
            env={"HOME": str(tmp), "MOZ_CRASHREPORTER_DISABLE": "1", "GSETTINGS_BACKEND": "memory"},
            log_path=tmp / "firefox.log",
        )
        ex = LinuxExecutor(display=desktop.env["DISPLAY"], a11y_address=desktop.env["AT_SPI_BUS_ADDRESS"])
        try:
            deadline = time.monotonic() + 90.0
            while True:
                try:
                    app = ex.resolve(str(proc.pid))
                    if "document web" in ex.get_app_state(app, disable_diff=True).text:
                        break
                except NativeError:
                    pass
                assert proc.running(), (tmp / "firefox.log").read_text(errors="replace")[-2000:]
                assert time.monotonic() < deadline, "Firefox showed no page within 90 s"
                time.sleep(0.3)  # polling Firefox's start with a deadline
            yield ex, app, server
        finally:
            ex.close()
            proc.stop()
    finally:
        desktop.stop()
        server.close()
