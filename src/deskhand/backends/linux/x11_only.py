"""Apps that cannot run natively on Wayland, and what deskhand tells an agent that asks for one
on a Wayland desktop without XWayland (``WaylandExecutor.resolve``'s ``target_not_running``).

Their toolkit or the app itself needs X11: on a user's Wayland session they run under XWayland;
deskhand's private sway starts none, so they exit before showing a window. Matched on
the selector's lowercased words (an app id, a display name or an executable's basename). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = ("wayland_notice",)

#: App names -> why the app needs an X display.
X11_ONLY: Final[Mapping[str, str]] = MappingProxyType(
    {
        "vlc": "VLC 3's Qt interface does not start on Qt's Wayland platform (VLC 3.0.24 exits with "
        "'no suitable interface module', with or without an X display beside it)",
    }
)
#: What the agent can do instead.
INSTEAD: Final = (
    "It runs on an X11 display: XWayland on a desktop session, or deskhand's X11 desktop "
    "(`deskhand desktop start` without --wayland)."
)


def wayland_notice(selector: str) -> str | None:
    """The notice for an app named by ``selector`` that cannot run natively on Wayland, or None."""
    words = set(re.split(r"[^a-z0-9]+", selector.lower().rsplit("/", 1)[-1]))
    why = next((X11_ONLY[w] for w in words if w in X11_ONLY), None)
    if why is None:
        return None
    return f"It cannot run natively on this Wayland desktop, which has no XWayland: {why}. {INSTEAD}"
