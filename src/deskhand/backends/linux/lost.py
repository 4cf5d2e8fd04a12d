"""A lost X server or accessibility bus, said in plain words, and the reconnect when it is back.

When the X server goes away every python-xlib call fails with its own text (``Display connection
closed by server``, then ``Broken pipe`` forever). ``guard`` wraps the executor's calls: such a
failure becomes one typed error that says what happened and what to do, the executor drops its
X-side state, and the next call opens a new connection to the same display (a new X server
there, e.g. after ``deskhand desktop start``) before it runs.

The accessibility bus (the AT-SPI bus daemon) can go away while X stays: the same socket errors
come from its connection, so a lost connection whose X side still makes a round trip is the bus.
That is said in its own words (apps must be restarted to come back on a new bus), and the next
call connects to the bus again.
"""

from __future__ import annotations

import errno
import functools
import re
import socket
from collections.abc import Callable
from typing import Concatenate, Final, ParamSpec, Protocol, TypeVar

from Xlib import error as xerror

from deskhand.backends.linux.atspi.connection import AtspiConnection
from deskhand.core.errors import BackendUnavailable, NativeError

__all__ = ("LostX", "a11y_lost_text", "guard", "is_lost", "lost_text", "open_a11y")

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound="LostX")

_LOST_ERRNOS: Final = frozenset({errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN, errno.EBADF})


class LostX(Protocol):
    """What the guard needs from the executor."""

    @property
    def x_lost(self) -> bool: ...
    @property
    def a11y_lost(self) -> bool: ...
    def reconnect_x(self) -> None: ...
    def reconnect_a11y(self) -> None: ...
    def drop_x(self) -> str: ...
    def drop_a11y(self) -> str: ...
    def x_answers(self) -> bool: ...
    @property
    def atspi(self) -> AtspiConnection: ...
    @property
    def registry_epoch(self) -> int: ...
    def refresh_registry(self) -> None: ...


def lost_text(name: str) -> str:
    return (
        f"The X server at {name} went away; start it again or run `deskhand desktop start`, "
        "then retry: deskhand reconnects to the display by itself."
    )


def a11y_lost_text(address: str) -> str:
    where = address.split(",", 1)[0]
    return (
        f"The accessibility bus (AT-SPI) at {where} went away, so apps cannot be read or acted on "
        "through it. Start it again (the session's at-spi-bus-launcher and at-spi2-registryd, or "
        "`deskhand desktop start` for a fresh desktop) and restart the apps, which only join a bus "
        "when they start; then retry: deskhand reconnects to the bus by itself."
    )


def open_a11y(address: str) -> AtspiConnection:
    """A new connection to the accessibility bus at ``address``; the plain error while it is gone."""
    try:
        return AtspiConnection(address)
    except BackendUnavailable:
        raise BackendUnavailable(a11y_lost_text(address)) from None


def answers(name: str) -> bool:
    """Whether a local display's socket accepts a connection (python-xlib, failing there, would
    try TCP next and leave that socket open); other displays are left to python-xlib."""
    m = re.fullmatch(r":(\d+)(?:\.\d+)?", name)
    if m is None:
        return True
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(f"/tmp/.X11-unix/X{m.group(1)}")  # noqa: S108 -- the X server's socket (X11 convention)
        except OSError:
            return False
    return True


def is_lost(exc: BaseException) -> bool:
    """True for the errors python-xlib raises once the X server's connection is gone."""
    if isinstance(exc, xerror.ConnectionClosedError):
        return True
    return isinstance(exc, OSError) and exc.errno in _LOST_ERRNOS


def guard(*, acting: bool) -> Callable[[Callable[Concatenate[S, P], R]], Callable[Concatenate[S, P], R]]:
    """Wrap an executor call; ``acting``: a loss mid-call may have posted input (dispatched unknown)."""

    def wrap(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
        @functools.wraps(method)
        def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            if self.x_lost:
                self.reconnect_x()  # BackendUnavailable, in the same words, while it is still gone
            if self.a11y_lost:
                self.reconnect_a11y()
            if self.atspi.registry_epoch != self.registry_epoch:
                self.refresh_registry()
            try:
                return method(self, *args, **kwargs)
            except Exception as exc:
                if not is_lost(exc) and not (exc.__cause__ is not None and is_lost(exc.__cause__)):
                    raise
                text = a11y_lost_text(self.drop_a11y()) if self.x_answers() else lost_text(self.drop_x())
                if acting:
                    raise NativeError("feature_unavailable", text, dispatched=None) from None
                raise BackendUnavailable(text) from None

        return call

    return wrap
