"""Quartz window listing and window capture on macOS: CGWindowList info, one window's pixels, JPEG.

UNTESTED HERE: this module calls CoreGraphics and ImageIO through pyobjc and runs only on a Mac
with the Screen Recording permission; Linux CI only type-checks it. The decisions (which window,
the fitted size, quality 0.8) come from ``_windows`` and ``deskhand.core.screenshot``.

Capture: ``CGWindowListCreateImage`` of exactly one window (bounds ignore framing, best
resolution), drawn into a bitmap of the fitted size (the image is scaled, never cropped) and
encoded with ``CGImageDestination`` at ``kCGImageDestinationLossyCompressionQuality`` 0.8. When
Quartz returns no image (macOS 15 restricts the call), the contract's fallback runs:
``/usr/sbin/screencapture -l <id> -x -o`` bounded at 3 s (SIGTERM, then SIGKILL 150 ms later).
ScreenCaptureKit (the contract's first choice) is a next step. Capture never raises: None
means "no image" and the observation is text only.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

import Quartz  # pyobjc-framework-Quartz (CoreGraphics + ImageIO)
from Foundation import NSURL, NSMutableData

from deskhand.backends.macos._windows import CGWindow, parse_all
from deskhand.core import screenshot

SCREENCAPTURE = "/usr/sbin/screencapture"


def window_infos(*, on_screen_only: bool = False) -> list[CGWindow]:
    """Every window, front to back; the whole list (not only on-screen ones) unless asked."""
    option = Quartz.kCGWindowListOptionOnScreenOnly if on_screen_only else Quartz.kCGWindowListOptionAll
    infos = (
        Quartz.CGWindowListCopyWindowInfo(option | Quartz.kCGWindowListExcludeDesktopElements, Quartz.kCGNullWindowID)
        or []
    )
    return parse_all(_plain(i) for i in infos)


def _plain(info: Any) -> dict[str, object]:
    out: dict[str, object] = {}
    for key in info:
        value = info[key]
        if key == "kCGWindowBounds":
            value = {k: float(value[k]) for k in value}
        elif isinstance(value, bool | int | float | str):
            pass
        else:
            value = str(value)
        out[str(key)] = value
    return out


def _window_image(window_id: int) -> Any:
    options = Quartz.kCGWindowImageBoundsIgnoreFraming | Quartz.kCGWindowImageBestResolution
    return Quartz.CGWindowListCreateImage(
        Quartz.CGRectNull, Quartz.kCGWindowListOptionIncludingWindow, window_id, options
    )


def _screencapture_image(window_id: int) -> Any:
    with tempfile.TemporaryDirectory(prefix="deskhand-shot-") as tmp:
        out = Path(tmp) / "window.png"
        proc = subprocess.Popen([SCREENCAPTURE, "-l", str(window_id), "-x", "-o", str(out)])
        try:
            proc.wait(timeout=screenshot.FALLBACK_CAPTURE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=screenshot.FALLBACK_KILL_GRACE_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            return None
        if proc.returncode != 0 or not out.exists():
            return None
        source = Quartz.CGImageSourceCreateWithURL(NSURL.fileURLWithPath_(str(out)), None)
        return Quartz.CGImageSourceCreateImageAtIndex(source, 0, None) if source is not None else None


def _scaled(image: Any, width: int, height: int) -> Any:
    space = Quartz.CGColorSpaceCreateWithName(Quartz.kCGColorSpaceSRGB)
    info = Quartz.kCGImageAlphaPremultipliedFirst | Quartz.kCGBitmapByteOrder32Little
    ctx = Quartz.CGBitmapContextCreate(None, width, height, 8, 0, space, info)
    if ctx is None:
        return None
    Quartz.CGContextSetInterpolationQuality(ctx, Quartz.kCGInterpolationHigh)
    Quartz.CGContextDrawImage(ctx, Quartz.CGRectMake(0, 0, width, height), image)
    return Quartz.CGBitmapContextCreateImage(ctx)


def _jpeg(image: Any) -> bytes | None:
    data = NSMutableData.data()
    dest = Quartz.CGImageDestinationCreateWithData(data, "public.jpeg", 1, None)
    if dest is None:
        return None
    Quartz.CGImageDestinationAddImage(
        dest, image, {Quartz.kCGImageDestinationLossyCompressionQuality: screenshot.JPEG_QUALITY}
    )
    if not Quartz.CGImageDestinationFinalize(dest):
        return None
    return bytes(data)


def capture(window: CGWindow, width: int, height: int) -> tuple[bytes, str] | None:
    """The window's pixels scaled to ``width × height`` points-fit pixels as JPEG, and the source used."""
    try:
        image, source = _window_image(window.id), "cgwindowlist"
        if image is None or Quartz.CGImageGetWidth(image) == 0:
            image, source = _screencapture_image(window.id), "screencapture"
        if image is None:
            return None
        scaled = _scaled(image, width, height)
        data = _jpeg(scaled) if scaled is not None else None
    except Exception:  # the contract's capture never throws: failure means text only
        return None
    return (data, source) if data else None
