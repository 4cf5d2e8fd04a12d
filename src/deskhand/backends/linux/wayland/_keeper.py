"""The keeper of a clipboard given back: serves it until the next copy, then exits.

``_clipserver.ClipboardServer.close`` runs it with every type as JSON on stdin (``{mime: base64}``).
It owns the selection, says ``owned`` on stdout, detaches (its first process exits, so nobody
waits on it) and serves every request until another client takes the selection or the
compositor goes away. Standard library only, no AT-SPI, nothing of deskhand's session.
"""

from __future__ import annotations

import json
import os
import sys
from base64 import b64decode

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._dataclip import DataClipboard
from deskhand.backends.linux.wayland._wire import WaylandError

__all__ = ()


def read_types() -> dict[str, bytes]:
    """The types given on stdin (``{mime: base64}``)."""
    return {str(k): b64decode(v) for k, v in json.loads(sys.stdin.buffer.read()).items()}


def detach() -> None:
    """Once the selection is ours: say ``owned``, let the first process exit (nobody waits on the
    keeper) and go on in a session of its own, stdin and stdout closed."""
    if os.fork() != 0:
        sys.stdout.write("owned\n")
        sys.stdout.flush()
        os._exit(0)
    os.setsid()
    for fd in (0, 1):
        os.close(fd)


def main() -> int:
    data = read_types()
    if not data:
        return 0
    with Client() as client:
        clip = DataClipboard(client)
        clip.set(data)
        detach()
        try:
            while not clip.cancelled:
                clip.serve_once(60.0)
        except WaylandError:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
