"""What the acting modules that any display server shares are written against.

``act.scroll`` (the scroll bar's Value, the measured wheel), ``act.scroll_witness``, ``act.values``
(text selection, values, secondary actions), ``act.focus`` and ``act.paste`` speak AT-SPI and reach
the display server only through an ``ActSession``: the gates (identity, the observed key window),
coordinates, and one wheel burst; ``act.barrier`` waits through a ``BarrierSession`` (its round
trip through the app is the display server's). ``act.session.LinuxSession`` is the X11 one,
``act.wl_session.WaylandSession`` the Wayland one; ``KeyInput`` is each one's keyboard as
``act.values`` types a value, and mypy proves both satisfy these (``x11/seam.py`` beside them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from deskhand.backends.base import ActionResult, Direction, Handle, ProcessIdentity, RunningApp
from deskhand.backends.linux.atspi.connection import AtspiConnection
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.atspi.mapping import AtspiRef
from deskhand.backends.linux.observe.settle import Settling
from deskhand.core.axtree.model import Element
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect

__all__ = ("ActSession", "BarrierObserved", "BarrierSession", "KeyInput", "Observing", "ref_of")


class Observing(Protocol):
    """The observation side as the shared modules see it: the bus and an app's bus name."""

    @property
    def atspi(self) -> AtspiConnection: ...
    def bus_of(self, app: RunningApp) -> str | None: ...


class BarrierObserved(Observing, Protocol):
    """The observation side as the barrier sees it: the settle clock, the observed key window."""

    @property
    def settling(self) -> Settling: ...
    def observed_key_window(self, app: RunningApp) -> int | None: ...


class BarrierSession(Protocol):
    """What ``act.barrier.Barrier`` waits on: the bus, the observation side, and the display
    server's round trip through the app (X11: ``act.session``, Wayland: ``act.wl_session``)."""

    @property
    def observed(self) -> BarrierObserved: ...
    @property
    def a11y(self) -> A11y: ...
    def round_trip(self, app: RunningApp, window: int, end: float) -> bool:
        """Until ``end`` (monotonic) at most: True once the app is known to have handled the input
        and the accessible calls sent to it before (``window``: the observed key window)."""
        ...

    def windows_landed(self, app: RunningApp, end: float) -> bool:
        """Until ``end`` at most: True once every window the app shows is one the display server
        shows (after a chord that opened one, the keyboard gate then sees where the focus is)."""
        ...


class ActSession(Protocol):
    """One display server's acting session: gates, coordinates, the bus, one wheel burst."""

    @property
    def observed(self) -> Observing: ...
    @property
    def a11y(self) -> A11y: ...
    @property
    def a11y_address(self) -> str: ...
    def register_events(self, names: Iterable[str]) -> None: ...
    def verify_identity(self, app: RunningApp) -> ProcessIdentity: ...
    def mark_mutation(self, app: RunningApp) -> None: ...
    def ref(self, app: RunningApp, handle: Handle) -> tuple[Element, Ref]:
        """The element behind a handle, checked to be the observed one, and its accessible."""
        ...

    def to_global(self, app: RunningApp, point: tuple[float, float]) -> Point:
        """Screenshot pixels of the latest observation -> global coordinates (checked)."""
        ...

    def window_frame(self, app: RunningApp) -> Rect:
        """The key window's content area in global coordinates."""
        ...

    def bind_keyboard(self, app: RunningApp) -> int:
        """The observed key window, proven to hold the keyboard now (else nothing is sent)."""
        ...

    def wheel(self, app: RunningApp, at: Point, direction: Direction, clicks: int) -> None:
        """After the gate: the pointer to ``at`` and ``clicks`` wheel notches toward ``direction``."""
        ...


class KeyInput(Protocol):
    """A session's keyboard, as ``act.values`` sets a text entry by keys."""

    def press_key(self, app: RunningApp, key: str) -> ActionResult: ...
    def type_text(self, app: RunningApp, text: str) -> ActionResult: ...


def ref_of(element: Element) -> Ref:
    """The accessible object behind an observed element (``stale_element`` without one)."""
    ref = element.ref
    if isinstance(ref, Ref):
        return ref
    if isinstance(ref, AtspiRef):
        return Ref(ref.bus, ref.path)
    raise NativeError("stale_element", "The element is stale. Observe the app again.", dispatched=False)
