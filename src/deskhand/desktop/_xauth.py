"""X access control for deskhand's desktops: an MIT-MAGIC-COOKIE-1 per desktop.

Xvfb runs without ``-ac`` and with ``-auth`` naming a server file that holds the desktop's cookie;
clients read the same cookie from the desktop's private ``Xauthority`` (mode 0600), which
``XAUTHORITY`` names in the desktop's exports and in every process it starts.

python-xlib reads ``$XAUTHORITY`` of *this* process whenever a connection opens, so code in the
owning process (the SDK's executor, the test harness) needs the cookie there too: while this
process runs desktops, :func:`register` points ``XAUTHORITY`` at a per-process file in the registry
that holds each of its desktops' entries followed by the entries of the file it named before
(the user's own displays keep working); :func:`unregister` restores the previous value.

Standard library only (the watchdog removes a dead owner's file).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Final

COOKIE_NAME: Final = b"MIT-MAGIC-COOKIE-1"
FAMILY_LOCAL: Final = 256
FAMILY_WILD: Final = 65535
_lock = threading.Lock()
_mine: dict[str, tuple[int, bytes]] = {}
_UNSET: Final = object()
_previous: object = _UNSET


def new_cookie() -> bytes:
    return secrets.token_bytes(16)


def _field(data: bytes) -> bytes:
    return struct.pack(">H", len(data)) + data


def entry(family: int, address: bytes, display: int | None, cookie: bytes) -> bytes:
    """One Xauthority record (``display`` None: any display)."""
    number = b"" if display is None else str(display).encode()
    return struct.pack(">H", family) + _field(address) + _field(number) + _field(COOKIE_NAME) + _field(cookie)


def client_entries(display: int | None, cookie: bytes) -> bytes:
    """What a client needs: this host's local entry (python-xlib, libXau) and a wildcard (libXau)."""
    host = socket.gethostname().encode()
    return entry(FAMILY_LOCAL, host, display, cookie) + entry(FAMILY_WILD, b"", display, cookie)


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, readable by this user only."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    tmp.replace(path)


def process_file(registry: Path, pid: int | None = None) -> Path:
    """The per-process authority file of ``pid`` (default: this process)."""
    return registry / f"xauth-{os.getpid() if pid is None else pid}"


def _user_file(previous: object) -> Path | None:
    if isinstance(previous, str):
        return Path(previous)
    home = os.environ.get("HOME")
    return Path(home) / ".Xauthority" if home else None


def _rewrite(registry: Path) -> None:
    """Point this process's XAUTHORITY at its desktops' entries plus the previous file's."""
    global _previous  # noqa: PLW0603 - one process-wide environment variable
    path = process_file(registry)
    if not _mine:
        if _previous is not _UNSET:
            if isinstance(_previous, str):
                os.environ["XAUTHORITY"] = _previous
            else:
                os.environ.pop("XAUTHORITY", None)
            _previous = _UNSET
        path.unlink(missing_ok=True)
        return
    current = os.environ.get("XAUTHORITY")
    if _previous is _UNSET or current != str(path):  # first desktop, or someone set another file since
        _previous = current
    data = b"".join(client_entries(display, cookie) for display, cookie in _mine.values())
    user = _user_file(_previous)
    if user is not None and user != path:
        with contextlib.suppress(OSError):
            data += user.read_bytes()
    write_private(path, data)
    os.environ["XAUTHORITY"] = str(path)


@contextlib.contextmanager
def authority(path: str | None) -> Iterator[None]:
    """With ``XAUTHORITY`` set to ``path`` in this process (None: unchanged), for opening one
    python-xlib connection that must use another desktop's cookie (the doctor judging an env)."""
    if path is None:
        yield
        return
    with _lock:
        saved = os.environ.get("XAUTHORITY")
        os.environ["XAUTHORITY"] = path
        try:
            yield
        finally:
            if saved is None:
                os.environ.pop("XAUTHORITY", None)
            else:
                os.environ["XAUTHORITY"] = saved


def registered(display: int) -> bool:
    """A desktop of this process serves ``display``: this process's own file authenticates it."""
    with _lock:
        return any(number == display for number, _ in _mine.values())


def register(registry: Path, desktop_id: str, display: int, cookie: bytes) -> None:
    with _lock:
        _mine[desktop_id] = (display, cookie)
        _rewrite(registry)


def unregister(registry: Path, desktop_id: str) -> None:
    with _lock:
        if _mine.pop(desktop_id, None) is not None:
            _rewrite(registry)
