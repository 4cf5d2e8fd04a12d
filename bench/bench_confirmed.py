"""Confirmed actions per app: the time of a click, a type and a paste until their effect is seen.

Run with ``python -m bench.bench_confirmed`` (or ``make bench``). On a private desktop it starts
Mousepad, KCalc and Chromium (each skipped when not installed) and times, ``RUNS`` times each:

* type: ``type_text`` until it returns with its outcome (the actor reads the field back);
* paste: ``paste`` until it returns (the transaction waits for the read and the target's signals);
* click: a click by handle until the app's own accessibility tree shows its effect (KCalc's
  display shows the digit; Chromium's field is focused).

Prints the median and the worst time in milliseconds and the outcome's effect and evidence kinds,
so the confirmation route of each action per app is on record.
"""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench._poll import poll
from deskhand.backends.base import ActionResult, RunningApp
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.desktop import VirtualDesktop

RUNS = 5
A11Y_ENV = {
    "GTK_MODULES": "gail:atk-bridge",
    "GNOME_ACCESSIBILITY": "1",
    "QT_ACCESSIBILITY": "1",
    "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
    "ACCESSIBILITY_ENABLED": "1",
    "GSETTINGS_BACKEND": "memory",
}
CHROMIUM_FLAGS = (
    "--no-sandbox", "--force-renderer-accessibility", "--disable-gpu", "--no-first-run",
    "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--password-store=basic", "--window-size=900,700",
)  # fmt: skip
FORM = "<!doctype html><title>form</title><input id=a autofocus size=40><textarea id=b></textarea>"


def _state(ex: LinuxExecutor, app: RunningApp, *, fresh: bool = False) -> str:
    """The app's tree as text; ``fresh``: read again, not from the observation cache (a poll
    after an action: the cache may hold what was read before the app changed)."""
    if fresh:
        ex.mark_mutation(app)
    return ex.get_app_state(app, disable_diff=True).text


def _titled(vd: VirtualDesktop, pid: int, title: str) -> bool:
    """A window of ``pid`` whose title holds ``title`` (read through X: an app asked on the
    accessibility bus during its start may leave parts out of its tree for good)."""
    from Xlib import display as xdisplay  # noqa: PLC0415

    d = xdisplay.Display(vd.env["DISPLAY"])
    try:
        clients = d.screen().root.get_full_property(d.intern_atom("_NET_CLIENT_LIST"), 0)
        for wid in clients.value if clients else ():
            win = d.create_resource_object("window", wid)
            got = win.get_full_property(d.intern_atom("_NET_WM_PID"), 0)
            name = win.get_full_property(d.intern_atom("_NET_WM_NAME"), 0)
            if got and got.value[0] == pid and name and title in name.value.decode(errors="replace"):
                return True
        return False
    finally:
        d.close()


def _start(vd: VirtualDesktop, ex: LinuxExecutor, argv: list[str], tmp: Path, ready: str, title: str) -> RunningApp:
    home = tmp / Path(argv[0]).name
    for sub in (".config", ".cache", ".local"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    env = {
        **A11Y_ENV,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    proc = vd.launch(argv, env=env, log_path=home / "app.log")
    poll(lambda: _titled(vd, proc.pid, title), 90.0, f"a window titled {title!r}", every_s=0.02)

    def up() -> RunningApp | None:
        try:
            app = ex.resolve(str(proc.pid))
            return app if ex.key_window(app) and ready in _state(ex, app) else None
        except Exception:
            return None

    return poll(up, 90.0, f"{ready!r} in the tree", every_s=0.02)


def _route(got: ActionResult) -> str:
    out = got.outcome
    if out is None:
        return f"no outcome ({got.structured.get('route', '?')})"
    kinds = ",".join(sorted({e.kind for e in out.evidence})) or "-"
    return f"{out.effect} via {out.route} [{kinds}]"


def _report(app: str, action: str, times: list[float], route: str) -> None:
    print(f"{app:10} {action:6} median {statistics.median(times):7.1f} ms  worst {max(times):7.1f} ms  {route}")


def _time(do: Callable[[], ActionResult], settle: Callable[[], object] | None = None) -> tuple[float, ActionResult]:
    t0 = time.monotonic()
    got = do()
    if settle is not None:
        poll(settle, 10.0, "the effect in the app's tree", every_s=0.02)
    return (time.monotonic() - t0) * 1000, got


def _mousepad(vd: VirtualDesktop, ex: LinuxExecutor, tmp: Path) -> None:
    app = _start(vd, ex, ["mousepad", "--disable-server"], tmp, "text", "Mousepad")
    for name, do in (("type", lambda: ex.type_text(app, "hello ")), ("paste", lambda: ex.paste(app, "pasted "))):
        runs = [_time(do) for _ in range(RUNS)]
        _report("Mousepad", name, [t for t, _ in runs], _route(runs[-1][1]))


def _kcalc(vd: VirtualDesktop, ex: LinuxExecutor, tmp: Path) -> None:
    app = _start(vd, ex, ["kcalc"], tmp, "menu bar", "KCalc")
    times, got = [], None
    for _ in range(RUNS):
        text = _state(ex, app)
        before = _display(text)
        found = re.search(r"(g\d+:\d+) push button 7\b", text)
        assert found is not None
        seven = found.group(1)

        def changed(b: str | None = before) -> bool:
            return _display(_state(ex, app, fresh=True)) != b

        t, got = _time(lambda h=seven: ex.click(app, element=h), changed)
        times.append(t)
    assert got is not None
    _report("KCalc", "click", times, _route(got) + " (display read back)")
    runs = [_time(lambda: ex.type_text(app, "12")) for _ in range(RUNS)]
    _report("KCalc", "type", [t for t, _ in runs], _route(runs[-1][1]))


def _display(text: str) -> str | None:
    m = re.search(r"frame ([^,\n]*), Description: Result Display", text)
    return m.group(1) if m else None


def _chromium(vd: VirtualDesktop, ex: LinuxExecutor, tmp: Path) -> None:
    binary = shutil.which("chromium")
    assert binary is not None
    page = tmp / "form.html"
    page.write_text(FORM)
    argv = [binary, *CHROMIUM_FLAGS, f"--user-data-dir={tmp / 'profile'}", page.as_uri()]
    app = _start(vd, ex, argv, tmp, "document web", "form")
    times, got = [], None
    for i in range(RUNS):
        text = _state(ex, app)
        fields = re.findall(r"(g\d+:\d+) entry\b", text[text.index("document web") :])
        target = fields[(i + 1) % 2]

        def focused(t: str = target) -> bool:
            return f"focused UI element is {t} " in _state(ex, app, fresh=True)

        t, got = _time(lambda t=target: ex.click(app, element=t), focused)
        times.append(t)
    assert got is not None
    _report("Chromium", "click", times, _route(got) + " (focus read back)")
    for name, do in (("type", lambda: ex.type_text(app, "hello ")), ("paste", lambda: ex.paste(app, "pasted "))):
        runs = [_time(do) for _ in range(RUNS)]
        _report("Chromium", name, [t for t, _ in runs], _route(runs[-1][1]))


def main() -> int:
    vd = VirtualDesktop()
    vd.start()
    ex = LinuxExecutor(display=vd.env["DISPLAY"], a11y_address=vd.env["AT_SPI_BUS_ADDRESS"])
    failed = 0
    try:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            for binary, bench in (("kcalc", _kcalc), ("mousepad", _mousepad), ("chromium", _chromium)):
                if shutil.which(binary) is None:
                    print(f"{binary}: not installed, skipped")
                    continue
                try:
                    bench(vd, ex, Path(tmp))
                except TimeoutError as err:
                    print(f"{binary}: {err}; no time recorded")
                    failed = 1
    finally:
        ex.close()
        vd.stop()
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
