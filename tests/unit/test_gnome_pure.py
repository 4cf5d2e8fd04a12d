"""The GNOME seam's pure parts: what goes as keys and what is committed, the held state of a burst,
the PNG decode's byte order, cutting and drawing rows, Mutter's selection types, a view with a
shadowed surface as the mapping code sees it, and the desktop's extension install (the rest runs on
a real headless GNOME Shell in ``tests/wayland`` and ``tests/realapps``)."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any, cast

import pytest

from deskhand.backends.linux.observe.placement import Origin, content_origin
from deskhand.backends.linux.observe.tree import _match_window
from deskhand.backends.linux.wayland._doctor import is_wayland_session
from deskhand.backends.linux.wayland.compositor import Held, View
from deskhand.backends.linux.wayland.gnome import _clipboard, _png, _remote
from deskhand.backends.linux.wayland.gnome.compositor import _blit
from deskhand.backends.linux.wayland.registry import COMPOSITORS, compositor_name
from deskhand.backends.linux.wayland_executor import window_info
from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core.axtree.model import Element
from deskhand.core.errors import BackendUnavailable
from deskhand.core.geometry import Rect
from deskhand.desktop import _gnome
from deskhand.desktop._started import Started
from deskhand.desktop.compositors import kind


def _png_rgba(width: int, height: int, pixels: list[tuple[int, int, int, int]]) -> bytes:
    """A minimal RGBA PNG (filter 0 on every row)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    rows = b"".join(b"\0" + b"".join(bytes(p) for p in pixels[y * width : (y + 1) * width]) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def test_a_png_decodes_to_blue_green_red_rows() -> None:
    red, green = (220, 30, 40, 255), (10, 200, 30, 255)
    data, width, height = _png.decode_bgrx(_png_rgba(2, 1, [red, green]))
    assert (width, height) == (2, 1)
    assert data[0:3] == bytes((40, 30, 220)) and data[4:7] == bytes((30, 200, 10))  # B, G, R


def test_crop_cuts_the_frame_out_of_the_buffer_and_blit_draws_a_popup_over_it() -> None:
    data = bytes(range(4 * 4 * 4))  # 4x4 pixels, 4 bytes each
    cut, w, h = _png.crop(data, 4, 4, (1, 1, 2, 2))
    assert (w, h) == (2, 2) and cut == data[20:28] + data[36:44]
    canvas = bytearray(4 * 3 * 3)
    _blit(canvas, (3, 3), (b"\xff" * 16, 2, 2), (2, 2))  # only its top-left pixel lands inside
    assert canvas[(2 * 3 + 2) * 4 : (2 * 3 + 3) * 4] == b"\xff" * 4 and canvas.count(b"\xff") == 4


def test_ascii_goes_as_keys_and_other_text_is_committed() -> None:
    assert all(_remote.typable(ch) for ch in "Hello, world!\n\t~")
    assert not any(_remote.typable(ch) for ch in "üß✓é€")


class _Bus:
    """Records each burst; ``breaks_at``: the call of the next burst that is not written (the
    bus breaks there, as a socket does)."""

    def __init__(self) -> None:
        self.sent: list[list[Any]] = []
        self.written = 0
        self.breaks_at: int | None = None

    def calls(self, batch: list[Any], timeout_s: float | None = None) -> list[tuple[Any, ...]]:
        del timeout_s
        if self.breaks_at is not None:
            self.written, self.breaks_at = self.breaks_at, None
            self.sent.append(list(batch[: self.written]))
            raise BackendUnavailable("gnome: the session bus did not answer: broken")
        self.written = len(batch)
        self.sent.append(list(batch))
        return [() for _ in batch]


def _remote_input() -> Any:
    remote = cast(Any, _remote.RemoteInput.__new__(_remote.RemoteInput))
    remote.bus, remote.buttons, remote.keys, remote.rd = _Bus(), set(), set(), "rd"
    remote.streams = [_remote.Stream("/stream/1", 0, 0, 1280, 800)]
    return remote


def test_what_is_held_counts_from_the_burst_sent_and_is_lifted_by_release_all() -> None:
    remote = _remote_input()
    chord = remote.chord(["ctrl", "shift"], ord("s"))
    assert [(c[1], c[3]) for c in chord] == [
        ("NotifyKeyboardKeysym", (0xFFE3, True)),
        ("NotifyKeyboardKeysym", (0xFFE1, True)),
        ("NotifyKeyboardKeysym", (ord("s"), True)),
        ("NotifyKeyboardKeysym", (ord("s"), False)),
        ("NotifyKeyboardKeysym", (0xFFE1, False)),
        ("NotifyKeyboardKeysym", (0xFFE3, False)),
    ]
    down = [remote.motion(1290, 10), remote.button(1, True)]
    assert down[0][3] == ("/stream/1", 1279.0, 10.0)  # clamped to the stream's monitor
    assert not remote.held  # built, not sent
    remote.send(down)
    assert remote.held and remote.buttons == {0x110}
    assert remote.held == Held(buttons=frozenset({1}))  # the seam's X button number, not the wire's code
    remote.send(chord[:2])  # ctrl and shift down, and no more
    assert remote.held == Held(buttons=frozenset({1}), keys=frozenset({0xFFE3, 0xFFE1}))
    remote.release_all()
    assert not remote.held and remote.held == Held()
    assert remote.bus.sent[-1] == [
        ("rd", "NotifyPointerButton", "ib", (0x110, False)),
        ("rd", "NotifyKeyboardKeysym", "ub", (0xFFE1, False)),
        ("rd", "NotifyKeyboardKeysym", "ub", (0xFFE3, False)),
    ]


def test_a_burst_broken_half_way_lifts_what_its_written_part_pressed_and_the_marker_is_never_held() -> None:
    remote = _remote_input()
    remote.send([*remote.chord([], ord("x")), *remote.marker()])
    assert not remote.held  # the marker key is the shell's, and it went up too
    remote.bus.breaks_at = 1  # ctrl goes out, the 'a' does not
    with pytest.raises(BackendUnavailable, match="broken"):
        remote.send([*remote.chord(["ctrl"], ord("a")), *remote.marker()])
    assert not remote.held
    assert remote.bus.sent[-1] == [("rd", "NotifyKeyboardKeysym", "ub", (0xFFE3, False))]  # ctrl lifted
    remote.bus.breaks_at = 4  # the burst goes out whole but its replies never come (Mutter slow)
    with pytest.raises(BackendUnavailable):
        remote.send(remote.chord(["ctrl"], ord("a")))
    assert not remote.held and remote.bus.sent[-1] == remote.chord(["ctrl"], ord("a"))  # nothing to lift
    remote.send([remote.button(1, True)])
    remote.bus.breaks_at = 0  # nothing of the lift goes out: it is still held
    with pytest.raises(BackendUnavailable):
        remote.release_all()
    assert remote.held == Held(buttons=frozenset({1}))


def test_mutters_selection_types_are_unwrapped_once_each() -> None:
    assert _clipboard._mime_types((["text/plain", "UTF8_STRING", "text/plain"],)) == ["text/plain", "UTF8_STRING"]
    assert _clipboard._mime_types(["a"]) == ["a"]


def test_a_shadowed_surface_places_window_relative_bounds_at_the_surface_or_the_frame() -> None:
    view = View(7, 42, "app", "Title", (319, 36, 640, 517), True, True, True, "xdg_shell", surface=(293, 13, 692, 569))
    info = window_info(view, 0)
    assert info.client == Rect(293, 13, 692, 569) and info.frame == Rect(319, 36, 640, 517)
    assert info.gtk_margins == (26, 26, 23, 29)
    gtk3 = Element(role="AXWindow", frame=Rect(0, 0, 692, 569))  # GTK 3: the whole surface
    gtk4 = Element(role="AXWindow", frame=Rect(0, 0, 640, 517))  # GTK 4: the frame
    assert content_origin(gtk3, info) == Origin((293, 13), "surface", (692, 569))
    assert content_origin(gtk4, info) == Origin((319, 36), "margins", (640, 517))


def test_window_relative_bounds_match_the_one_window_of_their_size_or_the_only_window() -> None:
    def win(wid: int, rect: tuple[int, int, int, int]) -> WindowInfo:
        r = Rect(*rect)
        return WindowInfo(id=wid, frame_id=wid, pid=1, title="", client=r, frame=r, mapped=True, stacking=0)

    root = Element(role="AXWindow", frame=Rect(0, 0, 253, 266))
    two = [win(1, (71, 114, 253, 266)), win(2, (500, 100, 400, 300))]
    assert _match_window(root, two, set(), active=True, key=None, relative=True) == two[0]
    only = [win(3, (0, 32, 259, 299))]  # sizes differ (a resize not yet in the bounds)
    assert _match_window(root, only, set(), active=True, key=None, relative=True) == only[0]
    assert _match_window(root, only, {3}, active=True, key=None, relative=True) is None


def test_the_desktop_installs_and_enables_the_extension_and_names_gnome(tmp_path: Path) -> None:
    target = _gnome.install_extension(tmp_path)
    meta = json.loads((target / "metadata.json").read_text())
    assert target.name == meta["uuid"] == _gnome.UUID and "43" in meta["shell-version"]
    assert "dev.deskhand.Shell" in (target / "extension.js").read_text()
    assert f"enabled-extensions=['{_gnome.UUID}']" in _gnome._SETTINGS
    env = Started(cast(Any, None), tmp_path, tmp_path / "wayland-0", _gnome.EXPORTS).client_env()
    assert compositor_name(env) == "gnome" and "gnome" in COMPOSITORS
    assert env["QT_WAYLAND_DISABLE_WINDOWDECORATION"] == "1"
    assert kind("gnome").buses_first and kind("gnome").program == "gnome-shell"


@pytest.mark.parametrize("value", [{"XDG_CURRENT_DESKTOP": "GNOME"}, {"XDG_CURRENT_DESKTOP": "ubuntu:GNOME"}])
def test_a_gnome_session_is_found_by_its_desktop_name(value: dict[str, str]) -> None:
    assert compositor_name(value) == "gnome"


def test_a_named_compositor_chooses_the_wayland_backend_beside_xwayland() -> None:
    gnome = {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "GNOME"}
    assert not is_wayland_session(gnome)  # XWayland's DISPLAY: the X11 backend, as before
    assert is_wayland_session({**gnome, "DESKHAND_COMPOSITOR": "gnome"})
    assert is_wayland_session({"WAYLAND_DISPLAY": "wayland-0"})


def test_a_burst_queued_for_a_closed_session_goes_to_the_new_one_and_its_stream() -> None:
    old, new = _remote_input(), _remote_input()
    new.rd, new.streams = "rd2", [_remote.Stream("/stream/9", 0, 0, 1280, 800)]
    other = (cast(Any, "shell"), "Marks", "", ())
    moved = new.readdress([old.motion(5, 6), old.button(1, True), *old.chord([], ord("b")), other], old)
    assert moved == [new.motion(5, 6), new.button(1, True), *new.chord([], ord("b")), other]
    assert moved[0][3] == ("/stream/9", 5.0, 6.0)
