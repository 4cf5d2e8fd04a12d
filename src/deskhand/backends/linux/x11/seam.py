"""The X11 classes satisfy the display seam (``display.py``): checked by mypy, nothing at run time.

Each assignment below fails the type check when an X11 class or the ``windows`` module drifts
from its protocol, so a second display server can be written against ``display.py`` alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ()

if TYPE_CHECKING:
    from deskhand.backends.linux import display
    from deskhand.backends.linux.x11 import windows
    from deskhand.backends.linux.x11.capture import Capture, Grabber
    from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner
    from deskhand.backends.linux.x11.clipboard.pipe import Item
    from deskhand.backends.linux.x11.clipboard.reader import Snapshot
    from deskhand.backends.linux.x11.connection import XConnection
    from deskhand.backends.linux.x11.input import XInput
    from deskhand.backends.linux.x11.windows import WindowInfo
    from deskhand.backends.linux.x11.xdnd import XdndWatch

    def _conforms(info: WindowInfo, xinput: XInput, grabber: Grabber, owner: ClipboardOwner, watch: XdndWatch) -> None:
        _window: display.Window = info
        _windows: display.Windows[XConnection, WindowInfo] = windows
        _input: display.PointerKeys = xinput
        _capture: display.WindowCapture[WindowInfo, Capture] = grabber
        _clipboard: display.ClipboardOwner[Snapshot, Item] = owner
        _drag: display.DragWatch = watch
