"""The client of deskhand's shell extension (``extension/``): windows, activation, placement, capture.

``ShellWindow`` is one window as the shell sees it: its ``frame`` is the window as the user sees
it (decorations drawn by the client included, shadows excluded), its ``buffer`` the client's whole
surface. A Wayland client's AT-SPI coordinates are relative to its surface, so global = the
buffer's origin + the AT-SPI window coordinates (checked on GTK 3 and GTK 4).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from jeepney import DBusAddress

from deskhand.backends.linux.wayland.gnome._bus import Bus, BusError
from deskhand.core.errors import BackendUnavailable, NativeError

__all__ = ()

NAME: Final = "dev.deskhand.Shell"
UUID: Final = "deskhand@deskhand.dev"
VERSION: Final = 1
SHELL: Final = DBusAddress("/dev/deskhand/Shell", bus_name=NAME, interface=NAME)
FIX_EXTENSION: Final = (
    f"deskhand's GNOME Shell extension ({UUID}) is not running: `deskhand desktop start --compositor gnome` "
    "installs and enables it in its own shell; on your own GNOME session install it once as `deskhand doctor` says"
)
#: ``Meta.WindowType``: the ones an app's windows have (normal, dialog, modal dialog, utility),
#: and its popups (menu, dropdown and popup menu, tooltip, combo list).
_APP_TYPES: Final = frozenset({0, 3, 4, 7})
_POPUP_TYPES: Final = frozenset({6, 9, 10, 11, 13})


@dataclass(frozen=True, slots=True)
class ShellWindow:
    """One window as the shell reports it; rects are (x, y, width, height) in global pixels."""

    id: int
    pid: int
    wm_class: str
    app_id: str
    title: str
    frame: tuple[int, int, int, int]
    buffer: tuple[int, int, int, int]
    focused: bool
    minimized: bool
    showing: bool
    stacking: int
    type: int
    wayland: bool
    transient_for: int

    @property
    def visible(self) -> bool:
        return self.showing and not self.minimized


@dataclass(frozen=True, slots=True)
class Shot:
    """A captured window: PNG bytes of its buffer, and where its frame lies in them."""

    png: bytes
    frame: tuple[int, int, int, int]
    buffer: tuple[int, int, int, int]
    width: int
    height: int


def _window(raw: dict[str, Any]) -> ShellWindow:
    return ShellWindow(
        id=int(raw["id"]), pid=int(raw["pid"]), wm_class=str(raw["wm_class"]), app_id=str(raw["app_id"]),
        title=str(raw["title"]), frame=_rect(raw["frame"]), buffer=_rect(raw["buffer"]),
        focused=bool(raw["focused"]), minimized=bool(raw["minimized"]), showing=bool(raw["showing"]),
        stacking=int(raw["stacking"]), type=int(raw["type"]), wayland=bool(raw["wayland"]),
        transient_for=int(raw["transient_for"]),
    )  # fmt: skip


def _rect(value: Any) -> tuple[int, int, int, int]:
    x, y, w, h = (int(n) for n in value)
    return (x, y, w, h)


class ShellWindows:
    """The extension over a ``Bus`` (shared with the caller; not closed here)."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus

    def _call(self, method: str, signature: str = "", body: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        try:
            return self.bus.call(SHELL, method, signature, body)
        except BusError as err:
            if err.name in ("org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.UnknownMethod"):
                raise BackendUnavailable(f"gnome: {FIX_EXTENSION}") from err
            raise

    def windows(self) -> list[ShellWindow]:
        """Every app window, bottom to top (override-redirect ones and the shell's own excluded);
        one Mutter has not shown yet (placed) is not ``visible``."""
        raw = json.loads(self._call("Windows")[0])
        return [_window(w) for w in raw if int(w["type"]) in _APP_TYPES]

    def popups(self, pid: int) -> list[ShellWindow]:
        """The open popups (menus, tooltips, combo lists) of ``pid``, bottom to top."""
        raw = json.loads(self._call("Windows")[0])
        return [w for w in map(_window, raw) if w.type in _POPUP_TYPES and w.pid == pid and w.visible]

    def activate(self, window_id: int) -> None:
        if not self._call("Activate", "t", (window_id,))[0]:
            raise NativeError("stale_window", "The observed window is gone; observe the app again.", dispatched=False)

    def move_resize(self, window_id: int, x: int, y: int, width: int, height: int) -> None:
        if not self._call("MoveResize", "tiiii", (window_id, x, y, width, height))[0]:
            raise NativeError("stale_window", "The window is gone.", dispatched=False)

    def capture(self, window_id: int) -> Shot:
        try:
            meta, png = self._call("Capture", "t", (window_id,))
        except BusError as err:
            raise NativeError("capture_failed", f"gnome: {err.message}", dispatched=False) from err
        info = json.loads(meta)
        return Shot(bytes(png), _rect(info["frame"]), _rect(info["buffer"]), int(info["width"]), int(info["height"]))

    def capture_area(self, rect: tuple[int, int, int, int] | None) -> bytes:
        """PNG bytes of what the screen shows in ``rect`` (None: the whole screen)."""
        try:
            (png,) = self._call("CaptureArea", "iiii", rect or (0, 0, 0, 0))
        except BusError as err:
            raise NativeError("capture_failed", f"gnome: {err.message}", dispatched=False) from err
        return bytes(png)

    def commit_text(self, window_id: int, text: str) -> bool:
        """Commit ``text`` through the shell's input method to window ``window_id`` when it holds
        the focus and a text-input focus; False (nothing sent) otherwise."""
        return bool(self._call("CommitText", "ts", (window_id, text))[0])

    def marks(self) -> int:
        """How often the shell consumed the marker key (``_remote.MARKER_KEYSYM``)."""
        return int(self._call("Marks")[0])

    def frame(self) -> None:
        """Return after the stage's next frame (pointer events queued before have gone out)."""
        self._call("Frame")

    def hide_overview(self) -> bool:
        """Close the overview; whether it is still visible."""
        return bool(self._call("HideOverview")[0])

    def version(self) -> int:
        body = self.bus.call(
            DBusAddress(SHELL.object_path, bus_name=NAME, interface="org.freedesktop.DBus.Properties"),
            "Get", "ss", (NAME, "Version"),
        )  # fmt: skip
        return int(body[0][1])
