"""Which compositor a Wayland session runs, and its :class:`Compositor` implementation.

The name comes from ``DESKHAND_COMPOSITOR`` (a desktop deskhand starts exports it), else from
what the session shows (``SWAYSOCK``: sway; ``XDG_CURRENT_DESKTOP``: KDE, GNOME). Each
implementation is imported only when its session is opened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from deskhand.backends.linux.wayland.compositor import Compositor
from deskhand.core.errors import BackendUnavailable

__all__ = ("COMPOSITORS", "COMPOSITOR_ENV", "compositor_name", "open_compositor")

COMPOSITOR_ENV: Final = "DESKHAND_COMPOSITOR"


def _sway(env: Mapping[str, str]) -> Compositor:
    from deskhand.backends.linux.wayland.sway.compositor import Sway  # noqa: PLC0415 - lazy

    return Sway(env)


def _kwin(env: Mapping[str, str]) -> Compositor:
    from deskhand.backends.linux.wayland.kwin.compositor import KWin  # noqa: PLC0415 - lazy

    return KWin(env)


def _gnome(env: Mapping[str, str]) -> Compositor:
    from deskhand.backends.linux.wayland.gnome.compositor import Gnome  # noqa: PLC0415 - lazy

    return Gnome(env)


#: Compositor name -> how a session of it is opened.
COMPOSITORS: Final[Mapping[str, Callable[[Mapping[str, str]], Compositor]]] = MappingProxyType(
    {"sway": _sway, "kwin": _kwin, "gnome": _gnome}
)


def compositor_name(env: Mapping[str, str]) -> str:
    """The session's compositor (module docstring); "sway" when nothing says otherwise."""
    named = env.get(COMPOSITOR_ENV, "").strip().lower()
    if named:
        return named
    if env.get("SWAYSOCK"):
        return "sway"
    desktops = env.get("XDG_CURRENT_DESKTOP", "").lower().split(":")
    if "kde" in desktops:
        return "kwin"
    if "gnome" in desktops:
        return "gnome"
    return "sway"


def open_compositor(env: Mapping[str, str]) -> Compositor:
    """The session's :class:`Compositor`; BackendUnavailable naming the choices when unknown."""
    name = compositor_name(env)
    opener = COMPOSITORS.get(name)
    if opener is None:
        raise BackendUnavailable(
            f"wayland: deskhand does not drive the compositor {name!r} ({COMPOSITOR_ENV}); it drives "
            f"{', '.join(sorted(COMPOSITORS))}"
        )
    return opener(env)
