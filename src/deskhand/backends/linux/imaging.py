"""Screenshot fit and JPEG encoding on the system's own imaging libraries, through ctypes.

* **pixman** (``libpixman-1.so.0``, the X server's own rendering library; Xvfb depends on it)
  scales the BGRX pixels with its bilinear filter (SIMD fast paths), as fast as OpenCV's
  ``INTER_LINEAR`` (``make bench``).
* **libjpeg-turbo's TurboJPEG API** (``libturbojpeg.so.0``, Debian ``libturbojpeg0``) encodes
  them straight from BGRX.

No Python imaging package is needed, which keeps an install of deskhand small. Each call makes
its own pixman images and TurboJPEG handle, so calls from several threads never share state.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Final

from deskhand.core.errors import BackendUnavailable

__all__ = ("encode_jpeg", "scale_bgrx", "unavailable_reason")

#: pixman's x8r8g8b8: 32 bpp, on little-endian bytes B, G, R, X (what X hands out for depth 24/32).
_PIXMAN_X8R8G8B8: Final = (32 << 24) | (2 << 16) | (0 << 12) | (8 << 8) | (8 << 4) | 8
_PIXMAN_OP_SRC: Final = 1
_PIXMAN_FILTER_BILINEAR: Final = 4
_PIXMAN_REPEAT_PAD: Final = 3
_FIXED_ONE: Final = 1 << 16

#: TurboJPEG's pixel format for B, G, R, X bytes, and its chroma subsampling codes.
_TJPF_BGRX: Final = 3
_TJSAMP: Final = {"444": 0, "422": 1, "420": 2}


class _Transform(ctypes.Structure):
    _fields_ = (("matrix", (ctypes.c_int32 * 3) * 3),)


_libs: tuple[Any, Any] | None = None
_load_lock = threading.Lock()


def _load() -> tuple[Any, Any]:
    global _libs  # noqa: PLW0603 - loaded once per process
    with _load_lock:
        if _libs is not None:
            return _libs
        try:
            pixman = ctypes.CDLL("libpixman-1.so.0")
            tj = ctypes.CDLL("libturbojpeg.so.0")
        except OSError as err:
            msg = (
                f"screenshots need pixman and libjpeg-turbo ({err}); "
                "install them with `sudo apt-get install libpixman-1-0 libturbojpeg0`"
            )
            raise BackendUnavailable(msg) from err
        vp, i32 = ctypes.c_void_p, ctypes.c_int32
        pixman.pixman_image_create_bits.restype = vp
        pixman.pixman_image_create_bits.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int, vp, ctypes.c_int)
        pixman.pixman_image_set_transform.restype = ctypes.c_int
        pixman.pixman_image_set_transform.argtypes = (vp, ctypes.POINTER(_Transform))
        pixman.pixman_image_set_filter.restype = ctypes.c_int
        pixman.pixman_image_set_filter.argtypes = (vp, ctypes.c_int, vp, ctypes.c_int)
        pixman.pixman_image_set_repeat.argtypes = (vp, ctypes.c_int)
        pixman.pixman_image_composite32.argtypes = (ctypes.c_int, vp, vp, vp, i32, i32, i32, i32, i32, i32, i32, i32)
        pixman.pixman_image_unref.argtypes = (vp,)
        tj.tjInitCompress.restype = vp
        tj.tjCompress2.restype = ctypes.c_int
        tj.tjCompress2.argtypes = (
            vp, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
            ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte)), ctypes.POINTER(ctypes.c_ulong),
            ctypes.c_int, ctypes.c_int, ctypes.c_int,
        )  # fmt: skip
        tj.tjFree.argtypes = (ctypes.POINTER(ctypes.c_ubyte),)
        tj.tjDestroy.argtypes = (vp,)
        tj.tjGetErrorStr2.restype = ctypes.c_char_p
        tj.tjGetErrorStr2.argtypes = (vp,)
        _libs = (pixman, tj)
        return _libs


def unavailable_reason() -> str | None:
    """Why the libraries cannot be used here, or None when they can."""
    try:
        _load()
    except BackendUnavailable as err:
        return str(err)
    return None


def scale_bgrx(data: bytes, width: int, height: int, to_width: int, to_height: int) -> bytes:
    """``width``×``height`` BGRX pixels scaled to ``to_width``×``to_height`` (bilinear, edges padded)."""
    if len(data) < width * height * 4:
        raise ValueError(f"{len(data)} bytes for {width}x{height} BGRX pixels")
    pixman, _ = _load()
    # pixman only reads the source: point it at the bytes object's own buffer (kept alive by `data`).
    src_address = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value
    out = ctypes.create_string_buffer(to_width * to_height * 4)
    src = pixman.pixman_image_create_bits(_PIXMAN_X8R8G8B8, width, height, src_address, width * 4)
    dst = pixman.pixman_image_create_bits(_PIXMAN_X8R8G8B8, to_width, to_height, ctypes.addressof(out), to_width * 4)
    if not src or not dst:
        for image in (src, dst):
            if image:
                pixman.pixman_image_unref(image)
        raise MemoryError("pixman could not create the images")
    try:
        transform = _Transform()
        transform.matrix[0][0] = round(width / to_width * _FIXED_ONE)
        transform.matrix[1][1] = round(height / to_height * _FIXED_ONE)
        transform.matrix[2][2] = _FIXED_ONE
        pixman.pixman_image_set_transform(src, ctypes.byref(transform))
        pixman.pixman_image_set_filter(src, _PIXMAN_FILTER_BILINEAR, None, 0)
        pixman.pixman_image_set_repeat(src, _PIXMAN_REPEAT_PAD)
        pixman.pixman_image_composite32(_PIXMAN_OP_SRC, src, None, dst, 0, 0, 0, 0, 0, 0, to_width, to_height)
    finally:
        pixman.pixman_image_unref(src)
        pixman.pixman_image_unref(dst)
    return out.raw


def encode_jpeg(data: bytes, width: int, height: int, *, quality: int, subsampling: str = "420") -> bytes:
    """BGRX pixels as a baseline JPEG of ``quality`` (1-100) with ``subsampling`` chroma."""
    if len(data) < width * height * 4:
        raise ValueError(f"{len(data)} bytes for {width}x{height} BGRX pixels")
    _, tj = _load()
    handle = tj.tjInitCompress()
    if not handle:
        raise MemoryError("TurboJPEG could not start a compressor")
    jpeg = ctypes.POINTER(ctypes.c_ubyte)()
    size = ctypes.c_ulong(0)
    try:
        status = tj.tjCompress2(
            handle, data, width, width * 4, height, _TJPF_BGRX,
            ctypes.byref(jpeg), ctypes.byref(size), _TJSAMP[subsampling], quality, 0,
        )  # fmt: skip
        if status != 0:
            raise RuntimeError(f"TurboJPEG failed: {tj.tjGetErrorStr2(handle).decode(errors='replace')}")
        return ctypes.string_at(jpeg, size.value)
    finally:
        if jpeg:
            tj.tjFree(jpeg)
        tj.tjDestroy(handle)
