"""The clipboard keeper: a small detached process that serves a clipboard deskhand handed over.

X has no clipboard storage, so when deskhand exits while it owns CLIPBOARD (the user's restored
clipboard after a paste), the content would go with it. With no clipboard manager running,
``_clipboard.ClipboardOwner.close`` starts this module in its own session, writes the items to
its stdin and closes it; the keeper takes the selection (only while deskhand's window still owns
it: a copy made meanwhile wins) and serves every target, INCR included, until another client
takes the selection or the X server goes away. Then it exits.

The items come on stdin in ``_clipwire``'s format.
"""

from __future__ import annotations

import os
import sys
import threading

from Xlib import display

from deskhand.backends.linux._clipboard import ClipboardOwner
from deskhand.backends.linux._clipwire import decode

__all__ = ("main",)

#: How often the keeper checks whether it still owns the selection (an idle process's tick).
_TICK_S = 0.5


def main(argv: list[str]) -> int:
    display_name, owner_window = argv[0], int(argv[1])
    items = decode(sys.stdin.buffer)
    child = os.fork()
    if child:  # the process deskhand started: name the keeper and go
        sys.stdout.write(f"{child}\n")
        sys.stdout.flush()
        return 0
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    probe = display.Display(display_name)
    try:
        current = probe.get_selection_owner(probe.intern_atom("CLIPBOARD"))
        if getattr(current, "id", current) != owner_window:
            return 0  # another client copied meanwhile: its copy wins
    finally:
        probe.close()
    owner = ClipboardOwner(display_name)
    try:
        owner.own(items)
        stop = threading.Event()
        while owner.owns and owner.serving:
            stop.wait(_TICK_S)
    finally:
        owner.close(hand_off=False)
    return 0


if __name__ == "__main__":
    os.umask(0o077)
    sys.exit(main(sys.argv[1:]))
