"""Benchmark: the state of real apps (LibreOffice Calc and Writer, Mousepad; with
``BENCH_ALL_APPS=1`` also the rest of the matrix: Chromium and Firefox on a small page,
gnome-text-editor, gnome-calculator, KCalc, Thunar, galculator): time and size of deskhand's full
state, side by side with an OSWorld-style pyatspi dump of the same app.

Run: ``.venv/bin/python -m bench realapps``. The pyatspi dump caps each node's children at 1024
and the depth at 50, as OSWorld's accessibility-tree observation does (a dump that listed Calc's
2147483647 cells would never end); its size is that of one line per node. "deskhand CPU" is
deskhand's own CPU time per state (the rest of its time is the app answering). "AT-SPI calls" are
those of one deskhand tree read (what the app answers; load does not change it). Targets (issue 11):
each state within 300 ms and 10k characters; Mousepad within 25 ms.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "realapps")]

from _apps import Apps, require_accessibility  # noqa: E402
from _office import convert  # noqa: E402
from _pages import PageServer  # noqa: E402

from bench._poll import app_showing  # noqa: E402
from deskhand.backends.linux.atspi.connection import Deadline  # noqa: E402
from deskhand.backends.linux.executor import LinuxExecutor  # noqa: E402
from deskhand.desktop import VirtualDesktop  # noqa: E402
from desktop_support import Launcher  # noqa: E402

RUNS = 10
PAGE = """<!doctype html><html><head><title>Matrix Page</title></head><body><h1>Quarterly notes</h1>
<p>The first paragraph has <a href="/other">a link</a> inside it.</p><p>A second paragraph of plain text.</p>
<table><tr><th>Fruit</th><th>Count</th></tr><tr><td>Apples</td><td>12</td></tr><tr><td>Pears</td><td>7</td></tr></table>
<form method="post" action="/submit"><label>Name <input name="who" value="Ada"></label>
<textarea name="note" rows="4" cols="40">Initial note</textarea><button type="submit">Send</button></form>
</body></html>"""

PYATSPI_DUMP = r"""
import sys, time, pyatspi
MAX_WIDTH, MAX_DEPTH = 1024, 50
def dump(a, depth, out):
    line = [a.getRoleName(), a.name or "", str(len(a.getState().getStates()))]
    try:
        e = a.queryComponent().getExtents(pyatspi.DESKTOP_COORDS); line.append(f"{e.x},{e.y},{e.width},{e.height}")
    except NotImplementedError: pass
    try:
        t = a.queryText(); line.append(t.getText(0, -1))
    except NotImplementedError: pass
    out.append("\t" * depth + " ".join(line))
    if depth >= MAX_DEPTH: return
    for i in range(min(a.childCount, MAX_WIDTH)):
        c = a.getChildAtIndex(i)
        if c is not None: dump(c, depth + 1, out)
app = next(a for a in pyatspi.Registry.getDesktop(0) if a and a.get_process_id() == int(sys.argv[1]))
times, size = [], 0
for _ in range(int(sys.argv[2])):
    out = []
    t = time.perf_counter(); dump(app, 0, out); times.append(time.perf_counter() - t)
    size = len("\n".join(out))
print(size, " ".join(map(str, times)))
"""


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(ex: LinuxExecutor, vd: VirtualDesktop, name: str, pid: int, needle: str, runs: int) -> tuple[str, ...]:
    app = app_showing(ex, pid, needle)
    sizes, times, cpu = [], [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        text = ex.get_app_state(app, disable_diff=True).text  # type: ignore[arg-type]
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        sizes.append(len(text))
    calls = ex.atspi.snapshot(ex.trees.buses[pid], Deadline(10.0)).calls
    dump_ms, dump_chars = "-", "-"
    try:
        done = subprocess.run(
            ["/usr/bin/python3", "-c", PYATSPI_DUMP, str(pid), "3"],
            env=vd.app_env(),
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        size, *samples = done.stdout.split()
        dump_ms, dump_chars = f"{median_ms([float(s) for s in samples]):.0f}", size
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        dump_ms = f"failed ({type(e).__name__})"
    return (name, f"{median_ms(times):.0f}", f"{median_ms(cpu):.0f}", str(max(sizes)), str(calls), dump_ms, dump_chars)


def the_rest(ex: LinuxExecutor, vd: VirtualDesktop, apps: Apps, launcher: Launcher, tmp: Path) -> list[tuple[str, ...]]:
    """The other apps of the matrix, each alone on the desktop (``BENCH_ALL_APPS=1``)."""
    rows: list[tuple[str, ...]] = []
    folder = tmp / "folder"
    folder.mkdir()
    for name in ("alpha-notes.txt", "beta-report.txt", "gamma-data.txt"):
        (folder / name).write_text(name)
    editor_doc = tmp / "editor.txt"
    editor_doc.write_text("alpha beta gamma\n")
    with PageServer({"/": PAGE}) as server:
        cases = [
            ("Chromium (small page)", lambda: apps.chromium(server.url("/")), "A second paragraph"),
            ("Firefox ESR (small page)", lambda: apps.firefox(server.url("/")), "A second paragraph"),
            ("gnome-text-editor", lambda: apps.gnome_text_editor(editor_doc), "alpha beta gamma"),
            ("gnome-calculator", apps.gnome_calculator, "push button = ="),
            ("KCalc", apps.kcalc, "push button ="),
            ("Thunar (3 files)", lambda: apps.thunar(folder), "3 files"),
            ("galculator", apps.galculator, "toggle button ="),
        ]
        for name, start, needle in cases:
            try:
                running = start()
            except BaseException as e:  # a missing app is skipped (pytest's skip is a BaseException)
                rows.append((name, f"skipped ({type(e).__name__})", "-", "-", "-", "-", "-"))
                continue
            try:
                rows.append(measure(ex, vd, name, running.pid, needle, RUNS))
            finally:
                launcher.close()
    return rows


def main() -> int:
    if shutil.which("soffice") is None or shutil.which("mousepad") is None:
        print("skipped: LibreOffice or Mousepad is not installed (make deps)")
        return 0
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="deskhand-bench-") as tmp_name, VirtualDesktop() as vd:
        tmp = Path(tmp_name)
        require_accessibility(vd)
        launcher = Launcher(vd, tmp)
        apps = Apps(launcher, tmp)
        ex = LinuxExecutor(display=vd.env["DISPLAY"], a11y_address=vd.env["AT_SPI_BUS_ADDRESS"])
        try:
            csv = tmp / "sheet.csv"
            csv.write_text("\n".join(f"{r},{r * 2},item {r}" for r in range(1, 41)) + "\n")
            sheet = convert(csv, "ods", tmp, tmp / "convert-profile")
            calc = apps.soffice("calc", sheet)
            rows.append(measure(ex, vd, "LibreOffice Calc (40x3 sheet)", calc.pid, "item 1", RUNS))
            launcher.close()
            txt = tmp / "letter.txt"
            txt.write_text("\n".join(f"Paragraph {i} of the benchmark letter, with some words." for i in range(20)))
            doc = convert(txt, "odt", tmp, tmp / "convert-profile")
            writer = apps.soffice("writer", doc)
            rows.append(measure(ex, vd, "LibreOffice Writer (20 paragraphs)", writer.pid, "Paragraph 0", RUNS))
            launcher.close()
            notes = tmp / "notes.txt"
            notes.write_text("milk\nbread\n")
            mousepad = apps.mousepad(notes)
            rows.append(measure(ex, vd, "Mousepad", mousepad.pid, "milk", RUNS * 3))
            launcher.close()
            if os.environ.get("BENCH_ALL_APPS") == "1":
                rows.extend(the_rest(ex, vd, apps, launcher, tmp))
        finally:
            ex.close()
            launcher.close()
    head = ("app", "deskhand state ms", "deskhand CPU ms", "chars", "AT-SPI calls", "pyatspi dump ms", "chars")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
