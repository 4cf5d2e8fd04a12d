"""Windows from ``CGWindowListCopyWindowInfo``: parsing, the capture choice, binding and AX matching (macOS).

Pure: no pyobjc import. ``_quartz_screen.window_infos`` passes the list of info dictionaries
(front to back, as Quartz returns them, keys such as ``kCGWindowNumber``) converted to plain
dicts; everything decided from them lives here:

* :func:`capture_window`: the key window's exact id when AX gave one, else the highest
  ``core.screenshot.window_score`` among the pid's windows (6.11);
* :func:`bind_at_point`: the front-most layer-0 on-screen window of the pid containing a point
  (6.3), with ``point_outside_target_window`` / ``target_window_offscreen``;
* :func:`match_ax_window`: the CG window of an AX window (same frame, else the unique same title),
  since AX has no public window number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from deskhand.core import screenshot
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect


@dataclass(frozen=True, slots=True)
class CGWindow:
    id: int
    pid: int
    layer: int
    frame: Rect
    on_screen: bool
    title: str = ""
    alpha: float = 1.0


def parse(info: Mapping[str, object]) -> CGWindow | None:
    """One ``kCGWindow*`` dictionary; None when it lacks a number, an owner or bounds."""
    number, pid, bounds = info.get("kCGWindowNumber"), info.get("kCGWindowOwnerPID"), info.get("kCGWindowBounds")
    if not isinstance(number, int) or not isinstance(pid, int) or not isinstance(bounds, Mapping):
        return None
    try:
        frame = Rect(*(float(bounds[k]) for k in ("X", "Y", "Width", "Height")))
    except (KeyError, TypeError, ValueError):
        return None
    layer = info.get("kCGWindowLayer", 0)
    alpha = info.get("kCGWindowAlpha", 1.0)
    title = info.get("kCGWindowName")
    return CGWindow(
        id=number,
        pid=pid,
        layer=layer if isinstance(layer, int) else 0,
        frame=frame,
        on_screen=bool(info.get("kCGWindowIsOnscreen", False)),
        title=title if isinstance(title, str) else "",
        alpha=float(alpha) if isinstance(alpha, int | float) else 1.0,
    )


def parse_all(infos: Iterable[Mapping[str, object]]) -> list[CGWindow]:
    return [w for w in (parse(i) for i in infos) if w is not None]


def of_pid(windows: Iterable[CGWindow], pid: int) -> list[CGWindow]:
    return [w for w in windows if w.pid == pid]


def capture_window(
    windows: Sequence[CGWindow], pid: int, *, key_window_id: int | None, app_frontmost: bool
) -> CGWindow | None:
    """The window to capture: exactly the key window when known (None if it is gone), else the best score."""
    mine = of_pid(windows, pid)
    if key_window_id is not None:
        return next((w for w in mine if w.id == key_window_id), None)
    best: tuple[float, CGWindow] | None = None
    for w in mine:
        if w.layer != 0:
            continue
        score = screenshot.window_score(
            w.frame.width, w.frame.height, on_screen=w.on_screen, app_frontmost=app_frontmost
        )
        if score is not None and (best is None or score > best[0]):
            best = (score, w)
    return best[1] if best else None


def bind_at_point(windows: Sequence[CGWindow], pid: int, point: Point) -> CGWindow:
    """The front-most layer-0 on-screen window of ``pid`` that contains ``point`` (front-to-back input).

    Raises:
        NativeError: ``target_window_offscreen`` (no on-screen window) or ``point_outside_target_window``.
    """
    candidates = [w for w in of_pid(windows, pid) if w.layer == 0 and w.on_screen]
    if not candidates:
        raise NativeError("target_window_offscreen", "The target app has no on-screen window.", dispatched=False)
    for w in candidates:
        if w.frame.contains(point):
            return w
    raise NativeError("point_outside_target_window", "The point is outside the target app's windows.", dispatched=False)


def same_frame(a: Rect, b: Rect, tolerance: float = 0.5) -> bool:
    pairs = zip((a.x, a.y, a.width, a.height), (b.x, b.y, b.width, b.height), strict=True)
    return all(abs(p - q) <= tolerance for p, q in pairs)


def match_ax_window(frame: Rect | None, title: str | None, windows: Sequence[CGWindow]) -> CGWindow | None:
    """The layer-0 CG window with the AX window's frame; else the only one with its title."""
    layer0 = [w for w in windows if w.layer == 0]
    if frame is not None:
        hits = [w for w in layer0 if same_frame(w.frame, frame)]
        if len(hits) == 1 or (hits and not title):
            return hits[0]
        titled = [w for w in hits if w.title == title]
        if titled:
            return titled[0]
        if hits:
            return hits[0]
    if title:
        titled = [w for w in layer0 if w.title == title]
        if len(titled) == 1:
            return titled[0]
    return None
