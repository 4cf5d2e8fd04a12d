"""Screenshot policy: fit, encoding constants, and screenshot pixels → global points.

native-contract.md 6.11 (size, JPEG, window choice) and 6.2 (the cached transform and its checks).

The fit is taken in points: ``fit = min(1, 2048/long, 768/short)``. The backing scale cancels out
(``outputScale = fit / backingScale`` and ``pixelsPerPoint = backingScale × outputScale``), so
neither the pixel size nor ``pixelsPerPoint`` depends on it. Pixel sizes are rounded up from the
exact product, so ``769 × 768/769`` is 768 and never 769 through a floating-point residue.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from deskhand.core.errors import ArgumentError, NativeError
from deskhand.core.geometry import Point

MAX_LONG_EDGE: Final = 2048
MAX_SHORT_EDGE: Final = 768
JPEG_QUALITY: Final = 0.8
#: The same quality on the 1..100 scale of libjpeg encoders (simplejpeg, Pillow).
JPEG_QUALITY_PERCENT: Final = 80
MIME_TYPE: Final = "image/jpeg"
CAPTURE_TIMEOUT_S: Final = 2.5
FALLBACK_CAPTURE_TIMEOUT_S: Final = 3.0
FALLBACK_KILL_GRACE_S: Final = 0.15
ON_SCREEN_BONUS: Final = 1_000_000
FRONTMOST_ON_SCREEN_BONUS: Final = 2_000_000

STALE_SNAPSHOT_MESSAGE: Final = (
    "No screenshot snapshot exists for this target. Call get_app_state before using coordinates."
)
STALE_PROCESS_MESSAGE: Final = "The target application changed process identity before the action."
#: Ours: the contract names the code but not the text.
TARGET_WINDOW_CHANGED_MESSAGE: Final = (
    "The target window changed since the latest get_app_state screenshot. Call get_app_state again."
)
#: Ours: the contract requires finite coordinates but gives no text.
NON_FINITE_MESSAGE: Final = "Coordinates must be finite numbers."


@dataclass(frozen=True, slots=True)
class FittedSize:
    """The image size for a window and the uniform scale taken before rounding."""

    width: int
    height: int
    pixels_per_point: float


def _exact_fit(point_width: float, point_height: float) -> Fraction:
    for size in (point_width, point_height):
        if not math.isfinite(size) or size <= 0:
            raise ArgumentError("window point sizes must be finite and > 0")
    long_edge, short_edge = Fraction(max(point_width, point_height)), Fraction(min(point_width, point_height))
    return min(Fraction(1), MAX_LONG_EDGE / long_edge, MAX_SHORT_EDGE / short_edge)


def fit_scale(point_width: float, point_height: float) -> float:
    """``min(1, 2048/max(w,h), 768/min(w,h))``; never upscales."""
    return float(_exact_fit(point_width, point_height))


def fitted_size(point_width: float, point_height: float) -> FittedSize:
    """``ceil(w × fit)`` by ``ceil(h × fit)``, each at least 1, with ``pixelsPerPoint = fit``."""
    fit = _exact_fit(point_width, point_height)
    width = max(1, math.ceil(Fraction(point_width) * fit))
    height = max(1, math.ceil(Fraction(point_height) * fit))
    return FittedSize(width, height, float(fit))


def window_score(width: float, height: float, *, on_screen: bool, app_frontmost: bool) -> float | None:
    """Score for choosing a window when AX gave no key window; None if not wider and taller than 1."""
    if not (width > 1 and height > 1):
        return None
    score = width * height
    if on_screen:
        score += ON_SCREEN_BONUS
        if app_frontmost:
            score += FRONTMOST_ON_SCREEN_BONUS
    return score


@dataclass(frozen=True, slots=True)
class ShotTransform:
    """What the latest get_app_state screenshot maps: the window frame in global points and the image."""

    origin_x: float
    origin_y: float
    point_width: float
    point_height: float
    #: The uniform scale; None for a legacy shot (per-axis image/point ratios).
    pixels_per_point: float | None
    image_width: int
    image_height: int
    window_id: int
    #: The process identity at capture time, compared by equality.
    identity: object

    def scales(self) -> tuple[float, float]:
        if self.pixels_per_point is not None:
            return self.pixels_per_point, self.pixels_per_point
        return self.image_width / self.point_width, self.image_height / self.point_height


def _finite_positive(value: float | None) -> bool:
    return value is not None and math.isfinite(value) and value > 0


def record_allowed(
    *,
    key_window_id: int | None,
    shot_window_id: int | None,
    identity_proven: bool,
    point_width: float,
    point_height: float,
    pixels_per_point: float | None,
    image_width: int,
    image_height: int,
) -> bool:
    """Whether a screenshot may be recorded as the pid's transform (6.2)."""
    return (
        shot_window_id is not None
        and key_window_id == shot_window_id
        and identity_proven
        and _finite_positive(point_width)
        and _finite_positive(point_height)
        and (pixels_per_point is None or _finite_positive(pixels_per_point))
        and image_width > 0
        and image_height > 0
    )


def format_number(value: float) -> str:
    """A coordinate as JS prints it: ``700`` rather than ``700.0``."""
    number = float(value)
    if number.is_integer() and abs(number) < 1e21:
        return str(int(number))
    return repr(number)


def out_of_bounds_message(x: float, y: float, width: int, height: int) -> str:
    return (
        f"Coordinates ({format_number(x)}, {format_number(y)}) are outside the latest get_app_state "
        f"screenshot bounds (width {width}, height {height})."
    )


def to_global(
    transform: ShotTransform | None, x: float, y: float, *, identity: object, key_window_id: int | None
) -> Point:
    """Screenshot pixels → global points, with the checks of 6.2 in order.

    On ``stale_process`` and ``target_window_changed`` the error's ``details["drop_transform"]`` is
    True: the caller must discard the cached transform.

    Raises:
        NativeError: ``bad_payload`` (non-finite or out of bounds), ``stale_snapshot``,
            ``stale_process`` or ``target_window_changed``; all before dispatch.
    """
    if not (math.isfinite(x) and math.isfinite(y)):
        raise NativeError("bad_payload", NON_FINITE_MESSAGE, dispatched=False)
    if transform is None:
        raise NativeError("stale_snapshot", STALE_SNAPSHOT_MESSAGE, dispatched=False)
    drop = {"drop_transform": True}
    if identity != transform.identity:
        raise NativeError("stale_process", STALE_PROCESS_MESSAGE, dispatched=False, details=drop)
    if key_window_id != transform.window_id:
        raise NativeError("target_window_changed", TARGET_WINDOW_CHANGED_MESSAGE, dispatched=False, details=drop)
    if not (0 <= x < transform.image_width and 0 <= y < transform.image_height):
        message = out_of_bounds_message(x, y, transform.image_width, transform.image_height)
        raise NativeError("bad_payload", message, dispatched=False)
    scale_x, scale_y = transform.scales()
    return Point(transform.origin_x + x / scale_x, transform.origin_y + y / scale_y)


def window_local(point: Point, window_origin: Point) -> Point:
    """A global point relative to the window's top-left corner (not flipped)."""
    return Point(point.x - window_origin.x, point.y - window_origin.y)
