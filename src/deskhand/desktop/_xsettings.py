"""The desktop's XSETTINGS manager: what GTK 2 needs for accessibility, given to every GTK app.

GTK 2 loads its accessibility bridge only as modules (``gail:atk-bridge``), named by the
``GTK_MODULES`` variable or by the ``Gtk/Modules`` setting of the screen's XSETTINGS manager
(GNOME's settings daemon set it when accessibility was on). The variable reaches only the apps
started with the desktop's environment; the setting reaches every GTK 2 app on the display,
started from any shell (GIMP 2.10 started without the variable binds with its whole tree). GTK 3
reads the same setting and skips these two names (its bridge is built in).

Run by ``VirtualDesktop`` as ``python -m deskhand.desktop._xsettings`` on an X11 desktop: it owns
the ``_XSETTINGS_S0`` selection with a window holding ``_XSETTINGS_SETTINGS``, announces itself
with a ``MANAGER`` client message (XSETTINGS specification 0.5), and holds the connection open
until the display goes away or it is terminated.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Mapping
from typing import Final

#: The settings the desktop's manager serves.
SETTINGS: Final[Mapping[str, str]] = {"Gtk/Modules": "gail:atk-bridge"}
SELECTION: Final = "_XSETTINGS_S0"
_STRING: Final = 1


def _pad(n: int) -> bytes:
    return b"\0" * (-n % 4)


def encode(settings: Mapping[str, str], serial: int = 0) -> bytes:
    """``_XSETTINGS_SETTINGS`` for string ``settings``, in this machine's byte order."""
    order = 0 if sys.byteorder == "little" else 1  # LSBFirst, MSBFirst
    out = [struct.pack("=B3xII", order, serial, len(settings))]
    for name, value in settings.items():
        key, text = name.encode(), value.encode()
        out += [struct.pack("=BxH", _STRING, len(key)), key, _pad(len(key))]
        out += [struct.pack("=II", serial, len(text)), text, _pad(len(text))]
    return b"".join(out)


def serve(settings: Mapping[str, str] = SETTINGS) -> None:
    """Own the screen's XSETTINGS selection (``$DISPLAY``) and keep it until the display closes."""
    from Xlib import X, display, error  # noqa: PLC0415 - the process's only work
    from Xlib.protocol import event  # noqa: PLC0415

    d = display.Display()
    root = d.screen().root
    window = root.create_window(-1, -1, 1, 1, 0, X.CopyFromParent, X.InputOnly, X.CopyFromParent)
    selection = d.intern_atom(SELECTION)
    prop = d.intern_atom("_XSETTINGS_SETTINGS")
    window.change_property(prop, prop, 8, encode(settings))
    window.set_selection_owner(selection, X.CurrentTime)
    d.sync()
    if d.get_selection_owner(selection) != window:
        sys.exit("xsettings: another manager owns the screen's settings")
    data = (32, [X.CurrentTime, selection, window.id, 0, 0])
    root.send_event(
        event.ClientMessage(window=root, client_type=d.intern_atom("MANAGER"), data=data),
        event_mask=X.StructureNotifyMask,
    )
    d.flush()
    try:
        while True:
            d.next_event()  # nothing to answer: the settings never change
    except (error.ConnectionClosedError, OSError):
        return


if __name__ == "__main__":
    serve()
