"""GIMP 2.10, a GTK 2 app: bound with the toolkit variables deskhand's desktops set (GTK 2 loads
its bridge through ``GTK_MODULES=gail:atk-bridge``); its menus, dialogs, canvas and export,
each checked from GIMP's side (its tree, its title, the pixels of the PNG it wrote).

* GTK 2 menu items never set SHOWING: an open menu is read because the display shows it
  (``atspi.popups``), and its items are clicked by handle.
* gail's button actions have no localized names: "click" is asked for by ``GetName`` (the
  "press" action alone pressed the button down and clicked nothing).
* The PNG options dialog is a plug-in's (a child process of GIMP): it is GIMP's window, and
  binding GIMP by name stays one process.

GTK 2 has no Wayland backend: the sway column is a strict xfail that deskhand's own refusal
satisfies (asked for GIMP on Wayland, it says the app needs XWayland).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps, need
from _display import X11_ONLY, launched, on_sway
from _observe import handle, state_with
from PIL import Image

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect

pytestmark = [
    pytest.mark.slow,
    pytest.mark.displays("x11", "sway", sway=on_sway(X11_ONLY.format(toolkit="GTK 2", app="GIMP 2.10"))),
]

RED = (200, 30, 30)
NAME_FIELD = r"text (?:\(focused\) )?\(settable, string\)"


def write_png(path: Path) -> None:
    Image.new("RGB", (64, 48), RED).save(path)


@pytest.fixture(scope="module")
def gimp(apps: Apps, mex: LinuxExecutor, tmp_path_factory: pytest.TempPathFactory) -> object:
    image = tmp_path_factory.mktemp("gimp") / "red.png"
    write_png(image)
    return mex.resolve(str(launched(mex, "GIMP", lambda: apps.gimp(image)).pid))


def image_window(mex: LinuxExecutor, gimp: Any) -> str:
    return state_with(mex, gimp, r"^Window: \"\*?\[\w+\] .* – GIMP\"", timeout_s=60)


def open_scale_dialog(mex: LinuxExecutor, gimp: Any) -> str:
    state = image_window(mex, gimp)
    mex.click(gimp, element=handle(state, r"(?:menu )?Image$"))
    state = state_with(mex, gimp, r"menu item Scale Image", timeout_s=10)
    mex.click(gimp, element=handle(state, r"menu item Scale Image"))
    return state_with(mex, gimp, r"^Window: \"Scale Image\"(?s:.*)push button Scale", timeout_s=20)


def export_png(mex: LinuxExecutor, gimp: Any, target: Path) -> Image.Image:
    """File > Export As by its shortcut, the path typed into the name field, and the plug-in's PNG
    dialog's Export clicked by handle; the PNG as written."""
    image_window(mex, gimp)
    mex.press_key(gimp, "ctrl+shift+e")
    state = state_with(mex, gimp, r"^Window: \"Export Image\"(?s:.*)label Name", timeout_s=20)
    mex.click(gimp, element=handle(state, NAME_FIELD))
    mex.press_key(gimp, "ctrl+a")
    mex.type_text(gimp, str(target))
    mex.press_key(gimp, "Return")
    state = state_with(mex, gimp, r"^Window: \"Export Image as PNG\"(?s:.*)push button Export", timeout_s=30)
    # the dialog is the file-png plug-in's, a child process with a window named GIMP's way: the
    # name still binds GIMP alone, and the dialog is GIMP's key window
    assert mex.resolve("gimp").pid == gimp.pid
    key = mex.key_window(gimp)
    assert key is not None and key.title == "Export Image as PNG" and key.pid != gimp.pid
    mex.click(gimp, element=handle(state, r"push button Export"))
    deadline = time.monotonic() + 30
    while not target.exists() or target.stat().st_size == 0:
        assert time.monotonic() < deadline, "no PNG was exported"
        time.sleep(0.1)  # polling the exported file with a deadline
    state_with(mex, gimp, rf"^Window: \"\*?\[{target.stem}\] \(exported\)", timeout_s=20)
    with Image.open(target) as png:
        png.load()
        return png.convert("RGB")


@pytest.mark.matrix("GIMP", "observe")
def test_gimp_binds_and_shows_its_image_window(gimp: object, mex: LinuxExecutor) -> None:
    state = state_with(mex, gimp, r"^Window: \"\[red\] \(imported\)-1\.0 .* 64x48 – GIMP\"", timeout_s=60)
    assert "menu bar" in state, state


@pytest.mark.matrix("GIMP", "menu")
def test_an_open_menu_of_gimp_is_in_the_state_and_its_item_clicks_by_handle(gimp: Any, mex: LinuxExecutor) -> None:
    state = open_scale_dialog(mex, gimp)
    assert re.search(r"spin button \(settable, string\) Value: 64", state), state
    mex.click(gimp, element=handle(state, r"push button Cancel"))
    state = image_window(mex, gimp)
    assert "Scale Image" not in state.split("\n")[1], state


@pytest.mark.matrix("GIMP", "dialog")
def test_scale_image_by_its_dialog_buttons_by_handle(gimp: Any, mex: LinuxExecutor) -> None:
    state = open_scale_dialog(mex, gimp)
    width = handle(state, r"spin button \(settable, string\) Value: 64")
    mex.set_value(gimp, width, "32")
    state = state_with(mex, gimp, r"label 32 × 24 pixels", timeout_s=10)  # the chained height follows
    done = mex.click(gimp, element=handle(state, r"push button Scale"))
    assert done.structured["route"] == "action"  # gail's "click", not its half action "press"
    state_with(mex, gimp, r"^Window: \"\*\[\w+\] .* 32x24 – GIMP\"", timeout_s=20)  # the image, in its title


@pytest.mark.matrix("GIMP", "canvas drag")
def test_a_rectangle_dragged_on_the_canvas_is_filled(gimp: Any, mex: LinuxExecutor, tmp_path: Path) -> None:
    state = image_window(mex, gimp)
    mex.click(gimp, element=_tool(state, "Rectangle Select"))
    state = state_with(mex, gimp, r"Rectangle Select Tool: .*\n\t+g\d+:\d+ toggle button Value: on", timeout_s=10)
    size = re.search(r"(\d+)x(\d+) – GIMP\"", state)
    assert size is not None, state
    width, height = int(size[1]), int(size[2])
    # The canvas is no element: its viewport starts where its scroll bars do, and a scroll bar's
    # value is the viewport's offset in image pixels (negative: the image is centred in it).
    hbar, hval = _bar_after(mex, gimp, state, "Toggle Quick Mask")
    vbar, vval = _bar_after(mex, gimp, state, "Zoom image when window size changes")
    shot = mex.transform(gimp)
    assert shot is not None
    sx, sy = shot.scales()

    def at(ix: float, iy: float) -> tuple[float, float]:  # image pixel -> screenshot pixel (100 %)
        gx, gy = hbar.x + ix - hval, vbar.y + iy - vval
        return ((gx - shot.origin_x) * sx, (gy - shot.origin_y) * sy)

    left, top, right, bottom = width // 8, height // 4, width // 2, height * 3 // 4
    mex.drag(gimp, at(left, top), at(right, bottom))
    mex.press_key(gimp, "ctrl+comma")  # Edit > Fill with FG Color (black)
    png = export_png(mex, gimp, tmp_path / "filled.png")
    assert png.size == (width, height)
    inside = ((left + right) // 2, (top + bottom) // 2)
    assert png.getpixel(inside) == (0, 0, 0), "the dragged rectangle is not filled"
    assert png.getpixel((width - 2, height // 2)) == RED and png.getpixel((1, 1)) == RED


@pytest.mark.matrix("GIMP", "export")
def test_export_as_png_through_the_plugin_dialog(gimp: Any, mex: LinuxExecutor, tmp_path: Path) -> None:
    size = re.search(r"(\d+)x(\d+) – GIMP\"", image_window(mex, gimp))
    assert size is not None
    png = export_png(mex, gimp, tmp_path / "out.png")
    assert png.size == (int(size[1]), int(size[2])) and png.getpixel((png.width - 2, 2)) == RED  # as the title said


def _tool(state: str, name: str) -> str:
    """The toggle button of a tool in GIMP's toolbox (its container is named by its tooltip)."""
    m = re.search(rf"container {re.escape(name)} Tool:.*\n\t+(g\d+:\d+) toggle button", state)
    assert m is not None, state
    return m.group(1)


def _bar_after(mex: LinuxExecutor, gimp: Any, state: str, anchor: str) -> tuple[Rect, float]:
    """The frame and value of the scroll bar on the line after the one naming ``anchor``."""
    m = re.search(rf"{re.escape(anchor)}.*\n\t+(g\d+:\d+) scroll bar \(settable, float\) (-?[\d.]+)", state)
    assert m is not None, state
    frame = mex.element(gimp, m[1]).frame
    assert frame is not None
    return frame, float(m[2])


@pytest.mark.matrix("GIMP", "without the toolkit variables")
def test_gimp_started_without_the_variables_gets_its_modules_from_the_desktops_settings(
    apps: Apps, matrix_desktop: Any, mex: LinuxExecutor, tmp_path: Path
) -> None:
    """As a plain shell starts it (no ``GTK_MODULES``): the desktop's XSETTINGS manager gives GTK 2
    its modules (``Gtk/Modules``), so GIMP is on the accessibility bus with its whole tree."""
    with _plain_gimp(apps, matrix_desktop, tmp_path, {}) as proc:
        state = _plain_state(mex, proc, "[plain]")
        assert "\nNotice: this app is not on the accessibility bus" not in state.text
        assert re.search(r"^\t*g\d+:\d+ menu bar$", state.text, re.M), state.text


@pytest.mark.matrix("GIMP", "accessibility off")
def test_gimp_with_its_bridge_off_binds_screenshot_only_with_the_fix(
    apps: Apps, matrix_desktop: Any, mex: LinuxExecutor, tmp_path: Path
) -> None:
    """GIMP with the bridge turned off (``NO_AT_BRIDGE=1``) is not on the bus: it binds
    screenshot-only, its notice naming GTK 2's exact fix."""
    with _plain_gimp(apps, matrix_desktop, tmp_path, {"NO_AT_BRIDGE": "1"}) as proc:
        state = _plain_state(mex, proc, "[plain]")
        lines = state.text.split("\n")
        assert not any(re.match(r"\t*g\d+:\d+ ", line) for line in lines), state.text
        assert state.image is not None and state.image.width > 100
        notice = next(line for line in lines if line.startswith("Notice: this app is not on the accessibility bus"))
        assert "GTK 2" in notice and "GTK_MODULES=gail:atk-bridge" in notice and "NO_AT_BRIDGE=1" in notice


@contextlib.contextmanager
def _plain_gimp(apps: Apps, desktop: Any, tmp_path: Path, extra: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """GIMP started with the desktop's display and buses but none of the accessibility variables
    (and ``extra``), as a user's shell may start it; its process."""
    image = tmp_path / "plain.png"
    write_png(image)
    env = {k: v for k, v in os.environ.items() if k not in A11Y_VARIABLES}
    env.update({k: v for k, v in desktop.env.items() if k not in A11Y_VARIABLES})
    env.update({k: v for k, v in apps.home("gimp-plain").items() if k not in A11Y_VARIABLES})
    env.update(extra)
    if "DISPLAY" not in desktop.env:  # a Wayland desktop: not the runner's own X display either
        env.pop("DISPLAY", None)
    argv = [need("gimp"), "--new-instance", "--no-data", "--no-fonts", "--no-splash", str(image)]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


#: What switches toolkit accessibility on (``deskhand.desktop._env``): left out above.
A11Y_VARIABLES = frozenset(
    {"GTK_MODULES", "GTK_A11Y", "GNOME_ACCESSIBILITY", "ACCESSIBILITY_ENABLED", "QT_ACCESSIBILITY"}
)


def _plain_state(mex: LinuxExecutor, proc: subprocess.Popen[bytes], title: str) -> Any:
    """GIMP's state once its image window (``title`` in it) is its key window. A GIMP that could
    not start (no X display) is asked for by name: deskhand's answer is raised."""
    pid = proc.pid
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            mex.resolve("GIMP")
            raise AssertionError(f"GIMP exited with {proc.returncode}")
        try:
            app = mex.resolve(str(pid))
            if mex.key_window(app) is not None:
                state = mex.get_app_state(app, disable_diff=True)
                if title in state.text.split("\n")[1]:
                    return state
        except NativeError:
            pass
        assert time.monotonic() < deadline, "GIMP never showed its image window"
        time.sleep(0.2)  # polling GIMP's windows with a deadline
