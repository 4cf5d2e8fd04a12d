"""What watching costs the app: its own key handling with and without deskhand observing it.

``python -m bench observer``. One private desktop runs the GTK fixture (``tests/apps/gtk_fixture.py``,
which logs every key press and release with a monotonic ``t``). xdotool types 20 characters with
no delay; the measure is the app's own time from the first to the last key event in its log, so
nothing of deskhand's own speed is in it. Conditions, interleaved rep by rep:

* nobody listens on the accessibility bus;
* a deskhand executor has observed the app (its settle, focus and cache watches are registered);
* a single ``RegisterEvent("object:state-changed:focused")`` from a bare D-Bus connection, as the
  smallest screen-reader-like client registers.

atk-bridge installs its key snooper as soon as any client registers any event, and then asks the
registry synchronously about every key event (``NotifyListenersSync``), so the second and third
conditions cost the same: the price of an accessibility client as such, which Orca pays too.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

from bench.bench_agent import APPS, SYSTEM_PYTHON, Events, _canvas_points
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.desktop import VirtualDesktop

REPS = int(os.environ.get("DESKHAND_BENCH_REPS", "15"))
TYPED = "abcdefghijklmnopqrst"
#: Apps learn of a registration from a registry signal; give them this long before timing.
LEARN_S = 0.6
_REGISTRY = DBusAddress("/org/a11y/atspi/registry", "org.a11y.atspi.Registry", "org.a11y.atspi.Registry")


def _app_span(ev: Events, env: dict[str, str]) -> float:
    """The app's own ms from the first to the last key event of one xdotool burst."""
    time.sleep(0.25)  # an idle gap between bursts, not a synchronization
    since = ev.mark()
    subprocess.run(["xdotool", "type", "--delay", "0", TYPED], env=env, check=True)
    ev.wait(since, "key_release", len(TYPED))
    times = [e["t"] for e in ev.poll()[since:] if e["type"] in ("key_press", "key_release")]
    return (times[-1] - times[0]) * 1000


def main() -> int:
    with VirtualDesktop() as vd, tempfile.TemporaryDirectory() as tmp_s:
        log = Path(tmp_s) / "events.jsonl"
        vd.launch([SYSTEM_PYTHON, str(APPS / "gtk_fixture.py")], env={"DESKHAND_EVENT_LOG": str(log)})
        ev = Events(log)
        ready = ev.first("ready")
        pid = int(ready["pid"])
        env = {**os.environ, **vd.env}
        address = vd.env["AT_SPI_BUS_ADDRESS"]

        def executor() -> Callable[[], None]:
            ex = LinuxExecutor(display=f":{vd.display}", a11y_address=address)
            app = ex.resolve(str(pid))
            ex.get_app_state(app)
            time.sleep(LEARN_S)  # the app learns of the registrations from a registry signal
            return ex.close

        def focus_listener() -> Callable[[], None]:
            conn = open_dbus_connection(address)
            call = new_method_call(_REGISTRY, "RegisterEvent", "sass", ("object:state-changed:focused", [], ""))
            conn.send_and_get_reply(call, timeout=2.0)
            time.sleep(LEARN_S)
            return conn.close

        # the canvas takes the keys: one click there, by a short-lived executor's coordinates
        ex = LinuxExecutor(display=f":{vd.display}", a11y_address=address)
        a_root = _canvas_points(ex, pid)[0]
        ex.close()
        subprocess.run(["xdotool", "mousemove", *(str(round(v)) for v in a_root), "click", "1"], env=env, check=True)
        time.sleep(LEARN_S)  # the closed executor's registrations lapse

        conditions: dict[str, Callable[[], Callable[[], None]]] = {
            "nobody listening": lambda: lambda: None,
            "deskhand observing the app": executor,
            "one focus-event listener (screen-reader-like)": focus_listener,
        }
        spans: dict[str, list[float]] = {k: [] for k in conditions}
        for _ in range(max(1, REPS // 3)):
            for name, start in conditions.items():
                stop = start()
                try:
                    for _ in range(3):
                        spans[name].append(_app_span(ev, env))
                finally:
                    stop()
                time.sleep(LEARN_S)  # and lapse again before the next condition
    base = statistics.median(spans["nobody listening"])
    print(f"The app's own time for {len(TYPED)} typed characters (first to last key event), medians (ms):")
    print("| condition | ms | × nobody |\n|---|---|---|")
    for name, values in spans.items():
        ms = statistics.median(values)
        print(f"| {name} | {ms:.1f} | {ms / base:.1f}× |")
    return 0
