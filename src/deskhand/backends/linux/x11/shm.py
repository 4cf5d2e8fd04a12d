"""Read any drawable's pixels through MIT-SHM (``ShmGetImage``) on a private XCB connection.

python-xlib has no MIT-SHM, and its ``get_image`` sends the pixels over the socket (about
60 ms for a 1920×1080 window); ``ShmGetImage`` has the server write them into shared memory
instead (a few ms). The drawable can be the root window (a rectangle of the screen) or a
pixmap that another connection named, such as a window's XComposite pixmap: X resource ids
are server-wide, so any connection may read it while it exists.

The segment is a memfd attached with ``ShmAttachFd`` (MIT-SHM 1.2); it grows when a larger
drawable is read. Errors come back as values (XCB has no global error handler), so a gone
window is an ``ShmError``, never a process exit.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, Final

__all__ = ()

#: ZPixmap: whole pixels, 32 bits each for depths 24 and 32.
_Z_PIXMAP: Final = 2
_ALL_PLANES: Final = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Pixels:
    """A rectangle of 32-bit pixels, rows top-left first (BGRX for depth 24, BGRA for depth 32)."""

    data: bytes
    width: int
    height: int


class ShmError(Exception):
    """MIT-SHM is unavailable here, or a read failed (bad drawable, out of its bounds)."""


class _Cookie(ctypes.Structure):
    _fields_ = (("sequence", ctypes.c_uint),)


class _Error(ctypes.Structure):
    _fields_ = (
        ("response_type", ctypes.c_uint8),
        ("error_code", ctypes.c_uint8),
        ("sequence", ctypes.c_uint16),
        ("resource_id", ctypes.c_uint32),
        ("minor_code", ctypes.c_uint16),
        ("major_code", ctypes.c_uint8),
        ("pad0", ctypes.c_uint8),
        ("pad", ctypes.c_uint32 * 5),
        ("full_sequence", ctypes.c_uint32),
    )


class _VersionReply(ctypes.Structure):
    _fields_ = (
        ("response_type", ctypes.c_uint8),
        ("shared_pixmaps", ctypes.c_uint8),
        ("sequence", ctypes.c_uint16),
        ("length", ctypes.c_uint32),
        ("major_version", ctypes.c_uint16),
        ("minor_version", ctypes.c_uint16),
        ("uid", ctypes.c_uint16),
        ("gid", ctypes.c_uint16),
        ("pixmap_format", ctypes.c_uint8),
        ("pad0", ctypes.c_uint8 * 15),
    )


class _ImageReply(ctypes.Structure):
    _fields_ = (
        ("response_type", ctypes.c_uint8),
        ("depth", ctypes.c_uint8),
        ("sequence", ctypes.c_uint16),
        ("length", ctypes.c_uint32),
        ("visual", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
    )


_ErrorOut = ctypes.POINTER(ctypes.POINTER(_Error))
_libs: tuple[Any, Any, Any] | None = None
_libs_lock = threading.Lock()


def _load() -> tuple[Any, Any, Any]:
    """libxcb, libxcb-shm and the process's own ``free`` (for XCB's replies), typed once."""
    global _libs  # noqa: PLW0603  (a process-wide cache of loaded libraries)
    with _libs_lock:
        if _libs is not None:
            return _libs
        try:
            xcb = ctypes.CDLL("libxcb.so.1")
            shm = ctypes.CDLL("libxcb-shm.so.0")
        except OSError as e:
            raise ShmError(f"libxcb or libxcb-shm is missing: {e}") from e
        libc = ctypes.CDLL(None)
        c, u8, u16, i16, u32 = ctypes.c_void_p, ctypes.c_uint8, ctypes.c_uint16, ctypes.c_int16, ctypes.c_uint32
        for lib, name, res, args in (
            (xcb, "xcb_connect", c, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
            (xcb, "xcb_connection_has_error", ctypes.c_int, [c]),
            (xcb, "xcb_disconnect", None, [c]),
            (xcb, "xcb_generate_id", u32, [c]),
            (xcb, "xcb_request_check", ctypes.POINTER(_Error), [c, _Cookie]),
            (shm, "xcb_shm_query_version", _Cookie, [c]),
            (shm, "xcb_shm_query_version_reply", ctypes.POINTER(_VersionReply), [c, _Cookie, _ErrorOut]),
            (shm, "xcb_shm_attach_fd_checked", _Cookie, [c, u32, ctypes.c_int, u8]),
            (shm, "xcb_shm_detach", _Cookie, [c, u32]),
            (shm, "xcb_shm_get_image", _Cookie, [c, u32, i16, i16, u16, u16, u32, u8, u32, u32]),
            (shm, "xcb_shm_get_image_reply", ctypes.POINTER(_ImageReply), [c, _Cookie, _ErrorOut]),
            (libc, "free", None, [c]),
        ):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        _libs = (xcb, shm, libc)
        return _libs


class ShmReader:
    """One XCB connection with one shared-memory segment; not thread-safe (callers lock)."""

    def __init__(self, display: str) -> None:
        self._xcb, self._shm, self._libc = _load()
        self._conn = self._xcb.xcb_connect(display.encode(), None)
        if not self._conn or self._xcb.xcb_connection_has_error(self._conn):
            self._disconnect()
            raise ShmError(f"Cannot open X display {display} through XCB.")
        self._seg = 0
        self._buf: mmap.mmap | None = None
        err = ctypes.POINTER(_Error)()
        reply = self._shm.xcb_shm_query_version_reply(self._conn, self._shm.xcb_shm_query_version(self._conn), err)
        if not reply:
            self._free(err)
            self.close()
            raise ShmError("The X server has no MIT-SHM extension.")
        version = (reply.contents.major_version, reply.contents.minor_version)
        self._libc.free(reply)
        if version < (1, 2):
            self.close()
            raise ShmError(f"MIT-SHM {version[0]}.{version[1]} has no file-descriptor segments (needs 1.2).")

    def read(self, drawable: int, x: int, y: int, width: int, height: int) -> Pixels:
        """A copy of the drawable's ``width``×``height`` pixels at (``x``, ``y``), 4 bytes each:
        BGRX for depth 24 and BGRA for depth 32.

        Raises:
            ShmError: the drawable is gone, the rectangle is outside it, or its format is not 32 bpp.
        """
        size = width * height * 4
        if size <= 0:
            raise ShmError(f"Empty rectangle {width}x{height}.")
        buf = self._segment(size)
        err = ctypes.POINTER(_Error)()
        cookie = self._shm.xcb_shm_get_image(
            self._conn, drawable, x, y, width, height, _ALL_PLANES, _Z_PIXMAP, self._seg, 0
        )
        reply = self._shm.xcb_shm_get_image_reply(self._conn, cookie, err)
        if not reply:
            code = err.contents.error_code if err else 0
            self._free(err)
            self._check_connection()
            raise ShmError(f"ShmGetImage of {drawable:#x} failed (X error {code}).")
        got = reply.contents.size
        self._libc.free(reply)
        if got != size:
            raise ShmError(f"ShmGetImage of {drawable:#x} returned {got} bytes for {width}x{height}; not 32 bpp.")
        return Pixels(buf[:size], width, height)

    def _segment(self, size: int) -> mmap.mmap:
        """The attached segment, replaced by a larger one when ``size`` does not fit."""
        if self._buf is not None and len(self._buf) >= size:
            return self._buf
        self._release_segment()
        if sys.platform != "linux":  # memfd is Linux's (and this module the Linux backend's)
            raise ShmError("MIT-SHM segments need Linux's memfd_create")
        fd = os.memfd_create("deskhand-shm", os.MFD_CLOEXEC)
        try:
            os.ftruncate(fd, size)
            buf = mmap.mmap(fd, size, prot=mmap.PROT_READ)
        except OSError:
            os.close(fd)
            raise
        seg = self._xcb.xcb_generate_id(self._conn)
        # XCB sends the descriptor and closes it, whether the request succeeds or not.
        error = self._xcb.xcb_request_check(self._conn, self._shm.xcb_shm_attach_fd_checked(self._conn, seg, fd, 0))
        if error:
            self._libc.free(error)
            buf.close()
            raise ShmError("The X server refused the shared-memory segment (a remote display?).")
        self._seg, self._buf = seg, buf
        return buf

    def _release_segment(self) -> None:
        if self._buf is not None:
            self._shm.xcb_shm_detach(self._conn, self._seg)
            self._buf.close()
            self._buf = None
            self._seg = 0

    def _check_connection(self) -> None:
        if self._xcb.xcb_connection_has_error(self._conn):
            raise ShmError("The XCB connection to the X server broke.")

    def _free(self, err: Any) -> None:
        if err:
            self._libc.free(err)

    def _disconnect(self) -> None:
        if self._conn:
            self._xcb.xcb_disconnect(self._conn)
            self._conn = None

    def close(self) -> None:
        if self._conn:
            self._release_segment()
        self._disconnect()
