"""The compositor seam on a real headless sway, KWin and GNOME Shell, judged from the app's side: the GTK 3
fixture's event log, its AT-SPI tree and the pixels it paints.

One pointer and one keyboard serve the whole module (``wl_devices``), as they serve a session: a
keyboard created per action loses its first key. Each burst ends with ``flush`` (GNOME queues input
and sends it as one burst there).
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any, cast

import pytest
from _wl_support import (
    OtherClient,
    WaylandLauncher,
    atspi_origin,
    clipboard_now,
    is_gnome,
    place_view,
    wait_view,
    wide_text,
)
from jeepney import HeaderFields, Message

from deskhand.backends.linux.atspi.calls import Deadline
from deskhand.backends.linux.atspi.connection import AtspiConnection
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._dataclip import DataClipboard
from deskhand.backends.linux.wayland.compositor import Compositor, Input, View, pixel
from deskhand.core.errors import BackendUnavailable, NativeError
from deskhand.desktop import VirtualDesktop
from desktop_support import POLL_S, Running

#: The fixture's window goes here (content rect), away from the origin, so that a point taken
#: from AT-SPI as if it were global would miss.
RECT = (130, 70, 1000, 720)
QUADRANTS = {  # canvas-relative centres of the four quadrants, and their colours (tests/apps/README.md)
    (100, 75): (220, 30, 30),
    (300, 75): (30, 170, 60),
    (100, 225): (30, 70, 220),
    (300, 225): (240, 200, 20),
}


def _extents(desktop: VirtualDesktop, app: Running, name: str) -> tuple[int, int, int, int]:
    """The named control's AT-SPI extents (relative to its window on Wayland), from whichever of
    the app's bus names has it (a Qt app under GNOME registers a second time, windowless, through
    GTK's platform theme)."""
    assert app.a11y is not None
    conn = AtspiConnection(desktop.env["AT_SPI_BUS_ADDRESS"])
    try:
        deadline = time.monotonic() + 5.0
        while True:
            with desktop.a11y() as bus:
                names = [a.bus_name for a in bus.apps() if a.pid == app.pid] or [app.a11y.bus_name]
            for bus_name in names:
                snap = conn.snapshot(bus_name, Deadline(3.0))
                found = [n.extents for n in snap.nodes.values() if n.name == name and n.extents and n.extents[2] > 0]
                if found and found[0] is not None:
                    return found[0]
            if time.monotonic() >= deadline:
                raise AssertionError(f"no {name!r} with extents in the tree")
            time.sleep(POLL_S)
    finally:
        conn.close()


def _global_centre(view: View, ext: tuple[int, int, int, int]) -> tuple[int, int]:
    ox, oy = atspi_origin(view)
    return ox + ext[0] + ext[2] // 2, oy + ext[1] + ext[3] // 2


def _wait_drawn_there(desktop: VirtualDesktop, app: Running, view: View, devices: Input) -> None:
    """Poll until the pointer at a point of the canvas reaches the canvas at that point: sway's IPC
    reports a window's new rect as soon as it is asked for, while the window stays where it was
    until the client has drawn at its new size (a click read from the rect too early lands on the
    old place: once, under CI's load, on the Name field instead of Apply)."""
    ext = _extents(desktop, app, "Canvas")
    deadline = time.monotonic() + 10.0
    for k in range(10_000):
        x, y = 10 + k % 7, 10
        since = time.monotonic()
        devices.move(atspi_origin(view)[0] + ext[0] + x, atspi_origin(view)[1] + ext[1] + y)
        devices.flush()
        try:
            app.events.wait_for("motion", since=since, x=x, y=y, timeout_s=0.3)
            return
        except TimeoutError:
            if time.monotonic() >= deadline:
                raise


@pytest.fixture
def gtk(wl_launch: WaylandLauncher, wl_comp: Compositor, wl_devices: Input) -> Iterator[tuple[Running, View]]:
    app = wl_launch.gtk_fixture()
    app.events.wait_for("ready")
    view = place_view(wl_comp, wait_view(wl_launch.desktop, app.pid), RECT)
    _wait_drawn_there(wl_launch.desktop, app, view, wl_devices)
    yield app, view


def test_inventory_has_pid_app_id_title_and_the_rect_it_was_given(
    gtk: tuple[Running, View], wl_comp: Compositor
) -> None:
    app, view = gtk
    assert (view.pid, view.app_id, view.title) == (app.pid, "deskhand-gtk-fixture", "Deskhand GTK Fixture")
    assert view.rect == RECT and view.floating and view.shell != "xwayland"
    wl_comp.focus(view.id)
    assert next(v for v in wl_comp.views() if v.id == view.id).focused


def test_click_at_window_rect_plus_atspi_point_presses_the_button(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_devices: Input
) -> None:
    app, view = gtk
    since = time.monotonic()
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Apply")))
    wl_devices.flush()
    app.events.wait_for("clicked", name="Apply", since=since)
    assert not wl_devices.held


def test_pointer_motion_reaches_the_canvas_at_the_exact_point(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_comp: Compositor, wl_devices: Input
) -> None:
    app, view = gtk
    ext = _extents(wl_desktop, app, "Canvas")
    since = time.monotonic()
    ox, oy = atspi_origin(view)
    wl_devices.move(ox + ext[0] + 37, oy + ext[1] + 23)
    wl_devices.flush()
    app.events.wait_for("motion", since=since, x=37, y=23)
    if wl_comp.name != "KWin":  # KWin's fake input has no discrete wheel steps, and the canvas
        wl_devices.wheel(2)  # takes no smooth scrolling (a scrolled window does: test_act_wayland)
        wl_devices.flush()
        app.events.wait_for("wheel", since=since)


def test_typing_and_chords_reach_the_entry(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_comp: Compositor, wl_devices: Input
) -> None:
    app, view = gtk
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Name")))
    wl_devices.flush()
    app.events.wait_for("focus", name="Name")
    text = wide_text(wl_comp, "Hé✓ wayland", "Hello, Wayland: 1+2=3!")
    wl_devices.type_text(text)
    wl_devices.flush()
    app.events.wait_for("text", name="Name", text=text)
    wl_devices.chord(["ctrl"], "a")
    wl_devices.type_text("Q")
    wl_devices.flush()
    app.events.wait_for("text", name="Name", text="Q")
    wl_devices.chord([], "home")
    wl_devices.type_text("A")
    wl_devices.flush()
    app.events.wait_for("text", name="Name", text="AQ")
    assert not wl_devices.held


def test_typing_on_sway_is_layout_independent_and_on_kwin_the_layout_is_read(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_comp: Compositor, wl_devices: Input
) -> None:
    """sway: deskhand's keymap gains a keysym mid-session (uploaded again); GNOME: text the layout
    lacks is committed through the shell's input method; KWin: its fake input sends keys of the
    session's layout, so text with a character the layout lacks is refused whole, before any key."""
    app, view = gtk
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Name")))
    wl_devices.flush()
    app.events.wait_for("focus", name="Name")
    wl_devices.type_text("ab")
    wl_devices.flush()
    app.events.wait_for("text", name="Name", text="ab")
    if wl_comp.name != "KWin":
        wl_devices.type_text("Ω")
        wl_devices.flush()
        app.events.wait_for("text", name="Name", text="abΩ")
    else:
        with pytest.raises(NativeError) as refused:
            wl_devices.type_text("cdΩ")
        assert refused.value.code == "unknown_key" and refused.value.dispatched is False
        assert "'Ω'" in refused.value.message and "paste" in refused.value.message
        wl_devices.type_text("c")  # nothing of the refused text was typed
        wl_devices.flush()
        app.events.wait_for("text", name="Name", text="abc")
    assert not wl_devices.held


def test_a_chord_broken_half_way_is_named_by_held_and_lifted_by_release_all(
    gtk: tuple[Running, View],
    wl_desktop: VirtualDesktop,
    wl_comp: Compositor,
    wl_devices: Input,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The key after ctrl does not go out: ctrl stays down, ``held`` names it (its key, and on
    sway the modifier state the virtual keyboard latched beside it), the canvas saw it go down,
    and ``release_all`` lifts it (the canvas sees it go up)."""
    app, view = gtk
    since = _canvas_clicked(wl_desktop, app, view, wl_devices)
    if wl_comp.name == "GNOME Shell":
        _broken_burst_on_gnome(app, wl_comp, wl_devices, monkeypatch, since)
        return
    real_key = wl_devices._key  # sway's and KWin's devices send every key through it
    sent: list[int] = []

    def broken_key(code: int, down: bool) -> None:
        sent.append(code)
        if len(sent) == 2:  # ctrl went down; the key itself does not go out
            raise OSError("the compositor went away")
        real_key(code, down)

    monkeypatch.setattr(wl_devices, "_key", broken_key)
    with pytest.raises(OSError, match="went away"):
        wl_devices.chord(["ctrl"], "a")
    monkeypatch.undo()
    held = wl_devices.held
    assert held and not held.buttons and len(held.keys) == 1, held
    assert held.modifiers == (frozenset({"ctrl"}) if wl_comp.name == "sway" else frozenset()), held
    wl_devices.flush()
    app.events.wait_for("key_press", since=since, keysym="Control_L")
    wl_devices.release_all()
    wl_devices.flush()
    app.events.wait_for("key_release", since=since, keysym="Control_L")
    assert not wl_devices.held
    assert [e["keysym"] for e in app.events.of_type("key_press", since=since)] == ["Control_L"]


def _canvas_clicked(desktop: VirtualDesktop, app: Running, view: View, devices: Input) -> float:
    """A click on the fixture's canvas, which takes the focus; returns when (monotonic) it was sent."""
    ext = _extents(desktop, app, "Canvas")
    since = time.monotonic()
    ox, oy = atspi_origin(view)
    devices.click(ox + ext[0] + 50, oy + ext[1] + 40)
    devices.flush()
    app.events.wait_for("release", since=since, button=1)
    return since


def _broken_burst_on_gnome(
    app: Running, comp: Compositor, devices: Input, monkeypatch: pytest.MonkeyPatch, since: float
) -> None:
    """GNOME sends the queued chord as one burst of D-Bus calls at ``flush``: the connection breaks
    after ctrl went out. The burst lifts what it sent before it raises (nothing is held, the canvas
    sees ctrl go up and never the 'a'), and the session's next key reaches the canvas plain."""
    conn = cast(Any, comp).bus.conn
    real_send = conn.send
    keys: list[int] = []

    def broken_send(msg: Message, serial: int | None = None) -> None:
        if msg.header.fields.get(HeaderFields.member) == "NotifyKeyboardKeysym":
            keys.append(int(msg.body[0]))
            if len(keys) == 2:  # ctrl went down; the key itself does not go out
                raise OSError("the compositor went away")
        real_send(msg, serial=serial)

    monkeypatch.setattr(conn, "send", broken_send)
    devices.chord(["ctrl"], "a")
    with pytest.raises(BackendUnavailable, match="went away"):
        devices.flush()
    monkeypatch.undo()
    assert not devices.held
    app.events.wait_for("key_release", since=since, keysym="Control_L")
    devices.chord([], "b")
    devices.flush()
    plain = app.events.wait_for("key_press", since=since, keysym="b")
    assert plain["modifiers"] == [] and plain["state"] == 0, plain
    assert [e["keysym"] for e in app.events.of_type("key_press", since=since)] == ["Control_L", "b"]
    assert not devices.held


def test_a_key_gnome_holds_unknown_to_deskhand_fails_one_burst_and_the_next_opens_the_session_again(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_comp: Compositor, wl_devices: Input
) -> None:
    """ctrl pressed on the RemoteDesktop session behind deskhand's back (as a lost lift would leave
    it): the marker key after the next burst misses the shell's grab, so that burst is
    ``input_failed``; the burst after it waits for that marker, opens the session again (Mutter
    lifts ctrl with the old one) and reaches the canvas with no modifier down."""
    if wl_comp.name != "GNOME Shell":
        pytest.skip("only GNOME ends a burst with a marker key (sway and KWin send each key as asked)")
    app, view = gtk
    since = _canvas_clicked(wl_desktop, app, view, wl_devices)
    remote = cast(Any, wl_devices).remote
    remote.bus.calls([remote.key(0xFFE3, True)])  # Control_L, not tracked
    app.events.wait_for("key_press", since=since, keysym="Control_L")
    wl_devices.chord([], "b")
    with pytest.raises(NativeError) as failed:
        wl_devices.flush()
    assert failed.value.code == "input_failed" and failed.value.dispatched is True
    wl_devices.chord([], "c")
    wl_devices.flush()
    assert cast(Any, wl_devices).remote is not remote
    app.events.wait_for("key_release", since=since, keysym="Control_L")
    plain = app.events.wait_for("key_press", since=since, keysym="c")
    assert plain["modifiers"] == [] and plain["state"] == 0, plain
    assert not wl_devices.held


def test_region_capture_shows_the_canvas_quadrants(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_comp: Compositor
) -> None:
    app, view = gtk
    ext = _extents(wl_desktop, app, "Canvas")
    x, y = atspi_origin(view)[0] + ext[0], atspi_origin(view)[1] + ext[1]
    frame = wl_comp.capture((x, y, ext[2], ext[3]))
    assert (frame.width, frame.height, frame.x, frame.y) == (ext[2], ext[3], x, y)
    assert {pixel(frame, x + dx, y + dy): rgb for (dx, dy), rgb in QUADRANTS.items()} == {
        rgb: rgb for rgb in QUADRANTS.values()
    }
    whole = wl_comp.capture()
    assert (whole.width, whole.height) == (1280, 800)
    assert pixel(whole, x + 100, y + 75) == (220, 30, 30)


def test_a_covered_window_is_refused_on_sway_and_captured_by_itself_on_kwin_and_gnome(
    gtk: tuple[Running, View], wl_desktop: VirtualDesktop, wl_launch: WaylandLauncher, wl_comp: Compositor
) -> None:
    """wlroots has no per-window capture: a covered window is refused, never answered with what
    covers it. KWin and GNOME render a window by itself: the covered canvas shows its own quadrants."""
    app, view = gtk
    ext = _extents(wl_desktop, app, "Canvas")
    other = wl_launch.gtk_fixture()
    other.events.wait_for("ready")
    top = place_view(wl_comp, wait_view(wl_launch.desktop, other.pid), (RECT[0] + 50, RECT[1] + 50, 600, 400))
    views = wl_comp.views()
    covered = next(v for v in views if v.id == view.id)
    if wl_comp.name == "sway":
        with pytest.raises(NativeError) as refused:
            wl_comp.capture_view(views, covered)
        assert refused.value.code == "capture_failed" and refused.value.dispatched is False
        assert f"pid {other.pid}" in refused.value.message
    else:
        frame = wl_comp.capture_view(views, covered)
        assert (frame.width, frame.height, frame.x, frame.y) == (RECT[2], RECT[3], RECT[0], RECT[1])
        x, y = atspi_origin(covered)[0] + ext[0], atspi_origin(covered)[1] + ext[1]
        assert {pixel(frame, x + dx, y + dy) for dx, dy in QUADRANTS} == set(QUADRANTS.values())
    frame = wl_comp.capture_view(views, next(v for v in views if v.id == top.id))
    assert (frame.width, frame.height) == top.rect[2:]


@pytest.fixture
def other_client(wl_desktop: VirtualDesktop) -> Iterator[OtherClient]:
    other = OtherClient(wl_desktop)
    try:
        yield other
    finally:
        other.close()


def test_clipboard_reads_a_gtk_selection_and_serves_our_own(
    gtk: tuple[Running, View],
    wl_desktop: VirtualDesktop,
    wl_comp: Compositor,
    other_client: OtherClient,
    wl_devices: Input,
) -> None:
    app, view = gtk
    clipboard = other_client
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Name")))
    wl_devices.flush()
    app.events.wait_for("focus", name="Name")
    copied = wide_text(wl_comp, "copied ✓", "copied, ok!")
    wl_devices.type_text(copied)
    wl_devices.flush()
    app.events.wait_for("text", name="Name", text=copied)
    wl_devices.chord(["ctrl"], "a")
    wl_devices.chord(["ctrl"], "c")
    wl_devices.flush()
    deadline = time.monotonic() + 5.0
    while "text/plain;charset=utf-8" not in clipboard.types():
        assert time.monotonic() < deadline, f"GTK did not take the clipboard: {clipboard.types()}"
        time.sleep(POLL_S)
    saved = clipboard.read_all()
    assert saved["text/plain;charset=utf-8"] == copied.encode() and len(saved) >= 2

    clipboard.set({"text/plain;charset=utf-8": "ours ✓".encode()})
    wl_devices.chord(["ctrl"], "a")
    wl_devices.chord(["ctrl"], "v")
    wl_devices.flush()
    assert clipboard.serve(lambda: bool(clipboard.sent), 5.0), "GTK never asked for our selection"
    app.events.wait_for("text", name="Name", text="ours ✓")
    if shutil.which("wl-paste") and not is_gnome(wl_desktop):  # another client reads it too (data control)
        with subprocess.Popen(["wl-paste", "-n"], stdout=subprocess.PIPE, env=wl_desktop.app_env()) as paste:
            assert clipboard.serve(lambda: paste.poll() is not None, 5.0)
            assert paste.stdout is not None and paste.stdout.read() == "ours ✓".encode()
    clipboard.clear()


def test_qt_app_runs_native_and_takes_clicks_and_typing(
    wl_launch: WaylandLauncher, wl_desktop: VirtualDesktop, wl_devices: Input, wl_comp: Compositor
) -> None:
    app = wl_launch.qt_fixture()
    app.events.wait_for("ready")
    view = place_view(wl_comp, wait_view(wl_desktop, app.pid), RECT)
    assert view.shell != "xwayland"  # QT_QPA_PLATFORM=wayland: no XWayland
    _wait_drawn_there(wl_desktop, app, view, wl_devices)
    since = time.monotonic()
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Apply")))
    wl_devices.flush()
    app.events.wait_for("clicked", name="Apply", since=since)
    wl_devices.click(*_global_centre(view, _extents(wl_desktop, app, "Name")))
    wl_devices.flush()
    app.events.wait_for("focus", name="Name", since=since)
    text = wide_text(wl_comp, "Qt ✓ wayland", "Qt (wayland) #1")
    wl_devices.type_text(text)
    wl_devices.flush()
    app.events.wait_for("text", name="Name", text=text)
    wl_devices.chord(["ctrl"], "a")
    wl_devices.type_text("x")
    wl_devices.flush()
    app.events.wait_for("text", name="Name", text="x")


def test_our_own_large_selection_reads_back_whole(wl_desktop: VirtualDesktop) -> None:
    big = bytes(range(256)) * 1200  # 300 kB: more than a pipe holds
    if is_gnome(wl_desktop):  # no data control: one RemoteDesktop session owns it, another reads it
        owner = OtherClient(wl_desktop)
        try:
            owner.set({"application/octet-stream": big})
            read: dict[str, bytes] = {}
            reader = threading.Thread(target=lambda: read.update(clipboard_now(wl_desktop)), daemon=True)
            reader.start()
            assert owner.serve(lambda: not reader.is_alive(), 10.0)
            assert read == {"application/octet-stream": big} and owner.sent == ["application/octet-stream"]
        finally:
            owner.close()
        return
    with Client(wl_desktop.env) as client:  # served and read on one connection
        _large_selection_on_one_connection(DataClipboard(client), big)


def _large_selection_on_one_connection(clipboard: DataClipboard, big: bytes) -> None:
    clipboard.set({"application/octet-stream": big})
    assert clipboard.types() == ["application/octet-stream"]
    assert clipboard.read("application/octet-stream") == big
    clipboard.clear()
    assert clipboard.types() == []
