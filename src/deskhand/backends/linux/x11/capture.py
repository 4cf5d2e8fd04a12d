"""Window capture on Linux (X11): exactly one window's pixels, also when it is covered.

Two routes, chosen per capture and reported as ``source``:

* ``xshm``: the window frame is on screen and nothing is stacked over it but the app's own
  popups (its open menu, combo list or tooltip, which a person sees over the window), so its
  pixels on the screen are its own; read that rectangle of the root window with MIT-SHM
  (about 1 ms).
* ``composite``: anything else (covered, partly off screen): the frame's offscreen pixmap
  from XComposite ``NameWindowPixmap`` (top-level windows are redirected once, in automatic
  mode, so the server keeps painting the screen as usual), also read with MIT-SHM, with the
  app's own popups over the frame composed on top from their pixmaps, as a person sees them.

Both reads go through ``x11.shm.ShmReader``; python-xlib's ``get_image`` (pixels over the
socket, ten times slower) is the fallback when the server has no MIT-SHM.

The whole screen is never captured in place of a window. The frame (decorations included) is
what is captured, and the same frame is what the screenshot transform maps back to.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from typing import Final

from Xlib import X
from Xlib.protocol import request

from deskhand.backends.linux import imaging
from deskhand.backends.linux.x11.connection import XConnection, XError
from deskhand.backends.linux.x11.shm import Pixels, ShmError, ShmReader
from deskhand.backends.linux.x11.windows import WindowInfo, frames_above
from deskhand.core import screenshot
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

#: JPEG quality 0.8 of the contract, on libjpeg-turbo's 0-100 scale.
#: Chroma at half resolution both ways (4:2:0, the usual JPEG choice and the one the Linux stack
#: notes measured): half the encoding time of 4:4:4 and about half the bytes; luminance, which
#: carries text edges, stays at full resolution with the same quantization.
CHROMA_SUBSAMPLING: Final = "420"


@dataclass(frozen=True, slots=True)
class Capture:
    """The window's pixels (BGRX rows, top-left first) and where they came from."""

    pixels: Pixels
    frame: Rect  # the captured frame in root coordinates (points = pixels on X11)
    window_id: int
    source: str  # "xshm" or "composite"
    #: What ``Grabber.covers`` found over the window while choosing the route (None: not read).
    covers: tuple[Rect, ...] | None = None


class Grabber:
    """Captures windows of one X connection; holds the XShm reader for the unobscured route."""

    def __init__(self, x: XConnection) -> None:
        self.x = x
        self._shm: ShmReader | None = None
        self._shm_failed = False
        self._shm_lock = threading.Lock()
        self.composite = x.redirect_for_capture()

    def grab(self, window: WindowInfo) -> Capture:
        """The frame's pixels, by XShm when nothing covers it, else by XComposite.

        Raises:
            NativeError: ``capture_failed`` when the window is gone or no route can read it.
        """
        covers = tuple(self.covers(window))
        if self._unobscured(window, covers):
            pixels = self._grab_root(window.frame)
            if pixels is not None:
                return Capture(pixels, window.frame, window.id, "xshm", covers)
        if not self.composite:
            raise NativeError(
                "capture_failed",
                "The window is covered or off screen and the X server has no Composite extension.",
            )
        pixels = self._grab_composite(window)
        for popup, where in self._popups(window):
            pixels = self._compose(pixels, window.frame, popup, where)
        return Capture(pixels, window.frame, window.id, "composite", covers)

    def _popups(self, window: WindowInfo) -> list[tuple[int, Rect]]:
        """The app's own mapped popups (override-redirect, same pid) stacked above ``window``
        and overlapping its frame, bottom to top, with their rectangles in root coordinates."""
        f = window.frame
        out: list[tuple[int, Rect]] = []
        with self.x.lock:
            try:
                children = self.x.root.query_tree().children
            except XError:
                return out
            ids = [int(c.id) for c in children]
            if window.frame_id not in ids or not window.pid:
                return out
            for child in children[ids.index(window.frame_id) + 1 :]:
                try:
                    attrs = child.get_attributes()
                    if attrs.map_state != X.IsViewable or not attrs.override_redirect:
                        continue
                    if _pid(self.x, child) != window.pid:
                        continue
                    g = child.get_geometry()
                except XError:
                    continue
                r = Rect(float(g.x), float(g.y), float(g.width), float(g.height))
                if _intersects(f, r):
                    out.append((int(child.id), r))
        return out

    def _compose(self, pixels: Pixels, frame: Rect, popup: int, where: Rect) -> Pixels:
        """``pixels`` (the frame's) with the popup's own pixels over the part they cover; a popup
        that cannot be read (it just closed) is left out."""
        try:
            top = self._pixmap_pixels(popup)
        except NativeError:
            return pixels
        frame_h, frame_w = pixels.height, pixels.width
        x0, y0 = int(where.x - frame.x), int(where.y - frame.y)  # the popup, relative to the frame
        sx0, sy0 = max(0, -x0), max(0, -y0)
        dx0, dy0 = max(0, x0), max(0, y0)
        w = min(top.width - sx0, frame_w - dx0)
        h = min(top.height - sy0, frame_h - dy0)
        if w <= 0 or h <= 0:
            return pixels
        out = bytearray(pixels.data)
        for row in range(h):  # 4 bytes a pixel, rows top first
            dst = ((dy0 + row) * frame_w + dx0) * 4
            src = ((sy0 + row) * top.width + sx0) * 4
            out[dst : dst + w * 4] = top.data[src : src + w * 4]
        return Pixels(bytes(out), frame_w, frame_h)

    def _unobscured(self, window: WindowInfo, covers: tuple[Rect, ...]) -> bool:
        f = window.frame
        screen = self.x.display.screen()
        on_screen = (
            f.x >= 0
            and f.y >= 0
            and f.x + f.width <= screen.width_in_pixels
            and (f.y + f.height <= screen.height_in_pixels)
        )
        return on_screen and not any(_intersects(f, above) for above in covers)

    def covers(self, window: WindowInfo) -> list[Rect]:
        """Frames stacked above ``window`` other than its app's own popups: a menu, a combo
        list or a tooltip of the same process (override-redirect, same ``_NET_WM_PID``) is
        part of what a person sees over the window, so the screen's pixels are the capture."""
        with self.x.lock:
            try:
                children = self.x.root.query_tree().children
            except XError:
                return frames_above(self.x, window)
            ids = [int(c.id) for c in children]
            if window.frame_id not in ids:
                return []
            # every window's attributes and geometry queued together: one round trip
            d = self.x.display.display
            queued = [
                (
                    child,
                    request.GetWindowAttributes(display=d, defer=True, window=child),
                    request.GetGeometry(display=d, defer=True, drawable=child),
                )
                for child in children[ids.index(window.frame_id) + 1 :]
            ]
            out = []
            for child, attrs, g in queued:
                try:
                    attrs.reply()
                    g.reply()
                    if attrs.map_state != X.IsViewable:
                        continue
                    if attrs.override_redirect and window.pid and _pid(self.x, child) == window.pid:
                        continue
                except XError:
                    continue
                bw = 2 * g.border_width
                out.append(Rect(float(g.x), float(g.y), float(g.width + bw), float(g.height + bw)))
        return out

    def _reader(self) -> ShmReader | None:
        """The MIT-SHM reader (opened on first use); None when this server cannot do MIT-SHM."""
        if self._shm is None and not self._shm_failed:
            try:
                self._shm = ShmReader(self.x.name)
            except ShmError:
                self._shm_failed = True
        return self._shm

    def _grab_root(self, r: Rect) -> Pixels | None:
        with self._shm_lock:
            reader = self._reader()
            if reader is None:
                return None
            try:
                return reader.read(int(self.x.root.id), int(r.x), int(r.y), int(r.width), int(r.height))
            except ShmError:
                return None

    def _grab_composite(self, window: WindowInfo) -> Pixels:
        return self._pixmap_pixels(window.frame_id)

    def _pixmap_pixels(self, wid: int) -> Pixels:
        """A top-level window's pixels from its XComposite pixmap (BGRX rows)."""
        with self._shm_lock, self.x.lock:
            frame = self.x.window(wid)
            pixmap = None
            try:
                geo = frame.get_geometry()
                if geo.depth not in (24, 32):
                    raise NativeError("capture_failed", f"Unsupported window depth {geo.depth}.")
                pixmap = frame.composite_name_window_pixmap()
                reader = self._reader()
                if reader is not None:
                    # The reader's own connection must see the pixmap: sync makes the server name it first.
                    self.x.display.sync()
                    try:
                        return reader.read(int(pixmap.id), 0, 0, geo.width, geo.height)
                    except ShmError as e:
                        raise NativeError("capture_failed", f"The window {wid:#x} could not be read: {e}") from e
                image = pixmap.get_image(0, 0, geo.width, geo.height, X.ZPixmap, 0xFFFFFFFF)
            except XError as e:
                raise NativeError("capture_failed", f"The window {wid:#x} could not be read: {e}") from e
            finally:
                if pixmap is not None:
                    pixmap.free()
                    self.x.display.flush()
        data = image.data if isinstance(image.data, bytes) else bytes(image.data)
        return Pixels(data, geo.width, geo.height)

    def close(self) -> None:
        with self._shm_lock:
            if self._shm is not None:
                self._shm.close()
                self._shm = None


def encode(pixels: Pixels, width: int, height: int) -> bytes:
    """Resize BGRX pixels to ``width``×``height`` (bilinear, never up) and encode JPEG q80 4:2:0.

    pixman scales and libjpeg-turbo encodes (``imaging``, through ctypes: as fast as OpenCV and
    simplejpeg in ``make bench``, with no Python imaging package); Pillow, when installed, is the
    fallback where those libraries are missing.
    """
    missing = imaging.unavailable_reason()
    if missing is None:
        data = pixels.data
        if (pixels.width, pixels.height) != (width, height):
            data = imaging.scale_bgrx(data, pixels.width, pixels.height, width, height)
        return imaging.encode_jpeg(
            data, width, height, quality=screenshot.JPEG_QUALITY_PERCENT, subsampling=CHROMA_SUBSAMPLING
        )
    try:
        return encode_pillow(pixels, width, height)
    except ImportError as err:
        raise NativeError("capture_failed", missing) from err


def encode_pillow(pixels: Pixels, width: int, height: int) -> bytes:
    """:func:`encode` on Pillow (its bilinear resize and libjpeg-turbo), when it is installed."""
    from PIL import Image  # noqa: PLC0415 - optional: the system libraries are the main route

    image = Image.frombuffer("RGBX", (pixels.width, pixels.height), pixels.data, "raw", "BGRX", 0, 1)
    if (pixels.width, pixels.height) != (width, height):
        image = image.resize((width, height), Image.Resampling.BILINEAR)
    out = io.BytesIO()
    image.convert("RGB").save(
        out, "JPEG", quality=screenshot.JPEG_QUALITY_PERCENT, subsampling=_PIL_SUBSAMPLING[CHROMA_SUBSAMPLING]
    )
    return out.getvalue()


#: Pillow's names for the chroma subsampling modes.
_PIL_SUBSAMPLING: Final = {"444": 0, "422": 1, "420": 2}


def _pid(x: XConnection, win: object) -> int | None:
    value = x.property(win, "_NET_WM_PID")
    return int(value[0]) if value is not None and len(value) else None


def _intersects(a: Rect, b: Rect) -> bool:
    return a.x < b.x + b.width and b.x < a.x + a.width and a.y < b.y + b.height and b.y < a.y + a.height
