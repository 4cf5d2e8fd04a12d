"""Is a desktop ready to serve? The X server answers, the AT-SPI registry is up, a window manager is seen.

Used by ``deskhand serve``'s ``/readyz`` and by the fleet before it hands a desktop out. Every check
has a deadline and reads only what it names: a failed check is ``False``, never an exception.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass

from deskhand.core.errors import BackendUnavailable
from deskhand.desktop._procs import x_socket
from deskhand.desktop.atspi import A11yBus, a11y_address_from_session


@dataclass(frozen=True, slots=True)
class Readiness:
    """The result of one probe; nothing in it names a display, a pid or an address."""

    x: bool
    accessibility: bool
    window_manager: bool

    @property
    def ready(self) -> bool:
        return self.x and self.accessibility and self.window_manager

    def as_dict(self) -> dict[str, bool]:
        return {"x": self.x, "accessibility": self.accessibility, "window_manager": self.window_manager}


def _x_and_wm(display: str) -> tuple[bool, bool]:
    from Xlib import display as xdisplay  # noqa: PLC0415 - only needed here

    number = display.partition(":")[2].partition(".")[0]
    if number.isdigit() and not x_socket(int(number)).exists():
        return False, False  # no server: python-xlib would fall back to TCP and leak that socket
    try:
        d = xdisplay.Display(display)
    except Exception:  # any failure to connect: X does not answer
        return False, False
    try:
        root = d.screen().root
        check = root.get_full_property(d.intern_atom("_NET_SUPPORTING_WM_CHECK"), 0)
        d.sync()  # a round trip: the server answered
        return True, check is not None and bool(check.value)
    except Exception:  # the connection broke mid-probe
        return False, False
    finally:
        with contextlib.suppress(Exception):
            d.close()


def _registry(env: Mapping[str, str], timeout_s: float) -> bool:
    address = env.get("AT_SPI_BUS_ADDRESS")
    try:
        if not address:
            session = env.get("DBUS_SESSION_BUS_ADDRESS")
            if not session:
                return False
            address = a11y_address_from_session(session, timeout_s)
        with A11yBus(address, timeout_s=timeout_s) as bus:
            return bus.registry_ready()
    except (BackendUnavailable, OSError, TimeoutError, ValueError):
        return False


def probe(env: Mapping[str, str], *, timeout_s: float = 1.0) -> Readiness:
    """Probe the desktop that ``env`` (``DISPLAY``, the buses) points at.

    X connections made here authenticate with this process's ``XAUTHORITY``, as every client does.
    """
    display = env.get("DISPLAY")
    x, wm = _x_and_wm(display) if display else (False, False)
    return Readiness(x=x, accessibility=_registry(env, timeout_s), window_manager=wm)
