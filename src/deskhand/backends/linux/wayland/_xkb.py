"""A compositor's own keymap, read as its clients get it, and the keys that type each keysym.

Where deskhand cannot give the compositor a keymap (KWin's fake input sends evdev key codes, read
with the layout the session has), typing depends on that layout: :func:`read_keymap` takes the
keymap the compositor sends every client on ``wl_keyboard.keymap``, and :class:`KeyTable` (through
libxkbcommon, the library every toolkit reads it with) says which key, with Shift and/or the
third-level shift (AltGr), types a keysym on the first layout. A keysym the layout lacks has no
key: the caller refuses the text before anything is sent.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._protocol import KEYMAP_XKB_V1
from deskhand.backends.linux.wayland._wire import WaylandError

__all__ = ()

#: xkb key codes are evdev codes + 8.
_EVDEV_OFFSET: Final = 8
FIX_XKB: Final = "install libxkbcommon (apt-get install libxkbcommon0): deskhand reads the session's keymap with it"
#: Modifier names (deskhand's, ``core.keys``) -> the keysyms of the keys that hold them, in preference order.
MODIFIER_KEYSYMS: Final[Mapping[str, tuple[int, ...]]] = {
    "shift": (0xFFE1, 0xFFE2),  # Shift_L, Shift_R
    "ctrl": (0xFFE3, 0xFFE4),  # Control_L, Control_R
    "alt": (0xFFE9, 0xFFEA),  # Alt_L, Alt_R
    "super": (0xFFEB, 0xFFEC),  # Super_L, Super_R
    "level3": (0xFE03,),  # ISO_Level3_Shift (AltGr)
}


@dataclass(frozen=True, slots=True)
class Stroke:
    """How a keysym is typed: the key's evdev code and the modifiers held around it."""

    code: int
    shift: bool = False
    level3: bool = False


def _lib() -> ctypes.CDLL:
    name = ctypes.util.find_library("xkbcommon") or "libxkbcommon.so.0"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        raise WaylandError(f"wayland: no libxkbcommon ({exc}); {FIX_XKB}") from exc
    vp, u32 = ctypes.c_void_p, ctypes.c_uint32
    lib.xkb_context_new.restype = vp
    lib.xkb_context_new.argtypes = [ctypes.c_int]
    lib.xkb_context_unref.argtypes = [vp]
    lib.xkb_keymap_new_from_string.restype = vp
    lib.xkb_keymap_new_from_string.argtypes = [vp, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    lib.xkb_keymap_unref.argtypes = [vp]
    for fn in ("xkb_keymap_min_keycode", "xkb_keymap_max_keycode"):
        getattr(lib, fn).restype = u32
        getattr(lib, fn).argtypes = [vp]
    lib.xkb_keymap_num_levels_for_key.restype = u32
    lib.xkb_keymap_num_levels_for_key.argtypes = [vp, u32, u32]
    lib.xkb_keymap_key_get_syms_by_level.restype = ctypes.c_int
    lib.xkb_keymap_key_get_syms_by_level.argtypes = [vp, u32, u32, u32, ctypes.POINTER(ctypes.POINTER(u32))]
    lib.xkb_keymap_key_get_mods_for_level.restype = ctypes.c_size_t
    lib.xkb_keymap_key_get_mods_for_level.argtypes = [vp, u32, u32, u32, ctypes.POINTER(u32), ctypes.c_size_t]
    lib.xkb_keymap_mod_get_index.restype = u32
    lib.xkb_keymap_mod_get_index.argtypes = [vp, ctypes.c_char_p]
    return lib


class KeyTable:
    """Keysym -> :class:`Stroke` on the first layout of a keymap (libxkbcommon's text format)."""

    def __init__(self, text: str) -> None:
        lib = _lib()
        ctx = lib.xkb_context_new(0)
        keymap = lib.xkb_keymap_new_from_string(ctx, text.encode(), KEYMAP_XKB_V1, 0) if ctx else None
        if not keymap:
            if ctx:
                lib.xkb_context_unref(ctx)
            raise WaylandError("wayland: the compositor's keymap did not compile")
        try:
            self.strokes, self.modifiers = _scan(lib, keymap)
        finally:
            lib.xkb_keymap_unref(keymap)
            lib.xkb_context_unref(ctx)

    def stroke(self, keysym: int) -> Stroke | None:
        return self.strokes.get(keysym)

    def modifier(self, name: str) -> int | None:
        """The evdev code of a key that holds modifier ``name`` (``MODIFIER_KEYSYMS``)."""
        return self.modifiers.get(name)


def _scan(lib: ctypes.CDLL, keymap: int) -> tuple[dict[int, Stroke], dict[str, int]]:
    u32 = ctypes.c_uint32
    invalid = 0xFFFFFFFF
    shift_bit = lib.xkb_keymap_mod_get_index(keymap, b"Shift")
    level3_bits = {lib.xkb_keymap_mod_get_index(keymap, name) for name in (b"Mod5", b"LevelThree")} - {invalid}
    shift_mask = 1 << shift_bit if shift_bit != invalid else 0
    level3_mask = sum(1 << b for b in level3_bits if b < 32)
    strokes: dict[int, Stroke] = {}
    first_syms: dict[int, int] = {}
    for key in range(lib.xkb_keymap_min_keycode(keymap), lib.xkb_keymap_max_keycode(keymap) + 1):
        for level in range(lib.xkb_keymap_num_levels_for_key(keymap, key, 0)):
            syms = ctypes.POINTER(u32)()
            count = lib.xkb_keymap_key_get_syms_by_level(keymap, key, 0, level, ctypes.byref(syms))
            if count != 1:
                continue
            sym = int(syms[0])
            if level == 0:
                first_syms.setdefault(sym, key - _EVDEV_OFFSET)
            masks = (u32 * 8)()
            n = lib.xkb_keymap_key_get_mods_for_level(keymap, key, 0, level, masks, 8)
            choices = [int(masks[i]) for i in range(n) if int(masks[i]) & ~(shift_mask | level3_mask) == 0]
            if not choices:
                continue
            mask = min(choices, key=lambda m: bin(m).count("1"))
            stroke = Stroke(key - _EVDEV_OFFSET, bool(mask & shift_mask), bool(mask & level3_mask))
            old = strokes.get(sym)
            if old is None or (old.shift + old.level3) > (stroke.shift + stroke.level3):
                strokes[sym] = stroke
    modifiers = {
        name: first_syms[sym]
        for name, syms in MODIFIER_KEYSYMS.items()
        for sym in reversed(syms)  # the first in preference order wins
        if sym in first_syms
    }
    return strokes, modifiers


def read_keymap(client: Client) -> str:
    """The keymap the compositor gives its clients (``wl_keyboard.keymap`` on the client's seat)."""
    seat = client.need("wl_seat")
    keyboard = seat.create("get_keyboard")
    got: dict[str, str] = {}

    def keymap(fmt: int, fd: int, size: int) -> None:
        try:
            if int(fmt) == KEYMAP_XKB_V1 and int(size) > 0:
                with mmap.mmap(fd, int(size), mmap.MAP_PRIVATE, mmap.PROT_READ) as mem:
                    got["text"] = bytes(mem[: int(size)]).rstrip(b"\0").decode()
        finally:
            os.close(fd)

    keyboard.on("keymap", keymap)
    for event in ("enter", "leave", "key", "modifiers", "repeat_info"):
        keyboard.on(event, lambda *_a: None)
    try:
        client.conn.wait(lambda: "text" in got, client.timeout_s, "wayland: the compositor sent no keymap")
    finally:
        if keyboard.alive and keyboard.version >= 3:
            keyboard.request("release")
    return got["text"]
