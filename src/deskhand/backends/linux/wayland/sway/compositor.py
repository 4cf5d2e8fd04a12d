"""``Sway``: the compositor seam on sway (windows by IPC, input and capture by wlroots protocols)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._clipserver import ClipboardServer
from deskhand.backends.linux.wayland._dataclip import DataControl
from deskhand.backends.linux.wayland.compositor import Frame, View
from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.backends.linux.wayland.wlroots import screencopy
from deskhand.backends.linux.wayland.wlroots.devices import Devices

__all__ = ("Sway",)


class Sway:
    """One sway session: a Wayland client with the session's devices, and IPC per call (a
    connection is cheap, and none is held across the host's calls)."""

    name = "sway"

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self.client = Client(self.env)
        try:
            self.devices = Devices(self.client)  # the session's one pointer and keyboard
        except BaseException:
            self.client.close()
            raise

    @property
    def input(self) -> Devices:
        return self.devices

    def close(self) -> None:
        try:
            self.devices.close()
        finally:
            self.client.close()

    def views(self) -> list[View]:
        """Every toplevel in sway's tree order (floating windows bottom to top)."""
        with SwayIPC(env=self.env) as ipc:
            return ipc.views()

    def focus(self, view_id: int) -> None:
        with SwayIPC(env=self.env) as ipc:
            ipc.focus(view_id)

    def place(self, view_id: int, x: int, y: int, width: int, height: int) -> None:
        with SwayIPC(env=self.env) as ipc:
            ipc.place(view_id, x, y, width, height)

    def capture(self, rect: tuple[int, int, int, int] | None = None) -> Frame:
        return screencopy.capture(self.client, rect)

    def capture_view(self, views: Sequence[View], target: View) -> Frame:
        """``target``'s rect on the screen; refused while another view covers it (wlroots has no
        per-window capture)."""
        return screencopy.capture_view(self.client, views, target)

    def clipboard(self) -> ClipboardServer:
        return ClipboardServer(DataControl(self.env), self.env)
