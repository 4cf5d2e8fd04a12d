"""The Wayland seam's pure parts: wire marshalling, the keymap deskhand writes, sway's tree reading
and the covered-window refusal (the rest is tested on a real sway in ``tests/wayland``)."""

from __future__ import annotations

import socket
import struct
from pathlib import Path
from typing import Any, cast

import pytest

from deskhand.backends.linux.wayland import _keymap, _wire
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._doctor import qt_check
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
    assert text.count("key <K") == len(km.codes) and max(km.codes.values()) <= _keymap.LAST_KEYCODE


def test_a_lowercase_letter_has_its_capital_on_the_shift_level_and_other_keys_one_level() -> None:
    """Ctrl+Shift+S reaches GTK 3 as the capital with Shift consumed, as on any layout (with one
    level Mousepad ignored ctrl+shift+s); a capital typed alone keeps its own one-level key."""
    text = _keymap.Keymap().text()
    km = _keymap.Keymap()
    assert f'key <K{km.codes[0x73]}> {{ type = "ALPHABETIC", [ 0x00000073, 0x00000053 ] }};' in text
    assert f"key <K{km.codes[0x53]}> {{ [ 0x00000053 ] }};" in text
    assert f"key <K{km.codes[0x31]}> {{ [ 0x00000031 ] }};" in text


def test_a_full_keymap_starts_over_from_the_base_keys() -> None:
    km = _keymap.Keymap()
    room = _keymap.LAST_KEYCODE - _keymap.FIRST_KEYCODE + 1 - len(km.codes)
    first = [0x01000000 | (0x4E00 + i) for i in range(room)]
    km.ensure(first)
    assert len(km.codes) == _keymap.LAST_KEYCODE - _keymap.FIRST_KEYCODE + 1
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
