"""The Wayland compositors a private desktop can run, by name: one row each.

``VirtualDesktop(wayland=True, compositor=NAME)``, ``deskhand desktop start --compositor NAME``
(``DESKHAND_COMPOSITOR``) and the SDK's ``Computer.virtual(wayland=True, compositor=NAME)`` look
the name up here. A row says how the compositor starts (its module's ``start``, which returns a
:class:`Started`, one record for every compositor: its process, runtime dir and what a client
needs), how an app's window is waited for, and what to install when it is missing.
The backend finds the same compositor from the desktop's exports (``SWAYSOCK``,
``XDG_CURRENT_DESKTOP``; ``backends.linux.wayland.registry``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Final

from deskhand.desktop import _gnome, _kwin, _sway
from deskhand.desktop._started import Started

__all__ = ("COMPOSITORS", "DEFAULT", "Kind", "Started", "kind")

DEFAULT: Final = "sway"


#: ``start(spawn, desktop_id, (width, height), base_env, log=..., deadline=...)``
Starter = Callable[..., Started]


@dataclass(frozen=True, slots=True)
class Kind:
    """One compositor: its name (also the desktop's process role), the executable that must be
    installed, the fix when it is not, how it starts, and how a pid's window is waited for."""

    name: str
    label: str
    program: str
    fix: str
    start: Starter
    wait_for_view: Callable[[Mapping[str, str], int, float], int]
    #: the session bus and AT-SPI start before the compositor, which joins them (GNOME Shell, KWin)
    buses_first: bool = False


def _sway_view(env: Mapping[str, str], pid: int, timeout_s: float) -> int:
    return _sway.wait_for_view(Path(env["SWAYSOCK"]), pid, timeout_s)


COMPOSITORS: Final[Mapping[str, Kind]] = MappingProxyType(
    {
        "sway": Kind("sway", "sway", "sway", _sway.FIX_SWAY, _sway.start, _sway_view),
        "kwin": Kind(
            "kwin",
            "KWin",
            _kwin.PROGRAM,
            _kwin.FIX_KWIN,
            _kwin.start,
            _kwin.wait_for_view,
            buses_first=_kwin.NEEDS_SESSION_BUS,
        ),
        "gnome": Kind(
            "gnome",
            "GNOME Shell",
            "gnome-shell",
            _gnome.FIX_GNOME,
            _gnome.start,
            _gnome.wait_for_view,
            buses_first=True,
        ),
    }
)


def kind(name: str) -> Kind:
    """The row of ``name``; ValueError naming the choices when there is none."""
    found = COMPOSITORS.get(name.strip().lower())
    if found is None:
        raise ValueError(f"no compositor {name!r}: deskhand starts {', '.join(sorted(COMPOSITORS))}")
    return found
