"""The current keyboard layout through Text Input Sources and ``UCKeyTranslate`` (macOS, ctypes).

UNTESTED HERE: this module loads Carbon and CoreFoundation with ctypes and runs only on a Mac;
Linux CI only type-checks it. It supplies ``translate(keycode, modifier_state) -> str`` for the
pure reverse lookup in ``_keylayout`` (pyobjc does not wrap the TIS functions).
"""

from __future__ import annotations

import ctypes
from functools import cache
from typing import Any, Final

from deskhand.backends.macos._keylayout import ReverseMap, build_reverse_map

_CARBON: Final = "/System/Library/Frameworks/Carbon.framework/Carbon"
_CF: Final = "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"
KEY_ACTION_DISPLAY: Final = 3  # kUCKeyActionDisplay
NO_DEAD_KEYS: Final = 1  # 1 << kUCKeyTranslateNoDeadKeysBit


@cache
def _libs() -> tuple[Any, Any]:
    carbon, cf = ctypes.CDLL(_CARBON), ctypes.CDLL(_CF)
    carbon.TISCopyCurrentKeyboardLayoutInputSource.restype = ctypes.c_void_p
    carbon.TISGetInputSourceProperty.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
    carbon.TISGetInputSourceProperty.restype = ctypes.c_void_p
    carbon.LMGetKbdType.restype = ctypes.c_uint8
    carbon.UCKeyTranslate.argtypes = (
        ctypes.c_void_p, ctypes.c_uint16, ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
        ctypes.POINTER(ctypes.c_uint32), ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong), ctypes.c_void_p,
    )  # fmt: skip
    carbon.UCKeyTranslate.restype = ctypes.c_int32
    cf.CFDataGetBytePtr.argtypes = (ctypes.c_void_p,)
    cf.CFDataGetBytePtr.restype = ctypes.c_void_p
    cf.CFRelease.argtypes = (ctypes.c_void_p,)
    return carbon, cf


def current_reverse_map() -> ReverseMap:
    """Character → (keycode, modifiers) for the layout selected right now; empty when unavailable."""
    carbon, cf = _libs()
    source = carbon.TISCopyCurrentKeyboardLayoutInputSource()
    if not source:
        return {}
    try:
        key = ctypes.c_void_p.in_dll(carbon, "kTISPropertyUnicodeKeyLayoutData")
        data = carbon.TISGetInputSourceProperty(source, key)
        if not data:
            return {}  # an input method without a Unicode layout (some CJK sources)
        layout = cf.CFDataGetBytePtr(data)
        kbd = int(carbon.LMGetKbdType())
        buffer = (ctypes.c_uint16 * 8)()

        def translate(code: int, state: int) -> str:
            dead = ctypes.c_uint32(0)
            length = ctypes.c_ulong(0)
            status = carbon.UCKeyTranslate(
                layout, code, KEY_ACTION_DISPLAY, state, kbd, NO_DEAD_KEYS,
                ctypes.byref(dead), len(buffer), ctypes.byref(length), buffer,
            )  # fmt: skip
            if status != 0:
                return ""
            return bytes(buffer)[: 2 * length.value].decode("utf-16-le", "replace")

        return build_reverse_map(translate)
    finally:
        cf.CFRelease(source)
