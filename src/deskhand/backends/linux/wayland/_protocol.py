"""The Wayland interfaces deskhand speaks, described from their specifications (no XML shipped).

Each interface lists its requests and events in specification order (the order is the opcode);
``args`` is one letter per argument as in :mod:`._wire`; ``new`` names the interface of an object
a message creates. Only the messages deskhand sends or reads carry their arguments right; every
message up to the last one used is listed, since the opcode is its position.

Core protocol (``wayland.xml``): ``wl_display``, ``wl_registry``, ``wl_callback``, ``wl_seat``,
``wl_output``, ``wl_shm``, ``wl_shm_pool``, ``wl_buffer``. wlroots protocols: virtual pointer
(``zwlr_virtual_pointer_v1``), screencopy (``zwlr_screencopy_v1``), data control
(``zwlr_data_control_v1``); the virtual keyboard (``zwp_virtual_keyboard_v1``); KWin's fake input
(``org_kde_kwin_fake_input``, version 4: ``authenticate``, pointer motion, buttons, axis and
evdev keys, no events).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

__all__ = ()


@dataclass(frozen=True, slots=True)
class Message:
    name: str
    args: str = ""
    new: str | None = None
    destructor: bool = False


@dataclass(frozen=True, slots=True)
class Interface:
    name: str
    requests: tuple[Message, ...]
    events: tuple[Message, ...] = ()

    @property
    def event_names(self) -> frozenset[str]:
        return frozenset(m.name for m in self.events)

    def request(self, name: str) -> tuple[int, Message]:
        for opcode, message in enumerate(self.requests):
            if message.name == name:
                return opcode, message
        raise ValueError(f"{self.name} has no request {name!r}")


M = Message

_ALL: Final = (
    Interface(
        "wl_display",
        (M("sync", "n", "wl_callback"), M("get_registry", "n", "wl_registry")),
        (M("error", "ous"), M("delete_id", "u")),
    ),
    Interface(
        "wl_registry",
        (M("bind", "usun"),),  # name, interface, version, new id: an untyped new_id
        (M("global", "usu"), M("global_remove", "u")),
    ),
    Interface("wl_callback", (), (M("done", "u"),)),
    Interface(
        "wl_seat",
        (
            M("get_pointer", "n", "wl_pointer"),
            M("get_keyboard", "n", "wl_keyboard"),
            M("get_touch"),
            M("release", destructor=True),
        ),
        (M("capabilities", "u"), M("name", "s")),
    ),
    Interface(
        "wl_output",
        (M("release", destructor=True),),
        (
            M("geometry", "iiiiissi"),
            M("mode", "uiii"),
            M("done"),
            M("scale", "i"),
            M("name", "s"),
            M("description", "s"),
        ),
    ),
    Interface("wl_shm", (M("create_pool", "nhi", "wl_shm_pool"),), (M("format", "u"),)),
    Interface(
        "wl_shm_pool",
        (M("create_buffer", "niiiiu", "wl_buffer"), M("destroy", destructor=True), M("resize", "i")),
    ),
    Interface("wl_buffer", (M("destroy", destructor=True),), (M("release"),)),
    Interface("wl_pointer", (M("set_cursor"), M("release", destructor=True))),
    Interface(
        "wl_keyboard",
        (M("release", destructor=True),),
        (
            M("keymap", "uhu"),
            M("enter", "uoa"),
            M("leave", "uo"),
            M("key", "uuuu"),
            M("modifiers", "uuuuu"),
            M("repeat_info", "ii"),
        ),
    ),
    Interface(
        "zwlr_virtual_pointer_manager_v1",
        (M("create_virtual_pointer", "on", "zwlr_virtual_pointer_v1"), M("destroy", destructor=True)),
    ),
    Interface(
        "zwlr_virtual_pointer_v1",
        (
            M("motion", "uff"),
            M("motion_absolute", "uuuuu"),
            M("button", "uuu"),
            M("axis", "uuf"),
            M("frame"),
            M("axis_source", "u"),
            M("axis_stop", "uu"),
            M("axis_discrete", "uufi"),
            M("destroy", destructor=True),
        ),
    ),
    Interface(
        "zwp_virtual_keyboard_manager_v1",
        (M("create_virtual_keyboard", "on", "zwp_virtual_keyboard_v1"),),
    ),
    Interface(
        "zwp_virtual_keyboard_v1",
        (M("keymap", "uhu"), M("key", "uuu"), M("modifiers", "uuuu"), M("destroy", destructor=True)),
    ),
    Interface(
        "zwlr_screencopy_manager_v1",
        (
            M("capture_output", "nio", "zwlr_screencopy_frame_v1"),
            M("capture_output_region", "nioiiii", "zwlr_screencopy_frame_v1"),
            M("destroy", destructor=True),
        ),
    ),
    Interface(
        "zwlr_screencopy_frame_v1",
        (M("copy", "o"), M("destroy", destructor=True), M("copy_with_damage", "o")),
        (
            M("buffer", "uuuu"),
            M("flags", "u"),
            M("ready", "uuu"),
            M("failed"),
            M("damage", "uuuu"),
            M("linux_dmabuf", "uuu"),
            M("buffer_done"),
        ),
    ),
    Interface(
        "zwlr_data_control_manager_v1",
        (
            M("create_data_source", "n", "zwlr_data_control_source_v1"),
            M("get_data_device", "no", "zwlr_data_control_device_v1"),
            M("destroy", destructor=True),
        ),
    ),
    Interface(
        "zwlr_data_control_device_v1",
        (M("set_selection", "o"), M("destroy", destructor=True), M("set_primary_selection", "o")),
        (
            M("data_offer", "n", "zwlr_data_control_offer_v1"),
            M("selection", "o"),
            M("finished"),
            M("primary_selection", "o"),
        ),
    ),
    Interface(
        "zwlr_data_control_source_v1",
        (M("offer", "s"), M("destroy", destructor=True)),
        (M("send", "sh"), M("cancelled")),
    ),
    Interface(
        "zwlr_data_control_offer_v1",
        (M("receive", "sh"), M("destroy", destructor=True)),
        (M("offer", "s"),),
    ),
)

_KDE: Final = (
    Interface(
        "org_kde_kwin_fake_input",
        (
            M("authenticate", "ss"),
            M("pointer_motion", "ff"),
            M("button", "uu"),
            M("axis", "uf"),
            M("touch_down", "uff"),
            M("touch_motion", "uff"),
            M("touch_up", "u"),
            M("touch_cancel"),
            M("touch_frame"),
            M("pointer_motion_absolute", "ff"),
            M("keyboard_key", "uu"),
        ),
    ),
)

INTERFACES: Final[Mapping[str, Interface]] = MappingProxyType({i.name: i for i in (*_ALL, *_KDE)})

#: wl_seat capability bits.
SEAT_POINTER: Final = 1
SEAT_KEYBOARD: Final = 2
#: wl_shm format of 32-bit pixels with the unused byte on top (little-endian B, G, R, X).
SHM_XRGB8888: Final = 1
SHM_ARGB8888: Final = 0
#: zwp_virtual_keyboard_v1.keymap and wl_keyboard.keymap format: libxkbcommon's text format, version 1.
KEYMAP_XKB_V1: Final = 1
#: zwlr_screencopy_frame_v1.flags: the image is upside down.
FRAME_Y_INVERT: Final = 1
