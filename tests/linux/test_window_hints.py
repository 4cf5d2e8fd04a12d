"""``x11.windows.accepts_focus`` reads WM_HINTS and WM_PROTOCOLS in one round trip; it must decide as
python-xlib's own getters read those properties, for every shape a client may set."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from Xlib import Xatom, Xutil
from Xlib import display as xdisplay

from deskhand.backends.linux.x11 import windows
from deskhand.backends.linux.x11.connection import XConnection
from deskhand.desktop import VirtualDesktop

HINTS: tuple[Any, ...] = (
    None,
    {"flags": Xutil.InputHint, "input": 0},
    {"flags": Xutil.InputHint, "input": 1},
    {"flags": 0, "input": 0},
    "short",  # fewer than nine words: python-xlib ignores the hints
    "wrong type",  # nine words of another type: ignored as well
)
PROTOCOLS: tuple[tuple[str, ...] | None, ...] = (
    None,
    ("WM_DELETE_WINDOW",),
    ("WM_TAKE_FOCUS",),
    ("WM_DELETE_WINDOW", "WM_TAKE_FOCUS", "_NET_WM_PING"),
)


@pytest.fixture
def x(desktop: VirtualDesktop) -> Iterator[XConnection]:
    conn = XConnection(f":{desktop.display}")
    try:
        yield conn
    finally:
        conn.display.close()


def _by_python_xlib(x: XConnection, wid: int) -> bool:
    win = x.display.create_resource_object("window", wid)
    hints, protocols = win.get_wm_hints(), win.get_wm_protocols()
    if x.atom("WM_TAKE_FOCUS") in (protocols or ()):
        return True
    return hints is None or not hints.flags & Xutil.InputHint or bool(hints.input)


def test_accepts_focus_reads_hints_and_protocols_as_python_xlib(x: XConnection, desktop: VirtualDesktop) -> None:
    d = xdisplay.Display(f":{desktop.display}")
    try:
        root = d.screen().root
        made: list[tuple[object, object, int]] = []
        for hints in HINTS:
            for protocols in PROTOCOLS:
                win = root.create_window(0, 0, 10, 10, 0, 0)
                if hints == "short":
                    win.change_property(Xatom.WM_HINTS, Xatom.WM_HINTS, 32, [Xutil.InputHint, 0, 1])
                elif hints == "wrong type":
                    win.change_property(Xatom.WM_HINTS, Xatom.CARDINAL, 32, [Xutil.InputHint, 0, 1, 0, 0, 0, 0, 0, 0])
                elif hints is not None:
                    win.set_wm_hints(**hints)
                if protocols is not None:
                    win.set_wm_protocols([d.intern_atom(name) for name in protocols])
                made.append((hints, protocols, win.id))
        d.sync()
        decided = {(str(h), p): windows.accepts_focus(x, wid) for h, p, wid in made}
        expected = {(str(h), p): _by_python_xlib(x, wid) for h, p, wid in made}
        assert decided == expected
        assert False in decided.values()  # the matrix has windows that take no focus
        gone = max(wid for _h, _p, wid in made) + 64
        assert windows.accepts_focus(x, gone)  # a window that is gone: the caller's checks report it
    finally:
        d.close()
