"""Capture on KWin: ``org.kde.KWin.ScreenShot2`` (KWin 5.27's screenshot effect) over D-Bus.

A capture hands KWin the write end of a pipe; KWin answers with the image's size, stride and
format (a ``QImage::Format``) and writes the raw pixels into the pipe. ``CaptureArea`` gives a
rect of the screen as it is; ``CaptureWindow`` renders one window by itself, so a covered
window is captured as it is, not what covers it. KWin serves it only to trusted callers: a
desktop from ``deskhand desktop start --compositor kwin`` sets ``KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1``;
on a Plasma session the program needs ``X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2``
in its ``.desktop`` file.
"""

from __future__ import annotations

import os
import select
import time
from typing import Any, Final

from deskhand.backends.linux.wayland.compositor import Frame
from deskhand.backends.linux.wayland.kwin.scripting import Scripting
from deskhand.core.errors import BackendUnavailable, NativeError

__all__ = ("capture_area", "capture_window")

PATH: Final = "/org/kde/KWin/ScreenShot2"
IFACE: Final = "org.kde.KWin.ScreenShot2"
#: QImage formats whose bytes are B, G, R, X/A in memory (RGB32, ARGB32, ARGB32 premultiplied).
_BGRX: Final = frozenset({4, 5, 6})
#: QImage formats whose bytes are R, G, B, X/A (RGBX8888, RGBA8888, RGBA8888 premultiplied).
_RGBX: Final = frozenset({16, 17, 18})
FIX_SCREENSHOT: Final = (
    "KWin serves ScreenShot2 only to trusted programs: on a Plasma session install a .desktop file for the "
    "program that runs deskhand with X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2 "
    "(`deskhand doctor` prints it)"
)


def capture_area(scripts: Scripting, rect: tuple[int, int, int, int], timeout_s: float = 2.0) -> Frame:
    x, y, w, h = rect
    options = {"include-cursor": ("b", False), "native-resolution": ("b", False)}
    return _capture(scripts, "CaptureArea", "iiuua{sv}h", (x, y, w, h, options), (x, y), timeout_s=timeout_s)


def capture_window(scripts: Scripting, uuid: str, origin: tuple[int, int], timeout_s: float = 2.0) -> Frame:
    """One window by itself, without its decoration (``origin``: where its content is)."""
    options = {"include-cursor": ("b", False), "include-decoration": ("b", False), "include-shadow": ("b", False),
               "native-resolution": ("b", False)}  # fmt: skip
    return _capture(scripts, "CaptureWindow", "sa{sv}h", (uuid, options), origin, timeout_s=timeout_s)


def _capture(
    scripts: Scripting, method: str, signature: str, args: tuple[Any, ...], origin: tuple[int, int], *, timeout_s: float
) -> Frame:
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    try:
        try:
            (results,) = scripts.call(PATH, IFACE, method, signature, (*args, write_end))
        except BackendUnavailable as exc:
            raise NativeError("capture_failed", f"{exc.message}; {FIX_SCREENSHOT}", dispatched=False) from exc
        finally:
            os.close(write_end)
            write_end = -1
        info = {k: v[1] for k, v in results.items()}
        width, height, stride, fmt = (int(info.get(k, 0)) for k in ("width", "height", "stride", "format"))
        if width <= 0 or height <= 0 or stride < width * 4:
            raise NativeError("capture_failed", f"kwin: {method} answered {info}", dispatched=False)
        data = _read_all(read_end, stride * height, timeout_s)
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    rows = [data[r * stride : r * stride + width * 4] for r in range(height)]
    pixels = b"".join(rows)
    if fmt in _RGBX:
        swapped = bytearray(pixels)
        swapped[0::4], swapped[2::4] = pixels[2::4], pixels[0::4]
        pixels = bytes(swapped)
    elif fmt not in _BGRX:
        raise NativeError("capture_failed", f"kwin: {method} sent an image in QImage format {fmt}", dispatched=False)
    return Frame(pixels, width, height, origin[0], origin[1])


def _read_all(fd: int, size: int, timeout_s: float) -> bytes:
    out = bytearray()
    deadline = time.monotonic() + timeout_s
    while len(out) < size:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise NativeError("capture_failed", "kwin: the screenshot's pixels did not arrive", dispatched=False)
        chunk = os.read(fd, min(1 << 20, size - len(out)))
        if not chunk:
            raise NativeError("capture_failed", "kwin: the screenshot's pipe closed early", dispatched=False)
        out += chunk
    return bytes(out)
