"""The screenshot fit + JPEG: pixman + libjpeg-turbo through ctypes (the main route), Pillow (the
fallback), and OpenCV + simplejpeg (what deskhand used before, installed for the tests).

Every route must produce a JPEG of exactly the fitted size whose pixels are the source's, resized:
a four-colour test card keeps its quadrant colours (so BGRX is read as BGRX), and the routes agree
pixel for pixel within JPEG and filter noise away from the quadrant edges.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from deskhand.backends.linux import imaging
from deskhand.backends.linux.x11 import capture
from deskhand.backends.linux.x11.shm import Pixels

QUADRANTS = {(0, 0): (220, 30, 30), (1, 0): (30, 200, 40), (0, 1): (20, 40, 210), (1, 1): (240, 240, 240)}


def card(width: int, height: int) -> Pixels:
    """BGRX rows: four solid quadrants (RGB colours in QUADRANTS), as X hands them over."""
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            r, g, b = QUADRANTS[(x * 2 // width, y * 2 // height)]
            row += bytes((b, g, r, 0))
        rows.append(bytes(row))
    return Pixels(b"".join(rows), width, height)


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "JPEG"
    return image.convert("RGB")


def _opencv(pixels: Pixels, width: int, height: int) -> bytes:
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    simplejpeg = pytest.importorskip("simplejpeg")
    array = np.frombuffer(pixels.data, np.uint8).reshape(pixels.height, pixels.width, 4)
    if (pixels.width, pixels.height) != (width, height):
        array = cv2.resize(array, (width, height), interpolation=cv2.INTER_LINEAR)
    return bytes(
        simplejpeg.encode_jpeg(np.ascontiguousarray(array), quality=80, colorspace="BGRX", colorsubsampling="420")
    )


ROUTES = {"native": capture.encode, "pillow": capture.encode_pillow, "opencv": _opencv}


def test_the_native_route_is_available_here() -> None:
    assert imaging.unavailable_reason() is None


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize(
    ("size", "fit"), [((400, 300), (280, 210)), ((120, 90), (120, 90)), ((1922, 1105), (1336, 768))]
)
def test_each_route_fits_and_keeps_the_colours(route: str, size: tuple[int, int], fit: tuple[int, int]) -> None:
    image = decode(ROUTES[route](card(*size), *fit))
    assert image.size == fit
    for (qx, qy), colour in QUADRANTS.items():
        got = image.getpixel((int((qx + 0.5) * fit[0] / 2), int((qy + 0.5) * fit[1] / 2)))
        assert max(abs(a - b) for a, b in zip(got, colour, strict=True)) <= 12, (qx, qy, got)


@pytest.mark.parametrize("other", ["pillow", "opencv"])
def test_the_routes_agree(other: str) -> None:
    pixels = card(400, 300)
    a = decode(capture.encode(pixels, 280, 210))
    b = decode(ROUTES[other](pixels, 280, 210))
    assert a.size == b.size == (280, 210)
    for x, y in [(30, 30), (250, 30), (30, 180), (250, 180), (140, 50), (60, 150)]:
        pa, pb = a.getpixel((x, y)), b.getpixel((x, y))
        assert max(abs(p - q) for p, q in zip(pa, pb, strict=True)) <= 10, (x, y, pa, pb)


def test_short_pixel_data_is_refused() -> None:
    with pytest.raises(ValueError, match="bytes for"):
        imaging.scale_bgrx(b"\0" * 10, 4, 4, 2, 2)
    with pytest.raises(ValueError, match="bytes for"):
        imaging.encode_jpeg(b"\0" * 10, 4, 4, quality=80)
