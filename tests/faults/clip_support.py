"""The user's clipboard as the fault tests fill it, and reading it back from outside deskhand."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner, Item, text_items

#: The targets of the user's clipboard that the fault tests read back after deskhand has gone.
CHECKED_TARGETS = ("UTF8_STRING", "text/html", "image/png")


def user_items() -> dict[str, Item]:
    """What the user copied: text, HTML, a PNG over 1 MiB (INCR both ways) and a private target."""
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(1536 * 1024)
    return {
        **text_items("user's text ✓", "<b>user's</b> html"),
        "image/png": Item("image/png", 8, png),
        "application/x-user-private": Item("application/x-user-private", 8, b"\x00\x01private"),
    }


@contextmanager
def users_clipboard(display: str, items: Mapping[str, Item]) -> Iterator[ClipboardOwner]:
    """The user's app that copied ``items``; it goes away at the end, handing nothing off."""
    user = ClipboardOwner(display)
    try:
        user.own(items)
        yield user
    finally:
        user.close(hand_off=False)


def digests(items: Mapping[str, Item], targets: Iterable[str]) -> dict[str, str]:
    """target -> SHA-256 of what ``items`` hold for it (a megabyte compares as one line)."""
    return {t: hashlib.sha256(items[t].data).hexdigest() for t in targets}


def served_digests(env: Mapping[str, str], targets: Iterable[str]) -> dict[str, str]:
    """target -> SHA-256 of what ``xclip`` reads of CLIPBOARD for it."""
    return {t: hashlib.sha256(xclip(env, t)).hexdigest() for t in targets}


def xclip(env: Mapping[str, str], target: str) -> bytes:
    """One target of CLIPBOARD as ``xclip`` (not deskhand) reads it."""
    out = subprocess.run(["xclip", "-selection", "clipboard", "-o", "-t", target], env=dict(env),
                         capture_output=True, timeout=20, check=True)  # fmt: skip
    return out.stdout


def clipboard_text(display: str) -> bytes:
    """CLIPBOARD's UTF8_STRING, read by a client of its own."""
    reader = ClipboardOwner(display)
    try:
        return reader.snapshot().items["UTF8_STRING"].data
    finally:
        reader.close(hand_off=False)
