"""``make demo``: start the embedded desktop, launch Mousepad, show doctor, windows and a screenshot.

Run with ``python -m deskhand.demo [--app CMD] [--out DIR]``. Later issues grow this into the
MCP demo; for now it shows the foundation working end to end against a real application.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from deskhand.desktop import VirtualDesktop
from deskhand.desktop.doctor import run_doctor


@dataclass(frozen=True, slots=True)
class WindowInfo:
    window_id: int
    pid: int | None
    title: str
    geometry: tuple[int, int, int, int]


def list_windows(display_name: str) -> list[WindowInfo]:
    """Top-level client windows from the WM's ``_NET_CLIENT_LIST`` with pid, title and root geometry."""
    from Xlib import Xatom  # noqa: PLC0415 - keep `import deskhand.demo` light
    from Xlib import display as xdisplay  # noqa: PLC0415

    d = xdisplay.Display(display_name)
    try:
        root = d.screen().root
        utf8 = d.intern_atom("UTF8_STRING")
        clients = root.get_full_property(d.intern_atom("_NET_CLIENT_LIST"), Xatom.WINDOW)
        out = []
        for wid in clients.value if clients is not None else []:
            win = d.create_resource_object("window", int(wid))
            pid_prop = win.get_full_property(d.intern_atom("_NET_WM_PID"), Xatom.CARDINAL)
            name_prop = win.get_full_property(d.intern_atom("_NET_WM_NAME"), utf8)
            raw = name_prop.value if name_prop is not None else b""
            title = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
            geo = win.get_geometry()
            origin = win.translate_coords(root, 0, 0)
            out.append(
                WindowInfo(
                    int(wid),
                    int(pid_prop.value[0]) if pid_prop is not None else None,
                    title,
                    (-origin.x, -origin.y, geo.width, geo.height),
                )
            )
        return out
    finally:
        d.close()


def wait_for_window(display_name: str, pid: int, timeout_s: float) -> list[WindowInfo]:
    """Poll the client list until a window of ``pid`` is mapped; raise TimeoutError otherwise."""
    deadline = time.monotonic() + timeout_s
    while True:
        windows = list_windows(display_name)
        if any(w.pid == pid for w in windows):
            return windows
        if time.monotonic() >= deadline:
            raise TimeoutError(f"no window of pid {pid} within {timeout_s} s")
        time.sleep(0.02)


def save_screenshot(display_name: str, path: Path) -> tuple[int, int]:
    """Capture the whole screen with mss (XShm) and save it as PNG; return its size."""
    import mss  # noqa: PLC0415
    import mss.tools  # noqa: PLC0415

    with mss.MSS(display=display_name) as grabber:
        shot = grabber.grab(grabber.monitors[1])
        mss.tools.to_png(shot.rgb, shot.size, output=str(path))
        return shot.size.width, shot.size.height


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def run(app: list[str], out_dir: Path, timeout_s: float) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    with VirtualDesktop() as desktop:
        timings = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in desktop.timings.items())
        _out(f"desktop {desktop.id} on {desktop.env['DISPLAY']} started ({timings})")
        launched = desktop.launch(app, log_path=out_dir / "demo-app.log")
        t0 = time.monotonic()
        with desktop.a11y() as bus:
            found = bus.wait_for_pid(launched.pid, timeout_s=timeout_s)
        elapsed_ms = (time.monotonic() - t0) * 1000
        _out(f"{shlex.join(app)} (pid {launched.pid}) on the AT-SPI bus as {found.name!r} after {elapsed_ms:.0f} ms\n")
        windows = wait_for_window(desktop.env["DISPLAY"], launched.pid, timeout_s)
        _out("deskhand doctor")
        _out(run_doctor(desktop.app_env()).to_text())
        _out("\nwindows (_NET_CLIENT_LIST)")
        for w in windows:
            x, y, width, height = w.geometry
            _out(f"  0x{w.window_id:08x}  pid {w.pid}  {width}x{height}+{x}+{y}  {w.title!r}")
        shot = out_dir / "demo-desktop.png"
        size = save_screenshot(desktop.env["DISPLAY"], shot)
        _out(f"\nscreenshot {size[0]}x{size[1]} saved to {shot}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deskhand.demo", description=__doc__)
    parser.add_argument("--app", default="mousepad", help="command line of the app to launch (default: mousepad)")
    parser.add_argument("--out", default="out", type=Path, help="directory for the screenshot (default: out)")
    parser.add_argument("--timeout", default=20.0, type=float, help="seconds to wait for the app")
    args = parser.parse_args(argv)
    try:
        return run(shlex.split(args.app), args.out, args.timeout)
    except (TimeoutError, OSError) as exc:
        sys.stderr.write(f"demo: error: {exc}\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
