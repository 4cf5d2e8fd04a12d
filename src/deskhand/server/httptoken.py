"""The HTTP transport's bearer token: from ``--token-file``, ``--token`` (with a warning) or
``DESKHAND_TOKEN``, else generated into a 0600 file (loopback only). No MCP import: the CLI
resolves the token before anything is launched or printed."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import secrets
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

LOOPBACK_HOSTS: Final = ("127.0.0.1", "localhost", "::1")
ARGV_WARNING: Final = (
    "deskhand: warning: a token given with --token is visible to every local user (ps); "
    "use DESKHAND_TOKEN or --token-file"
)


class TokenError(ValueError):
    """No usable bearer token (a non-loopback address without one, an empty or unreadable file)."""


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_TMP_PREFIX: Final = "deskhand-token-"


@dataclass(frozen=True, slots=True)
class Token:
    value: str
    #: Where the token came from: ``file``, ``env``, ``argv`` or ``generated``.
    source: str
    #: The generated token's file (removed when the server stops), else None.
    path: Path | None = None

    def discard(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            if self.path.parent.name.startswith(_TMP_PREFIX):  # the private directory made for it
                with contextlib.suppress(OSError):
                    self.path.parent.rmdir()


def _token_dir(env: Mapping[str, str]) -> Path:
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir() and os.access(runtime, os.W_OK):
        path = Path(runtime) / "deskhand"
        path.mkdir(mode=0o700, exist_ok=True)
        return path
    return Path(tempfile.mkdtemp(prefix=_TMP_PREFIX))


def resolve_token(
    *, host: str, port: int, argv_token: str | None, token_file: str | None, env: Mapping[str, str]
) -> Token:
    """The server's bearer token, by precedence ``--token-file``, ``--token``, ``DESKHAND_TOKEN``,
    else generated (loopback only). Raises :class:`TokenError` before anything is served."""
    if token_file:
        try:
            value = Path(token_file).read_text(encoding="utf-8").strip()
        except OSError as err:
            raise TokenError(f"cannot read the token file {token_file}: {err.strerror}") from err
        if not value:
            raise TokenError(f"the token file {token_file} is empty")
        return Token(value, "file")
    if argv_token is not None:
        if not argv_token.strip():
            raise TokenError("--token is empty")
        print(ARGV_WARNING, file=sys.stderr)  # noqa: T201 - the user must see it before serving
        return Token(argv_token.strip(), "argv")
    if env.get("DESKHAND_TOKEN", "").strip():
        return Token(env["DESKHAND_TOKEN"].strip(), "env")
    if not is_loopback(host):
        raise TokenError(
            f"serving MCP on {host} needs a bearer token you chose: DESKHAND_TOKEN or --token-file "
            "(a generated token is only for loopback)"
        )
    value = secrets.token_urlsafe(32)
    path = _token_dir(env) / f"http-token-{port}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(value + "\n")
    path.chmod(0o600)
    return Token(value, "generated", path)
