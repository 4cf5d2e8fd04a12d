"""deskhand.desktop: the embedded virtual desktop (Xvfb + D-Bus + AT-SPI + openbox) as a library.

The names below load on first use, so the watchdog process (``_watchdog``), which needs only the
registry, starts without importing jeepney or python-xlib.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs the watchdog's start
if TYPE_CHECKING:
    from deskhand.desktop.atspi import A11yApp, A11yBus
    from deskhand.desktop.registry import DesktopState, cleanup_stale, find_state, list_states, teardown
    from deskhand.desktop.virtual import LaunchedApp, VirtualDesktop

_WHERE = {
    "A11yApp": "atspi",
    "A11yBus": "atspi",
    "DesktopState": "registry",
    "cleanup_stale": "registry",
    "find_state": "registry",
    "list_states": "registry",
    "teardown": "registry",
    "LaunchedApp": "virtual",
    "VirtualDesktop": "virtual",
}

__all__ = [
    "A11yApp",
    "A11yBus",
    "DesktopState",
    "LaunchedApp",
    "VirtualDesktop",
    "cleanup_stale",
    "find_state",
    "list_states",
    "teardown",
]


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        msg = f"module 'deskhand.desktop' has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(f"deskhand.desktop.{module}"), name)
