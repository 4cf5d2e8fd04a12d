"""The Wayland seam on a real headless sway, judged from the app's side: the GTK 3 fixture's event
log, its AT-SPI tree and the pixels it paints.

One virtual pointer and one virtual keyboard serve the whole module (``wl_devices``), as they
serve a session: a keyboard created per action loses its first key.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest
from _wl_support import WaylandLauncher, place_view, wait_view

from deskhand.backends.linux.atspi.calls import Deadline
from deskhand.backends.linux.atspi.connection import AtspiConnection
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._dataclip import DataClipboard
from deskhand.backends.linux.wayland.compositor import View, pixel
from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.backends.linux.wayland.wlroots.devices import Devices
from deskhand.backends.linux.wayland.wlroots.screencopy import capture, capture_view
from deskhand.core.errors import NativeError
from deskhand.desktop import VirtualDesktop
from desktop_support import POLL_S, Running

#: The fixture's window goes here (content rect), away from the origin, so that a point taken
#: from AT-SPI as if it were global would miss.
RECT = (130, 70, 1000, 700)
QUADRANTS = {  # canvas-relative centres of the four quadrants, and their colours (tests/apps/README.md)
    (100, 75): (220, 30, 30),
    (300, 75): (30, 170, 60),
    (100, 225): (30, 70, 220),
    (300, 225): (240, 200, 20),
}


def _extents(desktop: VirtualDesktop, app: Running, name: str) -> tuple[int, int, int, int]:
    """The named control's AT-SPI extents (relative to its window on Wayland)."""
    assert app.a11y is not None
    conn = AtspiConnection(desktop.env["AT_SPI_BUS_ADDRESS"])
    try:
        deadline = time.monotonic() + 5.0
        while True:
            snap = conn.snapshot(app.a11y.bus_name, Deadline(3.0))
            found = [n.extents for n in snap.nodes.values() if n.name == name and n.extents and n.extents[2] > 0]
            if found and found[0] is not None:
                return found[0]
            if time.monotonic() >= deadline:
                raise AssertionError(f"no {name!r} with extents in the tree")
            time.sleep(POLL_S)
    finally:
        conn.close()


def _global_centre(view: View, ext: tuple[int, int, int, int]) -> tuple[int, int]:
    return view.rect[0] + ext[0] + ext[2] // 2, view.rect[1] + ext[1] + ext[3] // 2


@pytest.fixture
def gtk(wl_launch: WaylandLauncher, ipc: SwayIPC) -> Iterator[tuple[Running, View]]:
    app = wl_launch.gtk_fixture()
    app.events.wait_for("ready")
    view = place_view(ipc, wait_view(wl_launch.desktop, app.pid), RECT)
    yield app, view


def test_inventory_has_pid_app_id_title_and_the_rect_sway_was_told(gtk: tuple[Running, View], ipc: SwayIPC) -> None:
    app, view = gtk
    assert (view.pid, view.app_id, view.title) == (app.pid, "deskhand-gtk-fixture", "Deskhand GTK Fixture")
    assert view.rect == RECT and view.floating and view.shell == "xdg_shell"
    ipc.focus(view.id)
    assert next(v for v in ipc.views() if v.id == view.id).focused


def test_click_at_window_rect_plus_atspi_point_presses_the_button(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_devices: Devices
) -> None:
    app, view = gtk
    since = time.monotonic()
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Apply")))
    wl_devices.flush()
    app.events.wait_for("clicked", name="Apply", since=since)
    assert not wl_devices.buttons


def test_pointer_motion_reaches_the_canvas_at_the_exact_point(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_devices: Devices
) -> None:
    app, view = gtk
    ext = _extents(wl_desktop, app, "Canvas")
    since = time.monotonic()
    wl_devices.move(view.rect[0] + ext[0] + 37, view.rect[1] + ext[1] + 23)
    wl_devices.flush()
    app.events.wait_for("motion", since=since, x=37, y=23)
    wl_devices.wheel(2)
    wl_devices.flush()
    app.events.wait_for("wheel", since=since)


def test_typing_is_layout_independent_and_chords_reach_the_entry(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_devices: Devices
) -> None:
    app, view = gtk
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Name")))
    app.events.wait_for("focus", name="Name")
    wl_devices.type_text("Hé✓ wayland")
    app.events.wait_for("text", name="Name", text="Hé✓ wayland")
    wl_devices.chord(["ctrl"], "a")
    wl_devices.type_text("Ω")  # a keysym the keymap gains now: the map is uploaded again mid-session
    app.events.wait_for("text", name="Name", text="Ω")
    wl_devices.chord([], "home")
    wl_devices.type_text("A")
    app.events.wait_for("text", name="Name", text="AΩ")
    assert not wl_devices.keys and wl_devices.mods == 0


def test_region_capture_shows_the_canvas_quadrants(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_client: Client
) -> None:
    app, view = gtk
    ext = _extents(wl_desktop, app, "Canvas")
    x, y = view.rect[0] + ext[0], view.rect[1] + ext[1]
    frame = capture(wl_client, (x, y, ext[2], ext[3]))
    assert (frame.width, frame.height, frame.x, frame.y) == (ext[2], ext[3], x, y)
    assert {pixel(frame, x + dx, y + dy): rgb for (dx, dy), rgb in QUADRANTS.items()} == {
        rgb: rgb for rgb in QUADRANTS.values()
    }
    whole = capture(wl_client)
    assert (whole.width, whole.height) == (1280, 800)
    assert pixel(whole, x + 100, y + 75) == (220, 30, 30)


def test_capture_of_a_covered_window_is_refused_and_the_top_one_is_captured(
    gtk: tuple[Running, View], wl_launch: WaylandLauncher, wl_client: Client, ipc: SwayIPC
) -> None:
    _app, view = gtk
    other = wl_launch.gtk_fixture()
    other.events.wait_for("ready")
    top = place_view(ipc, wait_view(wl_launch.desktop, other.pid), (RECT[0] + 200, RECT[1] + 100, 600, 400))
    views = ipc.views()
    with pytest.raises(NativeError) as refused:
        capture_view(wl_client, views, next(v for v in views if v.id == view.id))
    assert refused.value.code == "capture_failed" and refused.value.dispatched is False
    assert f"pid {other.pid}" in refused.value.message
    frame = capture_view(wl_client, views, next(v for v in views if v.id == top.id))
    assert (frame.width, frame.height) == (600, 400)


def test_clipboard_reads_a_gtk_selection_and_serves_our_own(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_client: Client, wl_devices: Devices
) -> None:
    app, view = gtk
    clipboard = DataClipboard(wl_client)
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Name")))
    app.events.wait_for("focus", name="Name")
    wl_devices.type_text("copied ✓")
    app.events.wait_for("text", name="Name", text="copied ✓")
    wl_devices.chord(["ctrl"], "a")
    wl_devices.chord(["ctrl"], "c")
    wl_devices.flush()
    deadline = time.monotonic() + 5.0
    while "text/plain;charset=utf-8" not in clipboard.types():
        assert time.monotonic() < deadline, f"GTK did not take the clipboard: {clipboard.types()}"
        time.sleep(POLL_S)
    assert clipboard.read("text/plain;charset=utf-8") == "copied ✓".encode()
    saved = clipboard.read_all()
    assert saved["text/plain;charset=utf-8"] == "copied ✓".encode() and len(saved) >= 2

    clipboard.set({"text/plain;charset=utf-8": "ours ✓".encode()})
    wl_devices.chord(["ctrl"], "a")
    wl_devices.chord(["ctrl"], "v")
    assert clipboard.serve(lambda: bool(clipboard.sent), 5.0), "GTK never asked for our selection"
    app.events.wait_for("text", name="Name", text="ours ✓")
    if shutil.which("wl-paste"):  # another client reads it too
        with subprocess.Popen(["wl-paste", "-n"], stdout=subprocess.PIPE, env=wl_desktop.app_env()) as paste:
            assert clipboard.serve(lambda: paste.poll() is not None, 5.0)
            assert paste.stdout is not None and paste.stdout.read() == "ours ✓".encode()
    clipboard.clear()


def test_qt_app_runs_native_and_takes_clicks_and_typing(
    wl_launch: WaylandLauncher, wl_desktop: VirtualDesktop, wl_devices: Devices, ipc: SwayIPC
) -> None:
    app = wl_launch.qt_fixture()
    app.events.wait_for("ready")
    view = place_view(ipc, wait_view(wl_desktop, app.pid), RECT)
    assert view.shell == "xdg_shell"  # QT_QPA_PLATFORM=wayland: no XWayland
    since = time.monotonic()
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Apply")))
    app.events.wait_for("clicked", name="Apply", since=since)
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Name")))
    app.events.wait_for("focus", name="Name", since=since)
    wl_devices.type_text("Qt ✓ wayland")
    app.events.wait_for("text", name="Name", text="Qt ✓ wayland")
    wl_devices.chord(["ctrl"], "a")
    wl_devices.type_text("x")
    app.events.wait_for("text", name="Name", text="x")


def test_our_own_large_selection_reads_back_whole(wl_client: Client) -> None:
    clipboard = DataClipboard(wl_client)
    big = bytes(range(256)) * 1200  # 300 kB: more than a pipe holds, served and read on one connection
    clipboard.set({"application/octet-stream": big})
    assert clipboard.types() == ["application/octet-stream"]
    assert clipboard.read("application/octet-stream") == big
    clipboard.clear()
    assert clipboard.types() == []
