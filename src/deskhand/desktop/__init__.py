"""deskhand.desktop: the embedded virtual desktop (Xvfb + D-Bus + AT-SPI + openbox) as a library."""

from deskhand.desktop.atspi import A11yApp, A11yBus
from deskhand.desktop.registry import DesktopState, cleanup_stale, find_state, list_states, teardown
from deskhand.desktop.virtual import LaunchedApp, VirtualDesktop

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
