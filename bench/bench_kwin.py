"""Benchmark: the KWin desktop (``kwin_wayland --virtual``) and the compositor seam on it.

* start: ``VirtualDesktop(compositor="kwin")`` to ready (session bus, KWin, AT-SPI), then stop;
* inventory: ``views()`` (a KWin script over D-Bus per query) and ``focus`` + read back;
* screenshot: ScreenShot2 of the output and of the fixture's window (raw pixels, then JPEG as an
  observation sends it);
* click and typing through fake input, each until the GTK fixture logs its effect (the log
  stamps ``time.monotonic()``, our clock).

What users would call instead is not here: ``spectacle`` is not installed, ``ydotool`` is not
packaged, and ``wtype`` needs ``zwp_virtual_keyboard_manager_v1``, which KWin 5.27 does not offer
(its run below says so). Skipped when KWin is not installed.
"""

from __future__ import annotations

import shutil
import subprocess

from bench._poll import poll
from bench._wl_bench import fixture_desktop, installed, jpeg, row, start_stop, timed, until_logged
from deskhand.backends.linux.wayland.kwin.compositor import KWin

TEXT = "kwin bench 012345678"[:20]


def main() -> int:
    if not installed("kwin_wayland", fix="apt-get install kwin-wayland"):
        return 0
    start_stop("kwin", "KWin (dbus+KWin+AT-SPI)")
    with fixture_desktop("kwin") as (vd, app, log, _tmp):
        env = vd.app_env()
        kwin = KWin(vd.env)
        try:
            view = poll(lambda: next((v for v in kwin.views() if v.pid == app.pid), None), what="the view")
            print("windows")
            row("views() (a KWin script over D-Bus)", timed(kwin.views))
            row("focus + views() (activate, read back)", timed(lambda: (kwin.focus(view.id), kwin.views())))
            print("screenshot")
            row("ScreenShot2 CaptureArea, output 1280x800 (raw)", timed(kwin.capture))
            row(
                f"ScreenShot2 CaptureWindow, {view.rect[2]}x{view.rect[3]} (raw)",
                timed(lambda: kwin.capture_view([], view)),
            )
            row("CaptureArea + fit + JPEG (an observation's image)", timed(lambda: jpeg(kwin.capture())))
            d = kwin.input
            x, y = view.rect[0], view.rect[1]
            print("fake input, until the app logs the effect")
            row("click Apply", until_logged(log, lambda: (d.click(x + 49, y + 28), d.flush()), "clicked", name="Apply"))
            d.click(x + 200, y + 78)  # the Name entry (tests/apps/README.md)
            d.flush()

            def typed() -> None:
                d.chord(["ctrl"], "a")
                d.chord([], "backspace")
                d.type_text(TEXT)
                d.flush()

            row(f"select all, delete, type {len(TEXT)} characters", until_logged(log, typed, "text", text=TEXT))
            if shutil.which("wtype"):
                done = subprocess.run(["wtype", "x"], env=env, capture_output=True, text=True, timeout=10, check=False)
                print(f"  wtype x: exit {done.returncode}: {(done.stderr or done.stdout).strip()[:100]}")
        finally:
            kwin.close()
    return 0
