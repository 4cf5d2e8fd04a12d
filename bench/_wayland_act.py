"""The Wayland executor's actions on the GTK fixture, timed from dispatch until the app logs the
effect (its event log stamps ``time.monotonic()``, our clock), side by side with what users call.

* paste 20 characters into the Name entry: ``WaylandExecutor.paste`` (the whole transaction: the
  user's clipboard read, ours served, the user's given back) against ``wl-copy TEXT`` then ctrl+v
  from the session's long-lived keyboard (no restore: the user's clipboard is lost); ``wtype -M
  ctrl v -m ctrl`` is tried once: its keyboard is new each call and GTK pastes nothing from it;
* set the entry's value (AT-SPI), select a word in it, scroll the scroll area by half a page
  (its bar's value), turn the wheel at a point (measured on the content), and the 5-event drag on
  the canvas: deskhand only. The pointer peers users reach for on Wayland (``ydotool``,
  ``dotool``) write to ``/dev/uinput`` through a daemon, which a container has not; ``wtype`` has
  no pointer; so these rows have no peer here and say so.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from bench._poll import poll
from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.backends.linux.wayland_executor import WaylandExecutor

RUNS = 10
TEXT = "pasted on wayland 01"  # 20 characters
RECT = (100, 60, 1000, 700)


def _logged(log: Path, since: float, match: Callable[[dict[str, object]], bool]) -> float | None:
    for line in log.read_text().splitlines():
        e = json.loads(line)
        if float(e.get("t", 0)) >= since and match(e):
            return float(e["t"])
    return None


def _row(name: str, times: list[float], note: str = "") -> None:
    if not times:
        print(f"  {name:<58} no run succeeded {note}")
        return
    print(f"  {name:<58} median {statistics.median(times):7.1f} ms  (min {min(times):.1f}, max {max(times):.1f}){note}")


def _handle(text: str, pattern: str) -> str:
    found = re.search(r"(g\d+:\d+) " + pattern, text)
    if found is None:
        raise LookupError(f"{pattern!r} is not in the fixture's state")
    return found.group(1)


def _quiet(argv: list[str], env: Mapping[str, str]) -> None:
    """Run a peer as a user would; its output closed (wl-copy's server keeps it open for ever)."""
    subprocess.run(argv, env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def _until(log: Path, what: str, match: Callable[[dict[str, object]], bool], send: Callable[[], object]) -> float:
    """Milliseconds from ``send()`` until the fixture logs an event ``match`` accepts."""
    t0 = time.monotonic()
    send()
    seen = poll(lambda: _logged(log, t0, match), timeout_s=5, what=what, every_s=0.002)
    return (seen - t0) * 1000


def run(env: Mapping[str, str], app_env: Mapping[str, str], log: Path, pid: int) -> None:
    with SwayIPC(env=env) as ipc:
        view = next(v for v in ipc.views() if v.pid == pid)
        ipc.place(view.id, *RECT)
    ex = WaylandExecutor(env)
    try:
        app = ex.resolve(str(pid))
        poll(lambda: ex.views() and next(v for v in ex.views() if v.pid == pid).rect == RECT, what="the placed window")
        state = ex.get_app_state(app, disable_diff=True).text
        name = _handle(state, r"text \(settable, string\) Name")
        area = _handle(state, "scroll pane Scroll area")
        canvas = ex.element(app, _handle(state, r"\w+ Canvas")).frame
        ex.click(app, element=name)

        def clear() -> None:
            t0 = time.monotonic()
            ex.type_text(app, "x")
            ex.press_key(app, "ctrl+a BackSpace")
            poll(lambda: _logged(log, t0, lambda e: e.get("type") == "text" and e.get("text") == ""), what="empty")

        def pasted(e: dict[str, object]) -> bool:
            return e.get("type") == "text" and e.get("text") == TEXT

        print(f"paste {len(TEXT)} characters until the app logs the text")
        ours: list[float] = []
        for _ in range(RUNS):
            clear()
            ours.append(_until(log, "the pasted text", pasted, lambda: ex.paste(app, TEXT)))
        _row("deskhand paste (snapshot, serve, restore every type)", ours)
        if shutil.which("wl-copy"):
            peer: list[float] = []
            for _ in range(RUNS):
                clear()

                def wl_copy_ctrl_v() -> None:
                    _quiet(["wl-copy", TEXT], app_env)
                    ex.devices.chord(["ctrl"], "v")
                    ex.devices.flush()

                peer.append(_until(log, "the pasted text", pasted, wl_copy_ctrl_v))
            _row("wl-copy TEXT, then ctrl+v (no restore)", peer)
            if shutil.which("wtype"):
                clear()
                t0 = time.monotonic()
                _quiet(["wl-copy", TEXT], app_env)
                _quiet(["wtype", "-M", "ctrl", "v", "-m", "ctrl"], app_env)
                try:
                    poll(lambda: _logged(log, t0, pasted), timeout_s=2, what="wtype's paste")
                    print("  wtype -M ctrl v -m ctrl pasted")
                except TimeoutError:
                    print("  wtype -M ctrl v -m ctrl: nothing pasted in 2 s (a keyboard new each call)")
            subprocess.run(["wl-copy", "--clear"], env=dict(app_env), check=False)
        else:
            print("  wl-copy not installed: no paste peer")

        print("accessibility actions until the app logs them (no peer installed; module docstring)")
        values = [
            _until(log, "the value", lambda e, v=f"value {i:02d} of the bench": e.get("text") == v,
                   lambda v=f"value {i:02d} of the bench": ex.set_value(app, name, v))
            for i in range(RUNS)
        ]  # fmt: skip
        _row("deskhand setValue (EditableText, read back)", values)
        ex.set_value(app, name, "alpha beta gamma")
        selections = [
            _until(log, "the selection", lambda e, w=w: e.get("type") == "selection" and e.get("start") == w[1],
                   lambda w=w: ex.select_text(app, name, w[0]))
            for w in [("beta", 6), ("gamma", 11)] * (RUNS // 2)
        ]  # fmt: skip
        _row("deskhand selectText (Text.SetSelection, read back)", selections)

        def scrolled(y_sign: int) -> Callable[[dict[str, object]], bool]:
            return lambda e: e.get("type") == "scroll" and (float(str(e.get("y"))) > 0) == (y_sign > 0)

        print("scroll and drag until the app logs the move (no pointer peer here; module docstring)")
        bar = [
            _until(log, "the scroll", scrolled(d), lambda d=d: ex.scroll(app, direction="down" if d > 0 else "up",
                                                                          pages=0.5, element=area))
            for d in [1, -1] * (RUNS // 2)
        ]  # fmt: skip
        _row("deskhand scroll by element, half a page (scroll bar value)", bar)
        ex.get_app_state(app, disable_diff=True)
        t = ex.transforms[app.view]
        frame = ex.element(app, area).frame
        assert frame is not None and canvas is not None
        at = ((frame.x + 100 - t.origin_x) * t.pixels_per_point, (frame.y + 100 - t.origin_y) * t.pixels_per_point)
        wheel, calls = [], []
        for d in [1, -1] * (RUNS // 2):
            t0 = time.monotonic()
            wheel.append(
                _until(
                    log,
                    "the scroll",
                    scrolled(d),
                    lambda d=d: ex.scroll(app, direction="down" if d > 0 else "up", pages=0.2, point=at),
                )
            )
            calls.append((time.monotonic() - t0) * 1000)  # fmt: skip
        _row("deskhand scroll at a point, 0.2 page (wheel): first move", wheel)
        _row("  the same: the whole call (measured until the content holds still)", calls)
        a = ((canvas.x + 30 - t.origin_x) * t.pixels_per_point, (canvas.y + 30 - t.origin_y) * t.pixels_per_point)
        b = ((canvas.x + 230 - t.origin_x) * t.pixels_per_point, (canvas.y + 130 - t.origin_y) * t.pixels_per_point)
        drags = [
            _until(log, "the release", lambda e: e.get("type") == "release", lambda: ex.drag(app, a, b))
            for _ in range(RUNS)
        ]
        _row("deskhand drag, 5 events, until the release", drags)
    finally:
        ex.close()
