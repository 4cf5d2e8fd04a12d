"""The Wayland seam's pure parts: wire marshalling, the keymap deskhand writes, sway's tree reading
and the covered-window refusal (the rest is tested on a real sway in ``tests/wayland``)."""

from __future__ import annotations

import socket
import struct
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from deskhand.backends.linux.wayland import _keymap, _wire
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._doctor import qt_check
from deskhand.backends.linux.wayland._xkb import KeyTable
from deskhand.backends.linux.wayland.compositor import View
from deskhand.backends.linux.wayland.registry import compositor_name, open_compositor
from deskhand.backends.linux.wayland.sway import ipc as _ipc
from deskhand.backends.linux.wayland.wlroots.screencopy import capture_view
from deskhand.core.errors import BackendUnavailable, NativeError
from deskhand.desktop.compositors import kind


@pytest.mark.parametrize(
    ("kind", "value", "raw"),
    [
        ("u", 7, b"\x07\0\0\0"),
        ("i", -2, b"\xfe\xff\xff\xff"),
        ("f", 1.5, struct.pack("<i", 384)),
        ("s", "abc", b"\x04\0\0\0abc\0"),
        ("s", "abcd", b"\x05\0\0\0abcd\0\0\0\0"),
        ("s", None, b"\0\0\0\0"),
        ("a", b"\x01\x02", b"\x02\0\0\0\x01\x02\0\0"),
    ],
)
def test_arguments_pack_to_32_bit_words_and_back(kind: str, value: Any, raw: bytes) -> None:
    assert _wire._pack(kind, value) == raw
    assert _wire._unpack(kind, raw, 0) == (value, len(raw))


def test_bind_puts_the_new_id_after_interface_and_version(tmp_path: Path) -> None:
    path = str(tmp_path / "wayland-test")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(1)
        conn = _wire.Connection(path)
        peer, _ = server.accept()
        with peer:
            registry = conn.display.create("get_registry")
            seat = registry.create("bind", 5, "wl_seat", 5, new=("wl_seat", 5))
            data = peer.recv(4096)
        conn.close()
    get_registry = struct.pack("<III", 1, 12 << 16 | 1, registry.id)
    bind = struct.pack("<II", registry.id, 32 << 16 | 0) + struct.pack("<I", 5) + _wire._pack("s", "wl_seat")
    bind += struct.pack("<II", 5, seat.id)
    assert data == get_registry + bind
    assert (registry.id, seat.id, seat.interface.name, seat.version) == (2, 3, "wl_seat", 5)


def test_keymap_has_the_base_keys_and_grows_one_keycode_per_new_keysym() -> None:
    km = _keymap.Keymap()
    assert all(k in km.codes for k in _keymap.BASE)
    serial = km.serial
    assert km.ensure([ord("a"), 0xFF50]) is False and km.serial == serial  # on the map already
    check = _keymap.char_keysym("✓")
    assert check == 0x01002713 and _keymap.char_keysym("é") == 0xE9 and _keymap.char_keysym("\n") == 0xFF0D
    assert km.ensure([check, check]) is True and km.serial == serial + 1
    assert km.evdev(check) == km.codes[check] - 8
    text = km.text()
    assert f"key <K{km.codes[check]}> {{ [ 0x01002713 ] }};" in text
    assert f"modifier_map Control {{ <K{km.codes[0xFFE3]}> }};" in text
    assert text.count("key <K") == len(set(km.codes.values())) and max(km.codes.values()) <= _keymap.LAST_KEYCODE


def test_a_lowercase_letter_has_its_capital_on_the_shift_level_and_other_keys_one_level() -> None:
    """Ctrl+Shift+S reaches GTK 3 as the capital with Shift consumed, as on any layout (with one
    level Mousepad ignored ctrl+shift+s); a capital or a shifted symbol is typed with Shift on
    its US key, where a keyboard has it (evdev 31 is S, 10 is 9)."""
    text = _keymap.Keymap().text()
    km = _keymap.Keymap()
    assert km.evdev(0x73) == km.evdev(0x53) == 31 and km.evdev(0x28) == 10 and km.evdev(0xFF08) == 14
    assert f'key <K{km.codes[0x73]}> {{ type = "ALPHABETIC", [ 0x00000073, 0x00000053 ] }};' in text
    # shift+Tab is ISO_Left_Tab, as on X11 and every layout
    assert f'key <K{km.codes[0xFF09]}> {{ type = "TWO_LEVEL", [ 0x0000ff09, 0x0000fe20 ] }};' in text
    assert f'key <K{km.codes[0x39]}> {{ type = "TWO_LEVEL", [ 0x00000039, 0x00000028 ] }};' in text
    assert f"key <K{km.codes[0x20]}> {{ [ 0x00000020 ] }};" in text
    assert {0x53, 0x28, 0x7E} <= km.shifted and not {0x73, 0x39, 0x20} & km.shifted


def test_a_new_keysym_avoids_the_codes_clients_read_by_position() -> None:
    """Chromium on Wayland dropped characters on the codes of right Ctrl, Num Lock, keypad Enter,
    SysRq and no key: a keysym of deskhand's takes them only when nothing else is free."""
    km = _keymap.Keymap()
    km.ensure([0x01000000 | (0x4E00 + i) for i in range(40)])
    assert not {km.evdev(k) for k in km.codes if k > 0x01000000} & {54, 69, 84, 96, 97, 99}


def test_a_full_keymap_starts_over_from_the_base_keys() -> None:
    km = _keymap.Keymap()
    first = [0x01000000 | (0x4E00 + i) for i in range(_keymap._ROOM)]
    km.ensure(first)
    assert len(set(km.codes.values())) == _keymap.LAST_KEYCODE - _keymap.FIRST_KEYCODE + 1
    late = 0x01000000 | 0x9FA5
    assert km.ensure([late]) is True
    assert late in km.codes and first[0] not in km.codes and all(k in km.codes for k in _keymap.BASE)
    with pytest.raises(ValueError, match="do not fit"):
        km.ensure([0x01000000 | (0x3400 + i) for i in range(300)])


def _node(con_id: int, pid: int | None, rect: tuple[int, int, int, int], **extra: object) -> dict[str, object]:
    x, y, w, h = rect
    return {"id": con_id, "pid": pid, "type": "con", "shell": "xdg_shell", "name": f"w{con_id}",
            "app_id": f"app{con_id}", "rect": {"x": x, "y": y, "width": w, "height": h},
            "window_rect": {"x": 0, "y": 0, "width": w, "height": h}, "visible": True, **extra}  # fmt: skip


def test_views_come_from_tiled_and_floating_nodes_in_stacking_order() -> None:
    tiled = _node(4, 40, (0, 0, 10, 10))
    low = {**_node(5, 50, (5, 5, 20, 20)), "type": "floating_con"}
    top = {**_node(6, 60, (100, 0, 20, 20)), "type": "floating_con", "focused": True}
    tree = {"type": "root", "nodes": [{"type": "workspace", "nodes": [tiled], "floating_nodes": [low, top]}]}
    views = [_ipc._view(node, floating) for node, floating in _ipc._walk(tree, False) if _ipc._is_view(node)]
    assert [(v.id, v.pid, v.floating, v.focused) for v in views] == [
        (4, 40, False, False), (5, 50, True, False), (6, 60, True, True),
    ]  # fmt: skip
    assert views[1].rect == (5, 5, 20, 20)


def test_a_covered_window_is_refused_before_any_capture() -> None:
    covered = _ipc._view(_node(5, 50, (0, 0, 100, 100)), True)
    above = _ipc._view(_node(6, 60, (50, 50, 100, 100)), True)
    with pytest.raises(NativeError) as refused:
        capture_view(cast(Client, None), [covered, above], covered)  # no client: nothing is captured
    assert refused.value.code == "capture_failed" and refused.value.dispatched is False
    assert "app6 (pid 60)" in refused.value.message


def test_a_window_partly_off_the_screen_is_refused_before_any_capture() -> None:
    """Not cut to the part on the screen: the transform would not match the window."""
    half_off = _ipc._view(_node(5, 50, (1000, 100, 400, 300)), True)
    screen = SimpleNamespace(outputs=[SimpleNamespace(x=0, y=0, width=1280, height=800)])
    with pytest.raises(NativeError) as refused:
        capture_view(cast(Client, screen), [half_off], half_off)  # no screencopy: nothing is captured
    assert refused.value.code == "capture_failed" and refused.value.dispatched is False
    assert "off the screen" in refused.value.message


def _view(con_id: int, rect: tuple[int, int, int, int], *, visible: bool = True) -> View:
    return View(con_id, 100 + con_id, "app", "t", rect, False, visible, True, "xdg_shell")


def test_a_point_is_covered_only_by_a_visible_window_above_that_holds_it() -> None:
    from deskhand.backends.linux.act.wl_session import _above  # noqa: PLC0415
    from deskhand.core.geometry import Point  # noqa: PLC0415

    below, target = _view(1, (0, 0, 500, 500)), _view(2, (100, 100, 400, 300))
    over, hidden = _view(3, (300, 200, 100, 100)), _view(4, (100, 100, 50, 50), visible=False)
    views = [below, target, over, hidden]
    assert _above(views, target, Point(350, 250))  # under ``over``
    assert not _above(views, target, Point(120, 120))  # only the hidden one is there
    assert not _above(views, target, Point(400, 300))  # the right and bottom edges are outside
    assert not _above([below, over, target], target, Point(350, 250))  # ``over`` is below it now


def test_doctor_names_qt5_without_its_wayland_plugin_with_the_package_to_install(tmp_path: Path) -> None:
    platforms = tmp_path / "lib" / "x86_64-linux-gnu" / "qt5" / "plugins" / "platforms"
    patterns = [str(tmp_path / "lib" / "*" / "qt5" / "plugins" / "platforms")]
    assert qt_check(patterns).ok is True  # no Qt 5 at all: nothing to start
    platforms.mkdir(parents=True)
    (platforms / "libqxcb.so").write_bytes(b"")
    missing = qt_check(patterns)
    assert missing.ok is False and missing.fix is not None and "apt-get install qtwayland5" in missing.fix
    (platforms / "libqwayland-generic.so").write_bytes(b"")
    found = qt_check(patterns)
    assert found.ok is True and found.data["plugins"] == [str(platforms / "libqwayland-generic.so")]


def test_the_compositor_is_named_by_the_variable_else_by_what_the_session_shows() -> None:
    assert compositor_name({"DESKHAND_COMPOSITOR": "KWin", "SWAYSOCK": "/s"}) == "kwin"
    assert compositor_name({"SWAYSOCK": "/s", "XDG_CURRENT_DESKTOP": "KDE"}) == "sway"
    assert compositor_name({"XDG_CURRENT_DESKTOP": "KDE"}) == "kwin"
    assert compositor_name({"XDG_CURRENT_DESKTOP": "ubuntu:GNOME"}) == "gnome"
    assert compositor_name({}) == "sway"


def test_an_unknown_compositor_is_refused_with_the_ones_deskhand_drives() -> None:
    with pytest.raises(BackendUnavailable, match=r"drives .*sway"):
        open_compositor({"DESKHAND_COMPOSITOR": "weston"})
    with pytest.raises(ValueError, match=r"deskhand starts .*sway"):
        kind("weston")


def test_a_keymap_says_which_key_types_a_keysym_and_which_keys_hold_the_modifiers() -> None:
    """KWin's fake input types with the session's keymap (``_xkb``); read here from a keymap text
    (deskhand's own for sway), as KWin's is read from ``wl_keyboard.keymap``."""
    keymap = _keymap.Keymap()
    keymap.ensure([_keymap.char_keysym(c) for c in "aé\n"])
    table = KeyTable(keymap.text())
    strokes = {c: table.stroke(_keymap.char_keysym(c)) for c in "aé\n✓"}
    assert strokes["✓"] is None  # not on this keymap: fakeinput refuses the text before any key
    assert all(s is not None and not s.shift and not s.level3 for c, s in strokes.items() if c != "✓")
    assert len({s.code for s in strokes.values() if s is not None}) == 3
    assert {"shift", "ctrl", "alt", "super"} <= set(table.modifiers)


def test_a_window_whose_frame_outgrows_it_is_said_to_draw_decorations_when_placed_by_a_guess() -> None:
    """Chromium on sway: a 945 x 1060 frame for a 913 x 1018 window (its shadow). The notice reads
    how placement found the content's origin: a guess says so; children spanning the window or a
    surface given by the compositor (GNOME) place it, and it says nothing."""
    from deskhand.backends.linux.observe.placement import content_origin, decorations_notice  # noqa: PLC0415
    from deskhand.backends.linux.wayland_executor import window_info  # noqa: PLC0415
    from deskhand.core.axtree.model import Element  # noqa: PLC0415
    from deskhand.core.geometry import Rect  # noqa: PLC0415

    view = _ipc.View(7, 42, "chromium", "Pick", (0, 0, 913, 1018), True, True, True, "xdg_shell")

    def notice(w: float, h: float, *children: Rect, on: View = view) -> str | None:
        root = Element("AXWindow", frame=Rect(0, 0, w, h), children=[Element("AXGroup", frame=c) for c in children])
        return decorations_notice(content_origin(root, window_info(on, 0), surface=True), on.rect[2:])

    said = notice(945, 1060, Rect(16, 10, 913, 80))
    assert said is not None and "945x1060" in said and "913x1018" in said and "32x42 px" in said
    assert notice(913, 1018) is None and notice(914, 1019) is None  # no shadow, or within 2 px
    assert notice(945, 1060, Rect(16, 10, 913, 80), Rect(16, 90, 913, 938)) is None  # spans it: placed
    gnome = View(7, 42, "app", "Title", (319, 36, 640, 517), True, True, True, "xdg_shell", surface=(293, 13, 692, 569))
    assert notice(692, 569, Rect(26, 23, 100, 40), on=gnome) is None  # the surface places it


def test_keys_for_an_observed_window_that_closed_are_refused_naming_the_key_window_now_and_the_way_on() -> None:
    """A dialog closed by its OK button, then a key: the refusal says the observed key window is
    gone, which window has the focus now, and how to go on (as X11's does), and nothing is sent."""
    from deskhand.backends.linux.act.wl_session import WaylandSession  # noqa: PLC0415

    document = View(7, 4242, "soffice", "chain.odt - LibreOffice Writer", (0, 0, 800, 600), True, True, True, "")
    compositor = SimpleNamespace(input=None, views=lambda: [document], focus=lambda _id: pytest.fail("focus asked"))
    session = WaylandSession(cast(Any, None), cast(Any, compositor))
    with pytest.raises(NativeError) as err:
        session.focus(cast(Any, SimpleNamespace(pid=4242)), 9)  # the dialog's view, gone
    assert err.value.code == "stale_window" and err.value.dispatched is False
    assert "observed key window 9, which is gone (now window 7 ('chain.odt - LibreOffice Writer'))" in err.value.message
    assert "await app.getAXState({waitForChangeMs: 1000})" in err.value.message
