"""A loopback HTTP server for the browser tests: serves fixed pages and records what is posted."""

from __future__ import annotations

import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType


@dataclass
class Post:
    """One request body a browser sent: its path and its form fields (``a=1&b=2`` decoded)."""

    path: str
    form: dict[str, list[str]]
    raw: bytes
    t: float = field(default_factory=time.monotonic)


class PageServer:
    """``pages`` maps a path ("/form") to its HTML; every POST is kept in ``posts``.

    Binds 127.0.0.1 on a free port; ``url(path)`` is what a browser opens."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = dict(pages)
        self.posts: list[Post] = []
        self.gets: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                with server._lock:
                    server.gets.append(self.path)
                body = server.pages.get(path)
                if body is None:
                    self.send_error(404)
                    return
                data = body.encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                form = urllib.parse.parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
                with server._lock:
                    server.posts.append(Post(self.path, form, raw))
                data = b"<!doctype html><title>Thanks</title><p>Received.</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="page-server", daemon=True)

    def __enter__(self) -> PageServer:
        self._thread.start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def url(self, path: str = "/") -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}{path}"

    def wait_post(self, path: str, timeout_s: float = 15.0) -> Post:
        """The first POST to ``path``; polls until one arrives or ``timeout_s`` passes."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                found = next((p for p in self.posts if p.path == path), None)
            if found is not None:
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(f"nothing was posted to {path} within {timeout_s} s (posts: {self.posts})")
            time.sleep(0.02)
