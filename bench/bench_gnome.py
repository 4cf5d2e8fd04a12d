"""Benchmark: the GNOME desktop (headless GNOME Shell 43) and the compositor seam on it.

* start: ``VirtualDesktop(compositor="gnome")`` to ready (session and AT-SPI buses, a private
  system bus, PipeWire, WirePlumber, GNOME Shell with deskhand's extension answering), then stop;
* windows: the extension's ``Windows`` and an activation read back;
* screenshot: one window's own pixels (the extension's PNG, decoded and cut to the frame), then
  fitted and JPEG-encoded as an observation sends it;
* input through Mutter's RemoteDesktop, each until the GTK fixture logs its effect (the log
  stamps ``time.monotonic()``, our clock): a click, keys, text committed through the input method,
  and the clipboard's snapshot.

What users would call instead: ``org.gnome.Shell.Screenshot`` answers only allow-listed callers
("ScreenshotArea is not allowed", run below), ``gnome-screenshot`` is not installed here, and
``ydotool`` is not packaged. Skipped when GNOME Shell is not installed.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable

from bench._poll import poll
from bench._wl_bench import fixture_desktop, installed, jpeg, row, start_stop, timed, until_logged
from deskhand.backends.linux.wayland.gnome.compositor import Gnome
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.desktop import VirtualDesktop

TEXT = "gnome bench 01234567"


def _centers(vd: VirtualDesktop, pid: int, patterns: list[str]) -> list[tuple[float, float]]:
    """The screen centers of the fixture's elements matching ``patterns`` (one observation)."""
    ex = WaylandExecutor(vd.env)
    try:
        app = ex.resolve(str(pid))
        text = ex.get_app_state(app, text_only=True).text
        out = []
        for pattern in patterns:
            found = re.search(r"(g\d+:\d+) " + pattern, text)
            assert found, (pattern, text)
            frame = ex.element(app, found.group(1)).frame
            assert frame is not None
            out.append((frame.center.x, frame.center.y))
        return out
    finally:
        ex.close()


def main() -> int:
    if not installed("gnome-shell", fix="apt-get install --no-install-recommends gnome-shell pipewire"):
        return 0
    start_stop("gnome", "GNOME (buses, system bus, PipeWire, GNOME Shell, extension)")
    with fixture_desktop("gnome") as (vd, app, log, tmp):
        gnome = Gnome(vd.env)
        try:
            view = poll(
                lambda: next((v for v in gnome.views() if v.pid == app.pid and v.visible), None), what="the view"
            )
            print("windows (deskhand's extension over the session bus)")
            row("views()", timed(gnome.views))
            row("focus + views() (activate, read back)", timed(lambda: (gnome.focus(view.id), gnome.views())))
            print("screenshot (the window's own pixels)")
            row(
                f"capture_view {view.rect[2]}x{view.rect[3]} (PNG, decoded, cut)",
                timed(lambda: gnome.capture_view([], view)),
            )
            row("capture_view + fit + JPEG (an observation image)", timed(lambda: jpeg(gnome.capture_view([], view))))
            d = gnome.input
            apply, name = _centers(vd, app.pid, ["push button Apply", "text \\(settable, string\\) Name"])
            print("input through RemoteDesktop, until the app logs the effect")

            def click_apply() -> None:
                d.click(*apply)
                d.flush()

            row("click Apply", until_logged(log, click_apply, "clicked", name="Apply"))
            d.click(*name)
            d.flush()

            def typed(text: str) -> Callable[[], None]:
                def send() -> None:
                    d.chord(["ctrl"], "a")
                    d.chord([], "backspace")
                    d.flush()
                    d.type_text(text)
                    d.flush()

                return send

            row(f"select all, delete, type {len(TEXT)} characters", until_logged(log, typed(TEXT), "text", text=TEXT))
            committed = "Grüße ✓ 0123456789"
            label = f"select all, delete, commit {len(committed)} characters (IM)"
            row(label, until_logged(log, typed(committed), "text", text=committed))
            d.chord(["ctrl"], "a")
            d.chord(["ctrl"], "c")  # the fixture's text is the clipboard now
            d.flush()
            clip = gnome.clipboard()
            try:
                poll(lambda: clip.snapshot() or None, timeout_s=3, what="the fixture's copy")
                row("clipboard snapshot, every type (SelectionRead)", timed(clip.snapshot))
            finally:
                clip.close(hand_off=False)
            peer = subprocess.run(
                ["gdbus", "call", "--session", "-d", "org.gnome.Shell.Screenshot", "-o", "/org/gnome/Shell/Screenshot",
                 "-m", "org.gnome.Shell.Screenshot.ScreenshotArea", "0", "0", "100", "100", "false", f"{tmp}/peer.png"],
                env={**vd.env, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=10, check=False,
            )  # fmt: skip
            print(f"  gdbus Shell.Screenshot ScreenshotArea: exit {peer.returncode}: {peer.stderr.strip()[:100]}")
        finally:
            gnome.close()
    return 0
