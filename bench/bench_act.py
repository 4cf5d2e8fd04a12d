"""Acting speed: a 5-event drag (deskhand vs xdotool per action vs pyautogui) and a paste into Mousepad.

Run with ``python -m bench.bench_act`` (or ``make bench``). Each drag is timed from the call to the
moment the last event (the release) appears in the GTK fixture's own event log; the paste from the
call to the confirmed insertion (the transaction returns after the app read the clipboard and the
text element changed). Prints medians and the ratios against deskhand.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench._poll import app_showing, poll
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.desktop import VirtualDesktop

APPS = Path(__file__).resolve().parents[1] / "tests" / "apps"
RUNS = 30
SLOW_RUNS = 5


def _releases(log: Path) -> int:
    try:
        return sum(1 for line in log.read_text().splitlines() if '"release"' in line)
    except FileNotFoundError:
        return 0


def _wait(cond: Callable[[], bool], timeout_s: float = 10.0) -> float:
    """When ``cond`` held (checked again at once: the time is the measurement)."""
    return poll(lambda: cond() and time.monotonic(), timeout_s, "the event in the app's log", every_s=0)


def _time_drag(log: Path, do: Callable[[], object]) -> float:
    n = _releases(log)
    t0 = time.monotonic()
    do()
    return (_wait(lambda: _releases(log) > n) - t0) * 1000


def _canvas_origin(ex: LinuxExecutor, pid: int) -> tuple[float, float]:
    from deskhand.backends.linux.atspi.connection import Deadline  # noqa: PLC0415
    from deskhand.backends.linux.atspi.element import A11y, Ref  # noqa: PLC0415

    buses = ex.atspi.apps(Deadline(2.0))
    bus = next(b for b, p in ex.atspi.pids(buses, Deadline(2.0)).items() if p == pid)
    node = next(n for n in ex.atspi.snapshot(bus, Deadline(3.0)).nodes.values() if n.name == "Canvas")
    ext = A11y(ex.atspi).extents(Ref(bus, node.path))
    assert ext is not None
    return float(ext[0]), float(ext[1])


def main() -> int:
    results: dict[str, float] = {}
    with VirtualDesktop() as vd, tempfile.TemporaryDirectory() as tmp:
        env = {"DESKHAND_EVENT_LOG": str(Path(tmp) / "events.jsonl")}
        log = Path(env["DESKHAND_EVENT_LOG"])
        vd.launch(["/usr/bin/python3", str(APPS / "gtk_fixture.py")], env=env)
        _wait(lambda: log.exists() and '"ready"' in log.read_text())
        ex = LinuxExecutor(display=f":{vd.display}", a11y_address=vd.env["AT_SPI_BUS_ADDRESS"])
        pid = json.loads(next(x for x in log.read_text().splitlines() if '"ready"' in x))["pid"]
        app = ex.resolve(str(pid))
        ex.get_app_state(app)
        t = ex.transform(app)
        assert t is not None
        gx, gy = _canvas_origin(ex, pid)
        a_g, b_g = (gx + 40, gy + 40), (gx + 300, gy + 200)
        a = (a_g[0] - t.origin_x, a_g[1] - t.origin_y)
        b = (b_g[0] - t.origin_x, b_g[1] - t.origin_y)
        ex.drag(app, a, b)  # warm up
        results["deskhand drag"] = statistics.median(_time_drag(log, lambda: ex.drag(app, a, b)) for _ in range(RUNS))
        xenv = {**os.environ, **vd.env}
        ax, ay, bx, by = (str(round(v)) for v in (*a_g, *b_g))
        mx, my = str(round((a_g[0] + b_g[0]) / 2)), str(round((a_g[1] + b_g[1]) / 2))
        xdo = [
            ["mousemove", ax, ay],
            ["mousedown", "1"],
            ["mousemove", mx, my],
            ["mousemove", bx, by],
            ["mouseup", "1"],
        ]

        def xdotool_drag() -> None:
            for args in xdo:
                subprocess.run(["xdotool", *args], env=xenv, check=True)

        results["xdotool per action"] = statistics.median(_time_drag(log, xdotool_drag) for _ in range(RUNS // 3))
        os.environ.update(vd.env)
        import pyautogui  # noqa: PLC0415 -- needs DISPLAY at import time

        def pag_drag() -> None:
            pyautogui.moveTo(a_g[0], a_g[1])
            pyautogui.mouseDown()
            pyautogui.moveTo((a_g[0] + b_g[0]) / 2, (a_g[1] + b_g[1]) / 2)
            pyautogui.moveTo(b_g[0], b_g[1])
            pyautogui.mouseUp()

        results["pyautogui default"] = statistics.median(_time_drag(log, pag_drag) for _ in range(SLOW_RUNS))
        pyautogui.PAUSE = 0
        results["pyautogui PAUSE=0"] = statistics.median(_time_drag(log, pag_drag) for _ in range(RUNS))

        # Paste into Mousepad: from the call to the confirmed insertion.
        # Private settings: otherwise Mousepad may open with its "restore the last session?" dialog.
        dirs = {k: Path(tmp) / k.lower() for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")}
        mp_env = {"GSETTINGS_BACKEND": "memory", **{k: str(v) for k, v in dirs.items()}}
        mp = vd.launch(["mousepad", "--disable-server"], env=mp_env)
        mpapp = app_showing(ex, mp.pid, "", 15.0)
        times = []
        for i in range(10):
            t0 = time.monotonic()
            try:
                result = ex.paste(mpapp, f"pasted {i} ✓\n", "text")
            except Exception as e:
                print(f"paste failed: {e}")
                break
            elapsed = (time.monotonic() - t0) * 1000
            # Confirmed: Mousepad read the clipboard and its document's text changed (AT-SPI).
            if result.structured["clipboard_consumed"] and result.structured["ax_effect_observed"]:
                times.append(elapsed)
        if times:
            results["paste into mousepad"] = statistics.median(times)
        ex.close()
    base = results["deskhand drag"]
    for name, ms in results.items():
        ratio = "" if name.startswith("paste") else f"  ({ms / base:.1f}x deskhand)"
        print(f"{name:24s} median {ms:8.2f} ms{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
