"""The screenshot fit + JPEG: Pillow's route (the default install) against OpenCV's (deskhand[fast]).

Both must produce a JPEG of exactly the fitted size whose pixels are the source's, resized: a
four-colour test card keeps its quadrant colours, and the two routes agree pixel for pixel within
JPEG and filter noise.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from deskhand.backends.linux import _capture
from deskhand.backends.linux._xshm import Pixels

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


@pytest.mark.parametrize(("size", "fit"), [((400, 300), (280, 210)), ((120, 90), (120, 90))])
def test_pillow_route_fits_and_keeps_the_colours(size: tuple[int, int], fit: tuple[int, int]) -> None:
    image = decode(_capture.encode_pillow(card(*size), *fit))
    assert image.size == fit
    for (qx, qy), colour in QUADRANTS.items():
        got = image.getpixel((int((qx + 0.5) * fit[0] / 2), int((qy + 0.5) * fit[1] / 2)))
        assert max(abs(a - b) for a, b in zip(got, colour, strict=True)) <= 12, (qx, qy, got)


def test_both_routes_agree() -> None:
    if _capture._fast_encode is None:
        pytest.skip("deskhand[fast] (OpenCV, NumPy, simplejpeg) is not installed")
    pixels = card(400, 300)
    a = decode(_capture.encode_pillow(pixels, 280, 210))
    b = decode(_capture._fast_encode(pixels, 280, 210))
    assert a.size == b.size == (280, 210)
    # away from the quadrant edges (where the two filters differ by design) they agree closely
    for x, y in [(30, 30), (250, 30), (30, 180), (250, 180), (140, 50), (60, 150)]:
        pa, pb = a.getpixel((x, y)), b.getpixel((x, y))
        assert max(abs(p - q) for p, q in zip(pa, pb, strict=True)) <= 10, (x, y, pa, pb)
