"""Capture through wlr-screencopy: an output, or a region of one, into a shared-memory buffer.

The compositor says which buffer it wants (format, size, stride), we hand it a ``wl_shm`` buffer on
a memfd, and it answers ``ready`` (or ``failed``). There is no per-window capture on a wlroots
compositor: a window is captured as its rect on the screen, so it must be raised and uncovered
first (the caller's rule; :func:`covered_by` says what lies over it).
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Sequence
from typing import Final

from deskhand.backends.linux.wayland._client import Client, Output
from deskhand.backends.linux.wayland._protocol import FRAME_Y_INVERT, SHM_ARGB8888, SHM_XRGB8888
from deskhand.backends.linux.wayland._wire import WaylandError
from deskhand.backends.linux.wayland.compositor import Frame, View
from deskhand.core.errors import NativeError

__all__ = ()

_FORMATS: Final = (SHM_XRGB8888, SHM_ARGB8888)  # both are B, G, R, X/A bytes in memory


def _output_at(client: Client, x: int, y: int) -> Output:
    for out in client.outputs:
        if out.x <= x < out.x + out.width and out.y <= y < out.y + out.height:
            return out
    raise WaylandError(f"wayland: no output holds the point ({x}, {y})")


def capture(client: Client, rect: tuple[int, int, int, int] | None = None, *, timeout_s: float = 2.0) -> Frame:
    """The pixels of global ``rect`` (x, y, width, height; clipped to its output), or of the first
    output when ``rect`` is None."""
    manager = client.need("zwlr_screencopy_manager_v1")
    conn = client.conn
    if rect is None:
        out = client.outputs[0] if client.outputs else None
        if out is None:
            raise WaylandError("wayland: the compositor has no output")
        x, y, w, h = out.x, out.y, out.width, out.height
        frame = manager.create("capture_output", 0, out.proxy.id)
    else:
        out = _output_at(client, rect[0], rect[1])
        x, y = rect[0], rect[1]
        w = min(rect[2], out.x + out.width - x)
        h = min(rect[3], out.y + out.height - y)
        if w <= 0 or h <= 0:
            raise WaylandError(f"wayland: the region {rect} is empty")
        frame = manager.create("capture_output_region", 0, out.proxy.id, x - out.x, y - out.y, w, h)
    offers: list[tuple[int, int, int, int]] = []
    state: dict[str, int] = {}
    frame.on("buffer", lambda fmt, bw, bh, stride: offers.append((int(fmt), int(bw), int(bh), int(stride))))
    frame.on("flags", lambda flags: state.__setitem__("flags", int(flags)))
    frame.on("ready", lambda *_t: state.__setitem__("ready", 1))
    frame.on("failed", lambda: state.__setitem__("failed", 1))
    frame.on("damage", lambda *_d: None)
    try:
        conn.roundtrip(timeout_s)  # the buffer offers come right after the request
        offer = _pick(offers)
        fmt, bw, bh, stride = offer
        size = stride * bh
        fd = os.memfd_create("deskhand-screencopy", os.MFD_CLOEXEC)
        try:
            os.ftruncate(fd, size)
            pool = client.need("wl_shm").create("create_pool", size, fds=[fd])
            buffer = pool.create("create_buffer", 0, bw, bh, stride, fmt)
            pool.request("destroy")
            frame.request("copy", buffer.id)
            conn.wait(
                lambda: "ready" in state or "failed" in state, timeout_s, "wayland: the screencopy did not finish"
            )
            buffer.request("destroy")
            if "failed" in state:
                raise WaylandError("wayland: the compositor failed the screencopy")
            with mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ) as mem:
                data = _rows(mem, bw, bh, stride, invert=bool(state.get("flags", 0) & FRAME_Y_INVERT))
        finally:
            os.close(fd)
    finally:
        if frame.alive:
            frame.request("destroy")
    return Frame(data, bw, bh, x, y)


def _pick(offers: Sequence[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    for offer in offers:
        if offer[0] in _FORMATS:
            return offer
    raise WaylandError(f"wayland: the compositor offers no 32-bit shm buffer for a screencopy ({offers})")


def _rows(mem: mmap.mmap, width: int, height: int, stride: int, *, invert: bool) -> bytes:
    row_bytes = width * 4
    rows = [mem[r * stride : r * stride + row_bytes] for r in range(height)]
    if invert:
        rows.reverse()
    return b"".join(rows)


def capture_view(client: Client, views: Sequence[View], target: View, *, timeout_s: float = 2.0) -> Frame:
    """The pixels of ``target``'s rect, refused while another view lies over it.

    ``views`` is sway's tree order, in which floating windows go from the bottom of the stack to
    the top. wlroots has no per-window capture, so the rect on the screen is the window only when
    nothing covers it; a covered window is refused before any capture (``capture_failed``), never
    answered with what covers it.
    """
    order = [v.id for v in views]
    if target.id not in order:
        raise NativeError("window_not_found", f"wayland: no view {target.id} in the tree", dispatched=False)
    above = [v for v in views[order.index(target.id) + 1 :] if v.visible]
    covers = [v for v in above if _overlap(v.rect, target.rect)]
    if covers:
        names = ", ".join(f"{v.app_id or v.title} (pid {v.pid})" for v in covers)
        raise NativeError(
            "capture_failed",
            f"wayland: the window is covered by {names}; a wlroots compositor has no per-window capture, "
            "so raise the window (or move what covers it) and capture again",
            dispatched=False,
        )
    if not target.visible:
        raise NativeError("target_window_offscreen", "wayland: the window is not on screen", dispatched=False)
    return capture(client, target.rect, timeout_s=timeout_s)


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
