"""The executor's side of a lost X server or accessibility bus (``lost`` decides which was lost).

Dropping forgets every piece that used the lost connection (the actor, the settle's watchers, the
capture's grabber, or the AT-SPI connection); reconnecting opens the connection again and builds
the pieces on it, or raises the same plain error while it is still gone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from deskhand.backends.linux import lost as xlost
from deskhand.backends.linux.atspi.connection import AtspiConnection
from deskhand.backends.linux.lost import lost_text
from deskhand.backends.linux.observe.discovery import Discovery
from deskhand.backends.linux.observe.settle import Settling
from deskhand.backends.linux.observe.shot import Shots
from deskhand.backends.linux.observe.tree import TreeObserver
from deskhand.backends.linux.x11.connection import XConnection
from deskhand.core.errors import BackendUnavailable

if TYPE_CHECKING:
    from deskhand.backends.linux.act.actor import LinuxActor

__all__ = ("Reconnects",)


class Reconnects:
    """Mixed into ``LinuxExecutor``: what ``lost.guard`` calls on it."""

    x: XConnection
    atspi: AtspiConnection
    discovery: Discovery
    trees: TreeObserver
    shots: Shots
    settling: Settling
    x_lost: bool
    a11y_lost: bool
    #: The registry's return the pieces registered with (``AtspiConnection.registry_epoch``).
    registry_epoch: int
    _actor: LinuxActor | None

    def drop_x(self) -> str:
        """Forget every X-side piece after the X server went away; returns the display's name."""
        self.x_lost = True
        self._drop(self.shots.grabber.close)
        self.shots.transforms.clear()
        return self.x.name

    def drop_a11y(self) -> str:
        """Forget the accessibility bus's connections after it went away; returns its address."""
        self.a11y_lost = True
        self._drop(self.atspi.close)
        return str(self.atspi.address)

    def _drop(self, *more: Callable[[], object]) -> None:
        actor, self._actor = self._actor, None
        for close in (actor.close if actor else None, self.settling.close, *more):
            if close is not None:
                with contextlib.suppress(Exception):
                    close()

    def refresh_registry(self) -> None:
        """A new AT-SPI registry forgot the events registered with the old one: the settle's
        listener and the actor's focus watch reconnect (and register) on their next use, the
        actor registers its events again, and the tree reader its own by itself. Nothing else is
        dropped: handles, the settle clock and the clipboard the actor serves stay."""
        self.registry_epoch = self.atspi.registry_epoch
        with contextlib.suppress(Exception):
            self.settling.close()
        if self._actor is not None:
            self._actor.registry_changed()

    def x_answers(self) -> bool:
        """Whether our X connection still makes a round trip (a lost connection raises)."""
        try:
            with self.x.lock:
                self.x.display.get_input_focus()
        except Exception:
            return False
        return True

    def reconnect_a11y(self) -> None:
        """Connect to the accessibility bus again; the plain error while it is still gone."""
        atspi = xlost.open_a11y(str(self.atspi.address))
        self.atspi = atspi
        self.discovery = Discovery(self.x, atspi)
        self.trees = TreeObserver(atspi, self.trees.timeout_s, self.trees.popups)
        self.settling = Settling(str(atspi.address), self.x.name)
        self.registry_epoch = atspi.registry_epoch
        self.a11y_lost = False

    def reconnect_x(self) -> None:
        """Open the display again (a new X server there); the plain error while it is still gone."""
        try:
            if not xlost.answers(self.x.name):
                raise BackendUnavailable(lost_text(self.x.name))
            x = XConnection(self.x.name)
        except BackendUnavailable:
            raise BackendUnavailable(lost_text(self.x.name)) from None
        with contextlib.suppress(Exception):
            self.x.close()
        self.x = x
        self.shots.reconnect(x)
        self.discovery = Discovery(x, self.atspi)
        self.x_lost = False
