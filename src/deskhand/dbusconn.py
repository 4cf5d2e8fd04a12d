"""A D-Bus connection that never leaks its socket or hangs in its greeting.

jeepney's ``open_dbus_connection`` authenticates on a socket (closed if that fails), then builds
the connection, whose constructor says Hello to the bus with no timeout. A bus that dies between
the two (the AT-SPI bus killed under an app, a session ending) leaves the socket to the garbage
collector, and a bus that authenticates but never answers (hung) blocks the caller for good.
:func:`open_bus` bounds the Hello by the same timeout as the authentication and closes the socket
whenever the connection is not handed back.
"""

from __future__ import annotations

from jeepney.bus import get_bus
from jeepney.io.blocking import DBusConnection, prep_socket

__all__ = ("open_bus",)


def open_bus(bus: str = "SESSION", *, enable_fds: bool = False, timeout_s: float = 2.0) -> DBusConnection:
    """A connection to ``bus`` (an address, or ``SESSION``/``SYSTEM``), greeted within ``timeout_s``
    for the authentication and again for the Hello; ``OSError`` (``TimeoutError`` among them) or
    jeepney's errors otherwise, with nothing left open."""
    sock = prep_socket(get_bus(bus), enable_fds, timeout=timeout_s)
    try:
        sock.settimeout(timeout_s)  # the Hello in the constructor reads with the socket's timeout
        conn = DBusConnection(sock, enable_fds)
        sock.settimeout(None)
    except BaseException:
        sock.close()
        raise
    return conn
