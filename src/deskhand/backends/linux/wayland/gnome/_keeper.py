"""The keeper of a clipboard given back on GNOME: serves it until the next copy, then exits.

``_clipserver.ClipboardServer.close`` runs it with every type as JSON on stdin (``{mime: base64}``).
It takes the selection in a RemoteDesktop session of its own, says ``owned`` on stdout, detaches
(its first process exits; the child keeps the connection, so the session lives on) and serves
every request until another client takes the selection or the shell goes away.
"""

from __future__ import annotations

import os
import sys

from deskhand.backends.linux.wayland._keeper import detach, read_types
from deskhand.backends.linux.wayland.gnome._clipboard import Selection
from deskhand.core.errors import DeskhandError

__all__ = ()


def main() -> int:
    data = read_types()
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if not data or not address:
        return 0
    selection = Selection(address)
    selection.set(data)
    detach()
    try:
        while selection.owned:
            selection.pump(60.0)
    except (DeskhandError, OSError):
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
