"""The SDK's exact-window workflow (seed 2) on real windows, checked from the apps' own logs.

The GTK fixture (accessible) and the Tk canvas (no accessibility, no ``_NET_WM_PID``) run in the
session desktop; ``Computer.create()`` drives that desktop as a script would. The GTK fixture's
test runs on X11, sway and KWin (``displays``); the Tk tests need Tk, an X11 toolkit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from _act_support import poll
from test_canvas_task import _bound, _launch, run_cell

from deskhand import Computer
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.wayland.registry import open_compositor
from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop


@pytest.fixture
def computer(desktop: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Computer]:
    for key, value in desktop.env.items():
        monkeypatch.setenv(key, value)
    if desktop.wayland:  # a Wayland session without XWayland
        monkeypatch.delenv("DISPLAY", raising=False)
    with Computer.create() as c:
        yield c


def _key_window(computer: Computer, pid: int) -> dict[str, object]:
    def found() -> dict[str, object] | None:
        return next((w for w in computer.list_windows(pid) if w["is_key"]), None)

    return poll(found, timeout_s=10.0, what=f"a key window of pid {pid}")


def test_tk_canvas_window_is_listed_observed_and_driven_by_window_coordinates(
    launch: Any, computer: Computer, ex: LinuxExecutor
) -> None:
    app = _launch(launch, "tk")
    cx, cy, ox, oy, ppp = _bound(ex, app.pid)
    record = _key_window(computer, app.pid)
    assert record["title"] == "Deskhand Tk Canvas" and record["pid"] == app.pid  # Tk sets no _NET_WM_PID
    assert record["window_id"] == ex.key_window(ex.resolve(str(app.pid))).id  # type: ignore[union-attr]
    wid = int(record["window_id"])  # type: ignore[call-overload]

    state = computer.observe_window(app.pid, wid, include_screenshot=True)
    assert state["windowId"] == wid and f"(pid {app.pid})" in str(state["text"])
    shot = state["screenshot"]
    assert isinstance(shot, dict) and shot["data"][:3] == b"\xff\xd8\xff"

    def px(lx: int, ly: int) -> tuple[float, float]:
        return (cx + lx - ox) * ppp, (cy + ly - oy) * ppp

    window = computer.get_window(app.pid, wid)
    assert window.drag(*px(30, 40), *px(250, 200))["effect"]
    window.click(*px(120, 150))
    window.scroll(*px(120, 150), "down", pages=1)
    window.press_key("a")
    window.hotkey(["shift", "b"])

    poll(lambda: [e for e in app.events.of_type("key_press") if e["keysym"].lower() == "b"], timeout_s=10.0,
         what="shift+b in the Tk log")  # fmt: skip
    events = app.events.read()
    buttons = [(e["type"], (e["x"], e["y"])) for e in events if e["type"] in ("press", "release") and e["button"] == 1]
    assert buttons == [("press", (30, 40)), ("release", (250, 200)), ("press", (120, 150)), ("release", (120, 150))]
    wheels = [e for e in events if e["type"] == "wheel"]
    assert wheels and {(e["x"], e["y"], e["direction"]) for e in wheels} == {(120, 150, "down")}
    keys = [e for e in events if e["type"] == "key_press" and e["keysym"].lower() in ("a", "b")]
    assert [e["keysym"].lower() for e in keys] == ["a", "b"] and "shift" in keys[1]["modifiers"]


@pytest.mark.displays("x11", "sway", "kwin")
def test_gtk_window_verify_and_bad_windows_are_refused_before_dispatch(
    launch: Any, computer: Computer, desktop: Any
) -> None:
    app = launch.gtk_fixture()
    ready = app.events.wait_for("ready")
    record = _key_window(computer, app.pid)
    if desktop.wayland:  # the compositor's view of the app (a Wayland client knows no id of its window)
        assert record["window_id"] == next(v.id for v in _views(desktop) if v.pid == app.pid)
    else:
        assert record["window_id"] == ready["window_id"]  # the very X window the app says it made
    wid = int(record["window_id"])  # type: ignore[call-overload]

    # A window id that does not exist, and another pid's window id: nothing reaches any app.
    with pytest.raises(NativeError, match="does not exist") as info:
        computer.get_window(app.pid, wid + 0x100000)
    assert info.value.code == "window_not_found" and info.value.not_dispatched
    window = computer.get_window(app.pid, wid)
    with pytest.raises(NativeError, match="Observe window") as coords:
        window.click(10, 10)  # no observation of this window yet
    assert coords.value.code == "app_screenshot_required"
    assert not [e for e in app.events.read() if e["type"] in ("press", "clicked", "text")]

    # Focus the Name field through the App workflow, then act on the exact window and verify.
    state = computer.observe_window(app.pid, wid)
    entry = re.search(
        r"(g\d+:\d+) text \(settable[^\n]*\bName\b|(g\d+:\d+) [^\n]*Name[^\n]*settable", str(state["text"])
    )
    handle = next(g for g in entry.groups() if g) if entry else None
    assert handle, state["text"]
    computer.get_app(app.pid).click(handle)
    app.events.wait_for("focus", name="Name")
    result = computer.act_and_verify(app.pid, wid, lambda w: w.type_text("Ada Lovelace"), ["Ada Lovelace"])
    assert result["effect"] == "confirmed", result
    assert result["compared"]["held_before"] == [] and result["compared"]["missing"] == []  # type: ignore[index]
    assert app.events.wait_for("text", name="Name", text="Ada Lovelace")
    again = computer.verify_state(app.pid, wid, ["Ada Lovelace"], stable_samples=2)
    assert again["effect"] == "confirmed" and again["stable"] is True
    assert computer.verify_state(app.pid, wid, ["Grace Hopper"], timeout_ms=0)["effect"] == "unverifiable"

    # reconnect: a fresh service; coordinates need a new observation of the window.
    assert computer.reconnect() == {"connectionGeneration": 2}
    with pytest.raises(NativeError) as stale:
        window.click(10, 10)
    assert stale.value.code == "app_screenshot_required"
    assert any(w["window_id"] == wid for w in computer.list_windows(app.pid))


def _views(desktop: Any) -> list[Any]:
    """The windows as the compositor itself lists them (sway's IPC, KWin's scripting), on a
    connection of the test's own."""
    comp = open_compositor(desktop.env)
    try:
        return comp.views()
    finally:
        comp.close()


def test_js_cell_uses_the_cua_window_additions_on_the_tk_canvas(launch: Any, desktop: Any, ex: LinuxExecutor) -> None:
    app = _launch(launch, "tk")
    cx, cy, ox, oy, ppp = _bound(ex, app.pid)
    a, b = ((cx + 60 - ox) * ppp, (cy + 70 - oy) * ppp), ((cx + 300 - ox) * ppp, (cy + 220 - oy) * ppp)
    cell = f"""
const wins = await cua.listWindows({{pid: {app.pid}, emit: false}});
const target = {{pid: {app.pid}, windowId: wins.find((w) => w.is_key).window_id}};
let missing = null;
try {{ await cua.getWindow({{...target, windowId: target.windowId + 1048576}}); }} catch (e) {{ missing = e.code; }}
const state = await cua.observeWindow({{...target, includeScreenshot: true}});
const win = await cua.getWindow(target);
const dragged = await win.drag({{fromX: {a[0]}, fromY: {a[1]}, toX: {b[0]}, toY: {b[1]}}});
const refused = await cua.actAndVerify({{...target, act: (w) => w.hotkey({{keys: ["ctrl"]}}), expect: ["x"]}});
nodeRepl.write(JSON.stringify({{n: wins.length, missing, mode: state.mode, shot: state.screenshot.mimeType,
  effect: dragged.effect, refused: refused.effect}}));
"""
    result = run_cell(desktop.env, cell)
    assert not result.is_error, result.text
    report = json.loads(result.text.strip().splitlines()[-1])
    assert report["missing"] == "window_not_found" and report["shot"] == "image/jpeg"
    assert report["refused"] == "refused" and report["effect"]
    poll(lambda: app.events.of_type("release"), timeout_s=10.0, what="the drag's release in the Tk log")
    buttons = [(e["type"], (e["x"], e["y"])) for e in app.events.read() if e["type"] in ("press", "release")]
    assert buttons == [("press", (60, 70)), ("release", (300, 220))]


#: A Tk app with a main window and a second window that closes itself on "q"; both log their
#: button presses and keys (one JSON line each) to the file named by argv[1].
TWO_WINDOWS = r"""
import json, sys, tkinter as tk
out = open(sys.argv[1], "a", buffering=1)
def log(kind, win, e): out.write(json.dumps({"type": kind, "window": win, "key": getattr(e, "keysym", "")}) + "\n")
root = tk.Tk(className="deskhand-two"); root.title("Deskhand Main")
tk.Canvas(root, width=300, height=200).pack()
root.bind("<ButtonPress>", lambda e: log("press", "main", e)); root.bind("<KeyPress>", lambda e: log("key", "main", e))
def second():
    top = tk.Toplevel(root); top.title("Deskhand Second"); tk.Canvas(top, width=200, height=150).pack()
    top.bind("<ButtonPress>", lambda e: log("press", "second", e))
    top.bind("<KeyPress>", lambda e: (log("key", "second", e), e.keysym == "q" and top.destroy()))
    out.write(json.dumps({"type": "ready"}) + "\n")
root.after(300, second)
root.mainloop()
"""


def test_a_window_that_closes_mid_batch_gets_no_more_events_and_none_go_elsewhere(
    launch: Any, computer: Computer, tmp_path: Any
) -> None:
    log_path = tmp_path / "two.jsonl"
    app = launch(["/usr/bin/python3", "-c", TWO_WINDOWS, str(log_path)], wait_on_bus=False)

    def events() -> list[dict[str, Any]]:
        return [json.loads(line) for line in log_path.read_text().splitlines()] if log_path.exists() else []

    poll(lambda: [e for e in events() if e["type"] == "ready"], timeout_s=20.0, what="the two Tk windows")
    second = poll(
        lambda: next(
            (w for w in computer.list_windows(app.pid) if w["title"] == "Deskhand Second" and w["is_key"]), None
        ),
        timeout_s=10.0,
        what="the second window as the key window",
    )
    window = computer.get_window(app.pid, int(second["window_id"]))  # type: ignore[call-overload]
    window.observe()
    window.click(20, 20)
    window.press_key("q")  # the second window closes itself
    poll(lambda: all(w["window_id"] != second["window_id"] for w in computer.list_windows(app.pid)),
         timeout_s=10.0, what="the second window closed")  # fmt: skip
    with pytest.raises(NativeError, match="does not exist") as info:
        window.click(20, 20)
    assert info.value.not_dispatched
    with pytest.raises(NativeError, match="does not exist"):
        window.type_text("x")
    seen = [(e["type"], e["window"]) for e in events() if e["type"] in ("press", "key")]
    assert seen == [("press", "second"), ("key", "second")]  # nothing reached the main window
