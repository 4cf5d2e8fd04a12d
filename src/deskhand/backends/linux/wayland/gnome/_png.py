"""PNG to BGRX rows with libpng's simplified API (``libpng16.so.16``, through ctypes).

The shell extension hands a window's pixels over as PNG (GJS can write a cairo surface only so).
libpng decodes straight into B, G, R, A bytes, the layout ``imaging`` scales and encodes (the
alpha byte is read as X). A frame inside the image is cut out row by row. Pillow decodes when
libpng is missing.
"""

from __future__ import annotations

import ctypes
import io
import threading
from typing import Any, Final

from deskhand.core.errors import BackendUnavailable

__all__ = ()

_PNG_IMAGE_VERSION: Final = 1
_PNG_FORMAT_BGRA: Final = 0x1 | 0x2 | 0x10  # alpha, colour, BGR order (alpha last): B, G, R, A


class _PngImage(ctypes.Structure):
    _fields_ = (
        ("opaque", ctypes.c_void_p),
        ("version", ctypes.c_uint32),
        ("width", ctypes.c_uint32),
        ("height", ctypes.c_uint32),
        ("format", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("colormap_entries", ctypes.c_uint32),
        ("warning_or_error", ctypes.c_uint32),
        ("message", ctypes.c_char * 64),
    )


_lib: Any = None
_lock = threading.Lock()


def _libpng() -> Any:
    global _lib  # noqa: PLW0603 - loaded once per process
    with _lock:
        if _lib is None:
            lib = ctypes.CDLL("libpng16.so.16")
            lib.png_image_begin_read_from_memory.argtypes = (
                ctypes.POINTER(_PngImage),
                ctypes.c_void_p,
                ctypes.c_size_t,
            )
            lib.png_image_finish_read.argtypes = (
                ctypes.POINTER(_PngImage), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p,
            )  # fmt: skip
            lib.png_image_free.argtypes = (ctypes.POINTER(_PngImage),)
            _lib = lib
        return _lib


def decode_bgrx(png: bytes) -> tuple[bytes, int, int]:
    """The PNG's pixels as 32-bit B, G, R, X rows, with its width and height."""
    try:
        lib = _libpng()
    except OSError:
        return _decode_pillow(png)
    image = _PngImage(version=_PNG_IMAGE_VERSION)
    src = ctypes.create_string_buffer(png, len(png))
    if not lib.png_image_begin_read_from_memory(ctypes.byref(image), src, len(png)):
        raise BackendUnavailable(f"gnome: the capture is no PNG: {image.message.decode(errors='replace')}")
    image.format = _PNG_FORMAT_BGRA
    out = ctypes.create_string_buffer(image.width * image.height * 4)
    try:
        if not lib.png_image_finish_read(ctypes.byref(image), None, out, image.width * 4, None):
            raise BackendUnavailable(f"gnome: the capture did not decode: {image.message.decode(errors='replace')}")
    finally:
        lib.png_image_free(ctypes.byref(image))
    return out.raw, int(image.width), int(image.height)


def _decode_pillow(png: bytes) -> tuple[bytes, int, int]:
    try:
        from PIL import Image  # noqa: PLC0415 - the fallback only
    except ImportError as exc:
        raise BackendUnavailable("gnome: no PNG decoder: install libpng16-16 (or Pillow)") from exc
    with Image.open(io.BytesIO(png)) as img:
        rgba = img.convert("RGBA")
        return rgba.tobytes("raw", "BGRA"), rgba.width, rgba.height


def crop(data: bytes, width: int, height: int, rect: tuple[int, int, int, int]) -> tuple[bytes, int, int]:
    """The part of BGRX rows inside ``rect`` (x, y, w, h; clipped to the image)."""
    x0, y0 = max(0, rect[0]), max(0, rect[1])
    x1, y1 = min(width, rect[0] + rect[2]), min(height, rect[1] + rect[3])
    if x1 <= x0 or y1 <= y0:
        raise BackendUnavailable("gnome: the window's frame lies outside its captured image")
    if (x0, y0, x1, y1) == (0, 0, width, height):
        return data, width, height
    stride, row = width * 4, (x1 - x0) * 4
    out = b"".join(data[y * stride + x0 * 4 : y * stride + x0 * 4 + row] for y in range(y0, y1))
    return out, x1 - x0, y1 - y0
