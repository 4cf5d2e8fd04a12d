"""The user's clipboard as the fault tests fill it, and reading it back from outside deskhand."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

from deskhand.backends.linux._clipboard import Item, text_items


def user_items() -> dict[str, Item]:
    """What the user copied: text, HTML, a PNG over 1 MiB (INCR both ways) and a private target."""
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(1536 * 1024)
    return {
        **text_items("user's text ✓", "<b>user's</b> html"),
        "image/png": Item("image/png", 8, png),
        "application/x-user-private": Item("application/x-user-private", 8, b"\x00\x01private"),
    }


def xclip(env: Mapping[str, str], target: str) -> bytes:
    """One target of CLIPBOARD as ``xclip`` (not deskhand) reads it."""
    out = subprocess.run(["xclip", "-selection", "clipboard", "-o", "-t", target], env=dict(env),
                         capture_output=True, timeout=20, check=True)  # fmt: skip
    return out.stdout
