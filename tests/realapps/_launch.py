"""Helpers of the freshness and transient-window tests over the shared real-app harness
(``apps`` and ``mex`` of ``tests/realapps/conftest.py``).

``chromium_app``/``firefox_app`` start the browser (a fresh profile, from ``_apps``) on a page
of a loopback server that logs every request, wait until the page is in its state, and yield
(executor, app, pages); ``mousepad_app`` and ``writer_app`` yield (executor, app) once the
document is shown. Each app is stopped when its block ends.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from _apps import Apps
from _display import MatrixExecutor

from deskhand.backends.base import AppState, RunningApp
from deskhand.core.errors import NativeError

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


def state_with(ex: MatrixExecutor, app: RunningApp, pattern: str, *, full: bool = True, timeout_s: float = 20.0) -> str:
    """The first state whose text matches ``pattern`` (polled with a deadline)."""
    deadline = time.monotonic() + timeout_s
    while True:
        text: str = ex.get_app_state(app, disable_diff=full).text
        if re.search(pattern, text):
            return text
        assert time.monotonic() < deadline, f"{pattern!r} never appeared in:\n{text}"
        time.sleep(POLL_S)


def placed(ex: MatrixExecutor, app: RunningApp, pattern: str, timeout_s: float = 20.0) -> tuple[AppState, str]:
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


def _ready(ex: MatrixExecutor, pid: int, pattern: str, timeout_s: float) -> RunningApp:
    """The app of ``pid`` once its state matches ``pattern`` (polled with a deadline)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            app = ex.resolve(str(pid))
            if re.search(pattern, ex.get_app_state(app, disable_diff=True).text):
                return app
        except NativeError:
            pass
        assert time.monotonic() < deadline, f"pid {pid}: {pattern!r} not in its state within {timeout_s} s"
        time.sleep(0.2)  # polling the app's start with a deadline


@contextlib.contextmanager
def chromium_app(
    apps: Apps, ex: MatrixExecutor, pages: dict[str, str], first: str
) -> Iterator[tuple[MatrixExecutor, RunningApp, PageLog]]:
    server = PageLog(pages)
    try:
        running = apps.chromium(server.url(first))
        try:
            yield ex, _ready(ex, running.pid, r"document web", 60.0), server
        finally:
            running.app.stop()
    finally:
        server.close()


@contextlib.contextmanager
def firefox_app(
    apps: Apps, ex: MatrixExecutor, pages: dict[str, str], first: str
) -> Iterator[tuple[MatrixExecutor, RunningApp, PageLog]]:
    server = PageLog(pages)
    try:
        running = apps.firefox(server.url(first))
        try:
            yield ex, _ready(ex, running.pid, r"document web", 90.0), server
        finally:
            running.app.stop()
    finally:
        server.close()


@contextlib.contextmanager
def mousepad_app(apps: Apps, ex: MatrixExecutor) -> Iterator[tuple[MatrixExecutor, RunningApp]]:
    running = apps.mousepad()
    try:
        yield ex, _ready(ex, running.pid, r"text \(settable, string\)", 30.0)
    finally:
        running.app.stop()


@contextlib.contextmanager
def writer_app(apps: Apps, ex: MatrixExecutor) -> Iterator[tuple[MatrixExecutor, RunningApp]]:
    """LibreOffice Writer; the app is ``soffice.bin``, which the ``soffice`` launcher starts."""
    running = apps.soffice("writer")
    try:
        deadline = time.monotonic() + 90.0
        while not (found := [p for p in ex.running() if p.identity.executable.endswith("soffice.bin")]):
            assert time.monotonic() < deadline, "soffice.bin never ran"
            time.sleep(0.5)  # polling LibreOffice's start with a deadline
        yield ex, _ready(ex, found[0].identity.pid, r"paragraph", max(1.0, deadline - time.monotonic()))
    finally:
        running.app.stop()
