"""The compositor seam of the Wayland backend: what one compositor gives deskhand.

Wayland has no common protocol for what deskhand needs beyond the wire itself: each compositor
family offers windows, input and capture its own way (sway's IPC and the wlroots protocols;
KWin's scripting, fake input and ScreenShot2 over D-Bus; GNOME Shell's Mutter interfaces). The
executor (``wayland_executor``), the acting session (``act.wl_session``) and the actor
(``act.wl_actor``) use only :class:`Compositor`; ``registry.open_compositor`` picks the
implementation for a session.

* the window inventory (:meth:`Compositor.views`): every toplevel with its pid, app id, title,
  content rect in global logical pixels, focus and stacking (bottom to top);
* a window focused and raised (:meth:`Compositor.focus`) or given a rect (:meth:`Compositor.place`);
* capture (:meth:`Compositor.capture`, :meth:`Compositor.capture_view`), refused with
  ``capture_failed`` where the compositor cannot show the window as it is;
* pointer and keys (:class:`Input`), one set of devices for the session, tracking what is held
  (:class:`Held`);
* the clipboard (:meth:`Compositor.clipboard`: the paste transaction's ``ClipboardOwner``);
* a name for notices and errors (:attr:`Compositor.name`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from deskhand.core.pastetypes import Clipboard

__all__ = ("Compositor", "Frame", "Held", "Input", "SessionClipboard", "View", "pixel")


@dataclass(frozen=True, slots=True)
class View:
    """One toplevel as the compositor reports it; ``rect`` is its content in global logical pixels.

    ``id`` is the compositor's handle for the window in this session (sway's con_id; a number
    the implementation maps to its own id where that is not one); ``shell`` names its protocol
    (``xdg_shell``, ``xwayland``) where the compositor says; ``margins`` (left, right, top,
    bottom) what the client's surface holds around ``rect`` (client-side shadows), where the
    compositor says (KWin), else zeros.
    """

    id: int
    pid: int
    app_id: str
    title: str
    rect: tuple[int, int, int, int]
    focused: bool
    visible: bool
    floating: bool
    shell: str
    margins: tuple[int, int, int, int] = (0, 0, 0, 0)
    #: the client's whole surface where it is larger than ``rect`` (GNOME: a client-side shadow
    #: around the frame); a Wayland client's AT-SPI coordinates are relative to it
    surface: tuple[int, int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """Captured pixels: 32-bit BGRX rows, top-left first, and the global rect they show."""

    data: bytes
    width: int
    height: int
    x: int
    y: int


def pixel(frame: Frame, x: int, y: int) -> tuple[int, int, int]:
    """The RGB value at global ``(x, y)`` of ``frame``."""
    i = ((y - frame.y) * frame.width + (x - frame.x)) * 4
    b, g, r = frame.data[i], frame.data[i + 1], frame.data[i + 2]
    return r, g, b


@dataclass(frozen=True, slots=True)
class Held:
    """What an :class:`Input` holds down now; false when nothing is.

    ``buttons`` are X button numbers; ``keys`` the device's own key codes (evdev codes on wlroots
    and KWin, keysyms on GNOME, whose remote desktop takes keys by keysym), modifier keys
    included; ``modifiers`` the modifier state a device latched itself, by name (``shift``,
    ``ctrl``, ``alt``, ``super``: wlroots' virtual keyboard sends it beside its keys; KWin and
    GNOME derive it from the keys held, so theirs is empty).
    """

    buttons: frozenset[int] = frozenset()
    keys: frozenset[int] = frozenset()
    modifiers: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.buttons or self.keys or self.modifiers)


class Input(Protocol):
    """The session's one pointer and keyboard. Every method sends and the caller's gates come
    before; what is held is tracked so :meth:`release_all` lifts it on any failure."""

    def move(self, x: float, y: float) -> None: ...
    def button(self, button: int, down: bool) -> None: ...  # X button numbers 1, 2, 3, 8, 9
    def click(self, x: float, y: float, button: int = 1, count: int = 1) -> None: ...
    def wheel(self, clicks_y: int, clicks_x: int = 0) -> None: ...  # positive: down / right
    def chord(self, modifiers: Sequence[str], key: str) -> None: ...
    def type_text(self, text: str) -> None: ...
    def keyed(self, text: str) -> bool: ...  # type_text sends key events (else: the text handed over whole)
    def confine(self, rect: tuple[int, int, int, int]) -> None: ...  # the target window of the next burst
    def release_all(self) -> None: ...
    @property
    def held(self) -> Held: ...  # what is down now (false: nothing)
    def flush(self, timeout_s: float | None = None) -> None: ...  # the compositor handled all sent
    def close(self) -> None: ...


class SessionClipboard(Clipboard, Protocol):
    """The clipboard a paste owns (``core.pastetypes.Clipboard``), which the session closes: a
    restored clipboard still ours is then handed to a keeper (``hand_off``)."""

    @property
    def owns(self) -> bool: ...
    def close(self, *, hand_off: bool = True) -> None: ...


class Compositor(Protocol):
    """One Wayland compositor session as deskhand drives it (module docstring). Close it when done."""

    @property
    def name(self) -> str: ...  # for notices: "sway", "KWin"
    @property
    def input(self) -> Input: ...
    def views(self) -> list[View]: ...
    def focus(self, view_id: int) -> None: ...
    def place(self, view_id: int, x: int, y: int, width: int, height: int) -> None: ...
    def capture(self, rect: tuple[int, int, int, int] | None = None) -> Frame: ...
    def capture_view(self, views: Sequence[View], target: View) -> Frame: ...
    def clipboard(self) -> SessionClipboard: ...
    def close(self) -> None: ...
