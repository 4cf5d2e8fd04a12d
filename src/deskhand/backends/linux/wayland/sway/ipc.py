"""sway's IPC (the i3 protocol): the window inventory and the commands that focus and place windows.

A message is ``i3-ipc``, its payload length and type (32-bit, native order), then JSON.
``get_tree`` lists every view with its pid, app_id, title, rect and focus; ``run_command`` runs
sway commands on a criteria (``[con_id=N] focus``). Standard library only.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from collections.abc import Iterator, Mapping
from typing import Any, Final

from deskhand.backends.linux.wayland.compositor import View
from deskhand.core.errors import BackendUnavailable, NativeError

__all__ = ()

_MAGIC: Final = b"i3-ipc"
_HEADER: Final = struct.Struct("=6sII")
RUN_COMMAND: Final = 0
GET_OUTPUTS: Final = 3
GET_TREE: Final = 4
GET_VERSION: Final = 7
FIX_SWAYSOCK: Final = "set SWAYSOCK to sway's IPC socket (`deskhand desktop start --wayland` exports it)"


class SwayIPC:
    """One connection to sway's IPC socket (``$SWAYSOCK``). Close it when done."""

    def __init__(
        self, path: str | None = None, *, env: Mapping[str, str] | None = None, timeout_s: float = 2.0
    ) -> None:
        where = path or (os.environ if env is None else env).get("SWAYSOCK")
        if not where:
            raise BackendUnavailable(f"sway: no IPC socket: {FIX_SWAYSOCK}")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        self.sock.settimeout(timeout_s)
        try:
            self.sock.connect(where)
        except OSError as exc:
            self.sock.close()
            raise BackendUnavailable(f"sway: cannot connect to {where}: {exc.strerror or exc}; {FIX_SWAYSOCK}") from exc

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> SwayIPC:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def call(self, kind: int, payload: str = "") -> Any:
        body = payload.encode()
        try:
            self.sock.sendall(_HEADER.pack(_MAGIC, len(body), kind) + body)
            magic, length, _kind = _HEADER.unpack(self._read(_HEADER.size))
            if magic != _MAGIC:
                raise BackendUnavailable("sway: the IPC socket did not answer in the i3 protocol")
            return json.loads(self._read(length))
        except OSError as exc:
            raise BackendUnavailable(f"sway: the IPC connection broke: {exc}") from exc

    def _read(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise BackendUnavailable("sway: the IPC socket closed")
            out += chunk
        return bytes(out)

    def command(self, text: str) -> None:
        """Run sway commands; raise NativeError with sway's words when one fails (a criteria that
        matched no window fails before anything changed)."""
        results = self.call(RUN_COMMAND, text)
        failed = [r.get("error", "failed") for r in results if not r.get("success")]
        if failed:
            raise NativeError("stale_window", f"sway: {text!r}: {'; '.join(failed)}", dispatched=None)

    def views(self) -> list[View]:
        """Every toplevel, tiled or floating, in tree order."""
        return [_view(node, floating) for node, floating in _walk(self.call(GET_TREE), False) if _is_view(node)]

    def outputs(self) -> list[dict[str, Any]]:
        return [o for o in self.call(GET_OUTPUTS) if o.get("active")]

    def focus(self, con_id: int) -> None:
        self.command(f"[con_id={int(con_id)}] focus")

    def place(self, con_id: int, x: int, y: int, width: int, height: int) -> None:
        """Float the view and give it a fixed rect (content size and position)."""
        self.command(
            f"[con_id={int(con_id)}] floating enable, resize set {int(width)} px {int(height)} px, "
            f"move position {int(x)} px {int(y)} px"
        )


def _walk(node: Mapping[str, Any], floating: bool) -> Iterator[tuple[Mapping[str, Any], bool]]:
    yield node, floating
    for child in node.get("nodes", ()):
        yield from _walk(child, floating)
    for child in node.get("floating_nodes", ()):
        yield from _walk(child, True)


def _is_view(node: Mapping[str, Any]) -> bool:
    return node.get("type") in ("con", "floating_con") and node.get("pid") is not None and "shell" in node


def _view(node: Mapping[str, Any], floating: bool) -> View:
    rect, inner = node["rect"], node.get("window_rect") or {}
    content = (
        int(rect["x"]) + int(inner.get("x", 0)),
        int(rect["y"]) + int(inner.get("y", 0)),
        int(inner.get("width") or rect["width"]),
        int(inner.get("height") or rect["height"]),
    )
    return View(
        id=int(node["id"]), pid=int(node["pid"]), app_id=str(node.get("app_id") or ""),
        title=str(node.get("name") or ""), rect=content, focused=bool(node.get("focused")),
        visible=bool(node.get("visible")), floating=floating or node.get("type") == "floating_con",
        shell=str(node.get("shell") or ""),
    )  # fmt: skip
