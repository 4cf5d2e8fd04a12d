"""Benchmark: deskhand's full observation vs a pyatspi walk (as OSWorld does) vs ImageMagick import.

Run: ``.venv/bin/python -m bench.bench_observe`` (or ``python bench/bench_observe.py``). Prints medians
in milliseconds and the ratios, all measured in one run on the same apps inside a private desktop.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench._poll import app_showing, poll
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.x11 import windows
from deskhand.backends.linux.x11.capture import encode, encode_pillow
from deskhand.core import screenshot
from deskhand.desktop import VirtualDesktop

ROOT = Path(__file__).resolve().parents[1]
RUNS = 15

# A pyatspi walk of the app's whole tree (role, name, states, extents, children), the way
# OSWorld's accessibility-tree observation does it; it times itself to leave out start-up.
PYATSPI_WALK = r"""
import sys, time, pyatspi
def walk(a):
    a.getRoleName(); a.name; a.getState().getStates()
    try: a.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    except NotImplementedError: pass
    for c in a: walk(c)
app = next(a for a in pyatspi.Registry.getDesktop(0) if a and a.get_process_id() == int(sys.argv[1]))
out = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); walk(app); out.append(time.perf_counter() - t)
print(" ".join(map(str, out)))
"""


def _opencv_encode(pixels, width: int, height: int) -> bytes:
    """The fit + JPEG deskhand used before (OpenCV's resize, simplejpeg), for comparison."""
    import cv2  # noqa: PLC0415 - only for the comparison row
    import numpy as np  # noqa: PLC0415
    import simplejpeg  # noqa: PLC0415

    array = np.frombuffer(pixels.data, np.uint8).reshape(pixels.height, pixels.width, 4)
    array = cv2.resize(array, (width, height), interpolation=cv2.INTER_LINEAR)
    return simplejpeg.encode_jpeg(np.ascontiguousarray(array), quality=80, colorspace="BGRX", colorsubsampling="420")


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(fn, runs: int = RUNS) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> int:
    with VirtualDesktop() as vd:
        env = vd.app_env()
        gtk = vd.launch(["/usr/bin/python3", str(ROOT / "tests/apps/gtk_fixture.py")])
        ex = LinuxExecutor(display=vd.env["DISPLAY"], a11y_address=vd.env["AT_SPI_BUS_ADDRESS"])
        try:
            app = app_showing(ex, gtk.pid, "Apply", 20.0)
            ours = timed(lambda: ex.get_app_state(app, disable_diff=True))
            walk = subprocess.run(
                ["/usr/bin/python3", "-c", PYATSPI_WALK, str(gtk.pid), str(RUNS)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            pyatspi = [float(v) for v in walk.stdout.split()]
            win = windows.key_window(ex.x, gtk.pid)
            subprocess.run(["xdotool", "windowsize", str(win.id), "1920", "1080"], env=env, check=True)
            resized = lambda: (w := windows.key_window(ex.x, gtk.pid)) and w.client.width == 1920 and w  # noqa: E731
            win = poll(resized, 10.0, "the window 1920 wide", every_s=0.02)

            def capture() -> None:
                cap = ex.shots.grabber.grab(win)
                fitted = screenshot.fitted_size(cap.frame.width, cap.frame.height)
                encode(cap.pixels, fitted.width, fitted.height)

            shot = timed(capture)
            cap = ex.shots.grabber.grab(win)
            fit = screenshot.fitted_size(cap.frame.width, cap.frame.height)
            fit_default = timed(lambda: encode(cap.pixels, fit.width, fit.height))
            fit_opencv = timed(lambda: _opencv_encode(cap.pixels, fit.width, fit.height))
            fit_pillow = timed(lambda: encode_pillow(cap.pixels, fit.width, fit.height))
            fitted = screenshot.fitted_size(win.frame.width, win.frame.height)
            magick = timed(
                lambda: subprocess.run(
                    [
                        "import",
                        "-silent",
                        "-window",
                        hex(win.frame_id),
                        "-resize",
                        f"{fitted.width}x{fitted.height}!",
                        "-quality",
                        "80",
                        "jpeg:-",
                    ],
                    env=env,
                    capture_output=True,
                    check=True,
                ),
                runs=5,
            )
        finally:
            ex.close()
    rows = [
        ("deskhand full state (text+screenshot), GTK fixture", median_ms(ours)),
        ("pyatspi walk of the same tree (system python)", median_ms(pyatspi)),
        (f"deskhand capture+fit+JPEG {win.frame.width:g}x{win.frame.height:g}", median_ms(shot)),
        ("ImageMagick import + resize + JPEG", median_ms(magick)),
        ("fit+JPEG, deskhand (pixman + libjpeg-turbo)", median_ms(fit_default)),
        ("fit+JPEG, OpenCV + simplejpeg (the route before)", median_ms(fit_opencv)),
        ("fit+JPEG, Pillow (the fallback)", median_ms(fit_pillow)),
    ]
    for name, ms in rows:
        print(f"{name:60s} {ms:8.1f} ms")
    print(f"ratio pyatspi / deskhand state: {rows[1][1] / rows[0][1]:.1f}x")
    print(f"ratio import / deskhand capture: {rows[3][1] / rows[2][1]:.1f}x")
    print(f"ratio deskhand / OpenCV fit+JPEG: {rows[4][1] / rows[5][1]:.2f}x")
    print(f"ratio Pillow / OpenCV fit+JPEG: {rows[6][1] / rows[5][1]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
