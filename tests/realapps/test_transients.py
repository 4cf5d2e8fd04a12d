"""An app's transient windows belong to its state and its screenshot: Mousepad's Save As file
chooser and its open File menu, LibreOffice Writer's open File menu, and a ``<select>`` list in
Chromium and Firefox ESR.

Screenshots are checked by their pixels: inside the popup's bounds (from the elements' frames)
the open capture differs from the closed one, and far from it they agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import simplejpeg
from _apps import Apps
from _display import MatrixExecutor, frame_of, transform_of
from _launch import chromium_app, firefox_app, mousepad_app, placed, state_with, wait_for, writer_app

from deskhand.backends.base import AppState, RunningApp
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.geometry import Rect

pytestmark = pytest.mark.desktop

#: A pixel "differs" when its channels differ by more than this in sum (JPEG noise is far less).
DIFFERS = 60


@pytest.fixture(scope="module")
def mousepad(apps: Apps, mex: MatrixExecutor) -> Iterator[tuple[MatrixExecutor, RunningApp]]:
    with mousepad_app(apps, mex) as got:
        yield got


def handle_of(text: str, pattern: str) -> str:
    m = re.search(r"(g\d+:\d+) " + pattern, text)
    assert m is not None, f"{pattern!r} not in:\n{text}"
    return m.group(1)


def bounds(ex: MatrixExecutor, app: RunningApp, handles: list[str]) -> Rect:
    """The union of the elements' frames (global points)."""
    frames = [f for h in handles if (f := frame_of(ex, app, h)) is not None]
    assert frames, handles
    x0, y0 = min(f.x for f in frames), min(f.y for f in frames)
    x1, y1 = max(f.x + f.width for f in frames), max(f.y + f.height for f in frames)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def pixels(ex: MatrixExecutor, app: RunningApp, state: AppState) -> tuple[Any, Any]:
    """The screenshot's pixels and the transform it was taken with."""
    assert state.image is not None
    t = transform_of(ex, app)
    assert t is not None
    return simplejpeg.decode_jpeg(state.image.data), t


def changed(a: Any, b: Any, t: Any, r: Rect) -> float:
    """The fraction of pixels inside ``r`` (global points) that differ between ``a`` and ``b``."""
    s = t.pixels_per_point
    x0, y0 = int((r.x - t.origin_x) * s), int((r.y - t.origin_y) * s)
    x1, y1 = int((r.x + r.width - t.origin_x) * s), int((r.y + r.height - t.origin_y) * s)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, a.shape[1]), min(y1, a.shape[0])
    assert x1 > x0 and y1 > y0, (r, t)
    d = np.abs(a[y0:y1, x0:x1].astype(int) - b[y0:y1, x0:x1].astype(int)).sum(axis=2)
    return float((d > DIFFERS).mean())


@pytest.mark.matrix("Mousepad", "dialogs")
@pytest.mark.displays("x11", "sway", "kwin", "gnome")
def test_a_save_as_dialog_is_in_the_state(mousepad: tuple[MatrixExecutor, RunningApp]) -> None:
    ex, app = mousepad
    ex.get_app_state(app)  # the baseline the next state is compared with
    ex.press_key(app, "ctrl+shift+s")
    state = state_with(ex, app, r"file chooser Save As", full=False)
    assert not state.startswith("There has been no change"), state
    full = ex.get_app_state(app, disable_diff=True).text
    assert re.search(r"^g\d+:\d+ file chooser Save As$", full, re.M), full
    assert re.search(r"^\t+g\d+:\d+ label Name:?", full, re.M), full  # the dialog's own (GTK on Wayland: no colon)
    ex.press_key(app, "Escape")
    wait_for(lambda: "file chooser" not in ex.get_app_state(app, disable_diff=True).text, "the dialog closed")


@pytest.mark.matrix("Mousepad", "menus")
@pytest.mark.displays("x11", "sway", "kwin", "gnome")
def test_an_open_menu_is_in_the_state_and_the_screenshot(mousepad: tuple[MatrixExecutor, RunningApp]) -> None:
    ex, app = mousepad
    closed = ex.get_app_state(app, disable_diff=True)
    assert "menu item Save As" not in closed.text, closed.text
    before, t0 = pixels(ex, app, closed)
    ex.click(app, element=handle_of(closed.text, r"File, Description: File menu"))
    text = state_with(ex, app, r"menu item Quit")
    assert re.search(r"^g\d+:\d+ menu File$", text, re.M), text  # the open menu, a window of its own
    assert re.search(r"^\tg\d+:\d+ menu item Save As\.\.\.", text, re.M), text
    opened = ex.get_app_state(app, disable_diff=True)
    after, t1 = pixels(ex, app, opened)
    assert (t0.origin_x, t0.origin_y, t0.pixels_per_point) == (t1.origin_x, t1.origin_y, t1.pixels_per_point)
    menu = bounds(ex, app, [handle_of(opened.text, r"menu item New,"), handle_of(opened.text, r"menu item Quit")])
    assert changed(before, after, t1, menu) > 0.05, menu
    right = Rect(menu.x + menu.width + 40, menu.y + menu.height / 2, 100, menu.height / 2)
    assert changed(before, after, t1, right) < 0.01, right
    assert "covers part of this window" not in opened.text  # its own menu does not "cover" it
    ex.press_key(app, "Escape")
    wait_for(lambda: "menu item Quit" not in ex.get_app_state(app, disable_diff=True).text, "the menu closed")


def test_a_menu_of_a_window_partly_off_screen_is_composed_into_the_screenshot(
    mousepad: tuple[LinuxExecutor, RunningApp],
) -> None:
    """Part of the window is off screen, so the capture is the window's own pixmap: the open
    menu (a window of its own) is composed onto it from its pixmap."""
    ex, app = mousepad
    key = ex.key_window(app)
    assert key is not None
    screen = ex.x.display.screen()
    x = screen.width_in_pixels - int(key.frame.width) + 200
    with ex.x.lock:
        ex.x.window(key.id).configure(x=x, y=100)
        ex.x.display.sync()
    wait_for(
        lambda: (k := ex.key_window(app)) is not None and k.frame.x + k.frame.width > screen.width_in_pixels, "moved"
    )
    closed = ex.get_app_state(app, disable_diff=True)
    before, _t = pixels(ex, app, closed)
    ex.click(app, element=handle_of(closed.text, r"File, Description: File menu"))
    state_with(ex, app, r"menu item Quit")
    opened = ex.get_app_state(app, disable_diff=True)
    after, t = pixels(ex, app, opened)
    menu = bounds(ex, app, [handle_of(opened.text, r"menu item New,"), handle_of(opened.text, r"menu item Quit")])
    assert changed(before, after, t, menu) > 0.05, menu
    right = Rect(menu.x + menu.width + 40, menu.y + menu.height / 2, 100, menu.height / 2)
    assert changed(before, after, t, right) < 0.01, right
    ex.press_key(app, "Escape")
    wait_for(lambda: "menu item Quit" not in ex.get_app_state(app, disable_diff=True).text, "the menu closed")


SELECT_PAGE = {
    "/select": (
        "<!doctype html><title>Fruit Order</title><body style='margin:40px'>"
        "<label>Fruit <select><option>Apple</option><option selected>Banana</option>"
        "<option>Cherry</option></select></label></body>"
    ),
}


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_a_select_list_is_in_the_state_and_the_screenshot(browser: str, apps: Apps, mex: LinuxExecutor) -> None:
    start = chromium_app if browser == "chromium" else firefox_app
    with start(apps, mex, SELECT_PAGE, "/select") as (ex, app, _pages):
        shot, combo = placed(ex, app, r"combo box Fruit")
        before, _t = pixels(ex, app, shot)
        ex.click(app, element=combo)
        text = state_with(ex, app, r"menu item Cherry")
        assert re.search(r"combo box (\(expanded\) )?Fruit, Value: Banana", text), text
        opened = ex.get_app_state(app, disable_diff=True)
        after, t = pixels(ex, app, opened)
        popup = bounds(
            ex, app, [handle_of(opened.text, r"menu item Apple"), handle_of(opened.text, r"menu item Cherry")]
        )
        assert changed(before, after, t, popup) > 0.05, popup
        below = Rect(popup.x, popup.y + popup.height + 150, popup.width, 100)
        assert changed(before, after, t, below) < 0.01, below
        ex.press_key(app, "Escape")


@pytest.mark.matrix("LibreOffice Writer", "menus")
def test_an_open_writer_menu_is_in_the_state_and_the_screenshot(apps: Apps, mex: LinuxExecutor) -> None:
    with writer_app(apps, mex) as (ex, app):
        closed = ex.get_app_state(app, disable_diff=True)
        assert "menu item Save As" not in closed.text
        before, _t = pixels(ex, app, closed)
        ex.click(app, element=handle_of(closed.text, r"File\b"))
        text = state_with(ex, app, r"menu item Save As\.\.\.")
        assert re.search(r"^g\d+:\d+ menu File$", text, re.M), text
        opened = ex.get_app_state(app, disable_diff=True)
        after, t = pixels(ex, app, opened)
        items = [handle_of(opened.text, r"menu item Open\.\.\."), handle_of(opened.text, r"menu item Save As\.\.\.")]
        menu = bounds(ex, app, items)
        assert changed(before, after, t, menu) > 0.05, menu
        ex.press_key(app, "Escape")
