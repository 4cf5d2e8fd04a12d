"""Screenshot fit and coordinates (native-contract.md 6.2, 6.11, 7.2 NativeScreenshotPolicyTests)."""

from __future__ import annotations

import math

import pytest

from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point
from deskhand.core.screenshot import (
    JPEG_QUALITY,
    JPEG_QUALITY_PERCENT,
    FittedSize,
    ShotTransform,
    fit_scale,
    fitted_size,
    record_allowed,
    to_global,
    window_local,
    window_score,
)

SIZE_TABLE = [
    ((620, 392), (620, 392)),
    ((1398, 769), (1397, 768)),
    ((4000, 1000), (2048, 512)),
    ((1000, 4000), (512, 2048)),
    ((1000, 1000), (768, 768)),
]


@pytest.mark.parametrize(("points", "pixels"), SIZE_TABLE)
def test_native_screenshot_policy_tests_size_table(points: tuple[int, int], pixels: tuple[int, int]) -> None:
    """NativeScreenshotPolicyTests: the size table of 6.11 (the same at backing scale 1 and 2)."""
    fitted = fitted_size(*points)
    assert (fitted.width, fitted.height) == pixels


def test_pixels_per_point_is_the_fit_before_rounding() -> None:
    assert fitted_size(1398, 769) == FittedSize(1397, 768, 768 / 769)
    assert fitted_size(620, 392).pixels_per_point == 1.0
    assert fitted_size(4000, 1000).pixels_per_point == 0.512
    assert fit_scale(1000, 1000) == 0.768


def test_never_upscales_and_never_below_one_pixel() -> None:
    assert fitted_size(10, 10) == FittedSize(10, 10, 1.0)
    assert fitted_size(0.2, 0.3) == FittedSize(1, 1, 1.0)
    assert fitted_size(100000, 1) == FittedSize(2048, 1, 2048 / 100000)


def test_fractional_points_round_up() -> None:
    assert fitted_size(100.2, 50.5) == FittedSize(101, 51, 1.0)


def test_native_screenshot_policy_tests_jpeg_quality() -> None:
    """NativeScreenshotPolicyTests: quality 0.8 is 80 on the encoders' percent scale.

    The quality actually used is checked from a real capture's quantization tables in
    tests/linux/test_capture.py; the MIME type from the MCP image blocks in tests/server.
    """
    assert round(JPEG_QUALITY * 100) == JPEG_QUALITY_PERCENT


def test_window_score() -> None:
    assert window_score(1, 100, on_screen=True, app_frontmost=True) is None
    assert window_score(100, 50, on_screen=False, app_frontmost=True) == 5000
    assert window_score(100, 50, on_screen=True, app_frontmost=False) == 1_005_000
    assert window_score(100, 50, on_screen=True, app_frontmost=True) == 3_005_000


# --- the transform ------------------------------------------------------------------------------

IDENTITY = ("org.example.App", "/usr/bin/app", 1234.5)
SHOT = ShotTransform(
    origin_x=100,
    origin_y=200,
    point_width=1398,
    point_height=769,
    pixels_per_point=768 / 769,
    image_width=1397,
    image_height=768,
    window_id=42,
    identity=IDENTITY,
)


def convert(
    shot: ShotTransform | None, x: float, y: float, *, identity: object = IDENTITY, key: int | None = 42
) -> Point:
    return to_global(shot, x, y, identity=identity, key_window_id=key)


def test_to_global_uses_the_uniform_scale_and_window_origin() -> None:
    assert convert(SHOT, 0, 0) == Point(100, 200)
    point = convert(SHOT, 768, 384)
    assert point.x == pytest.approx(100 + 769)
    assert point.y == pytest.approx(200 + 384.5)


def test_legacy_shot_uses_per_axis_ratios() -> None:
    legacy = ShotTransform(10, 20, 200, 100, None, 400, 100, 42, IDENTITY)
    assert convert(legacy, 100, 50) == Point(60, 70)


def test_bounds_are_half_open() -> None:
    convert(SHOT, 1396.999, 767.999)
    with pytest.raises(NativeError) as caught:
        convert(SHOT, 1397, 0)
    assert caught.value.code == "bad_payload"
    assert caught.value.message == (
        "Coordinates (1397, 0) are outside the latest get_app_state screenshot bounds (width 1397, height 768)."
    )
    with pytest.raises(NativeError) as caught:
        convert(SHOT, -0.5, 12.25)
    assert caught.value.message == (
        "Coordinates (-0.5, 12.25) are outside the latest get_app_state screenshot bounds (width 1397, height 768)."
    )


@pytest.mark.parametrize(("x", "y"), [(math.nan, 0), (0, math.inf), (-math.inf, 1)])
def test_non_finite_coordinates_are_bad_payload(x: float, y: float) -> None:
    with pytest.raises(NativeError) as caught:
        convert(None, x, y)
    assert caught.value.code == "bad_payload"


def test_checks_run_in_the_contract_order() -> None:
    # no transform beats everything after it
    with pytest.raises(NativeError) as caught:
        convert(None, 99999, 99999, identity="other", key=7)
    assert caught.value.code == "stale_snapshot"
    assert caught.value.message == (
        "No screenshot snapshot exists for this target. Call get_app_state before using coordinates."
    )
    # identity before the window, and both drop the transform
    with pytest.raises(NativeError) as caught:
        convert(SHOT, 99999, 99999, identity="other", key=7)
    assert caught.value.code == "stale_process"
    assert caught.value.details == {"drop_transform": True}
    with pytest.raises(NativeError) as caught:
        convert(SHOT, 99999, 99999, key=7)
    assert caught.value.code == "target_window_changed"
    assert caught.value.details == {"drop_transform": True}
    assert caught.value.dispatched is False


def test_window_local_is_not_flipped() -> None:
    assert window_local(Point(150, 260), Point(100, 200)) == Point(50, 60)


GOOD = {
    "key_window_id": 42,
    "shot_window_id": 42,
    "identity_proven": True,
    "point_width": 1398.0,
    "point_height": 769.0,
    "pixels_per_point": 768 / 769,
    "image_width": 1397,
    "image_height": 768,
}


def test_record_allowed_for_a_good_shot() -> None:
    assert record_allowed(**GOOD)  # type: ignore[arg-type]
    assert record_allowed(**{**GOOD, "pixels_per_point": None})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("key_window_id", 43),
        ("key_window_id", None),
        ("shot_window_id", None),
        ("identity_proven", False),
        ("point_width", 0.0),
        ("point_height", -1.0),
        ("point_width", math.inf),
        ("point_height", math.nan),
        ("pixels_per_point", 0.0),
        ("pixels_per_point", math.nan),
        ("pixels_per_point", math.inf),
        ("image_width", 0),
        ("image_height", 0),
    ],
)
def test_record_refused(field: str, value: object) -> None:
    assert not record_allowed(**{**GOOD, field: value})  # type: ignore[arg-type]
