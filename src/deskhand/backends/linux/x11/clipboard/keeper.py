"""The clipboard keeper: a small detached process that serves a clipboard deskhand handed over.

X has no clipboard storage, so when deskhand exits while it owns CLIPBOARD (the user's restored
clipboard after a paste), the content would go with it. With no clipboard manager running,
``x11.clipboard.owner.ClipboardOwner.close`` starts this module in its own session, writes the items to
its stdin and closes it; the keeper serves every target, INCR included, until another client
takes the selection or the X server goes away. Then it exits.

It takes the selection with the timestamp deskhand took it with (ICCCM 2.1): the X server
ignores a ``SetSelectionOwner`` older than the selection's last change, so if anyone copied
since, even in the instant the keeper starts, the keeper gets nothing and exits: the copy wins.

The items come on stdin in ``x11.clipboard.pipe``'s format.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner
from deskhand.backends.linux.x11.clipboard.pipe import decode
from deskhand.core.errors import NativeError

__all__ = ("main",)

#: How often the keeper checks whether it still owns the selection (an idle process's tick).
_TICK_S = 0.5


def main(argv: list[str]) -> int:
    display_name, timestamp = argv[0], int(argv[1])
    items = decode(sys.stdin.buffer)
    child = os.fork()
    if child:  # the process deskhand started: name the keeper and go
        sys.stdout.write(f"{child}\n")
        sys.stdout.flush()
        return 0
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    owner = ClipboardOwner(display_name)
    try:
        with contextlib.suppress(NativeError):  # refused: someone copied since deskhand took it
            owner.own(items, timestamp=timestamp)
        stop = threading.Event()
        while owner.owns and owner.serving:
            stop.wait(_TICK_S)
    finally:
        owner.close(hand_off=False)
    return 0


if __name__ == "__main__":
    os.umask(0o077)
    sys.exit(main(sys.argv[1:]))
