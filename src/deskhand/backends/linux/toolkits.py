"""Apps whose toolkit has no Wayland backend, and what a Wayland session tells the agent of them.

GTK 2 (GIMP 2.10), Java's AWT and Swing (jEdit), Tk and Motif draw only on an X display: on a
Wayland session they need XWayland, and on one without it (deskhand's own headless sway) they do
not start ("Cannot open display"). When an agent binds such an app on Wayland and it is not
running, ``x11_only_note`` says why, so the agent does not wait for a window that cannot come.

A binary's toolkit is read from its ELF ``DT_NEEDED`` entries (the libraries it links); a
``#!`` wrapper that runs Java is Java's (``inventory.wrapped_names`` reads the same scripts).
"""

from __future__ import annotations

import struct
from functools import lru_cache
from pathlib import Path
from typing import Final

from deskhand.backends.linux.inventory import DesktopApp, installed_apps

__all__ = ("toolkit_without_wayland", "x11_only_note")

#: A linked library's name prefix -> the toolkit that draws only on X11.
X11_ONLY_LIBS: Final = {
    "libgtk-x11-2.0.so": "GTK 2",
    "libXm.so": "Motif",
    "libtk8": "Tk",
}
JAVA: Final = "Java (AWT/Swing)"
_MAX_ELF: Final = 64 << 20
_PT_LOAD, _PT_DYNAMIC, _DT_NEEDED, _DT_STRTAB = 1, 2, 1, 5


def needed_libraries(path: str) -> list[str]:
    """The ``DT_NEEDED`` names of the ELF file at ``path`` (empty for anything else)."""
    try:
        with Path(path).open("rb") as f:
            data = f.read(_MAX_ELF)
    except OSError:
        return []
    if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return []
    wide, end = data[4] == 2, "<" if data[5] == 1 else ">"
    try:
        if wide:
            phoff, phentsize, phnum = (
                struct.unpack_from(end + "Q", data, 32)[0],
                *struct.unpack_from(end + "HH", data, 54),
            )
        else:
            phoff, phentsize, phnum = (
                struct.unpack_from(end + "I", data, 28)[0],
                *struct.unpack_from(end + "HH", data, 42),
            )
        loads: list[tuple[int, int, int]] = []  # (vaddr, offset, size)
        dynamic: tuple[int, int] | None = None  # (offset, size)
        for i in range(phnum):
            at = phoff + i * phentsize
            if wide:
                kind, _fl, off, vaddr, _pa, size = struct.unpack_from(end + "IIQQQQ", data, at)
            else:
                kind, off, vaddr, _pa, size = struct.unpack_from(end + "IIIII", data, at)
            if kind == _PT_LOAD:
                loads.append((vaddr, off, size))
            elif kind == _PT_DYNAMIC:
                dynamic = (off, size)
        if dynamic is None:
            return []
        entry = struct.Struct(end + ("qQ" if wide else "iI"))
        tags = [entry.unpack_from(data, dynamic[0] + j) for j in range(0, dynamic[1], entry.size)]
        strtab = next((v for t, v in tags if t == _DT_STRTAB), None)
        base = next(
            (off + strtab - va for va, off, size in loads if strtab is not None and va <= strtab < va + size), None
        )
        if base is None:
            return []
        return [
            data[base + v : data.index(b"\0", base + v)].decode(errors="replace") for t, v in tags if t == _DT_NEEDED
        ]
    except (struct.error, ValueError):
        return []


@lru_cache(maxsize=64)
def toolkit_without_wayland(executable: str) -> str | None:
    """The toolkit of ``executable`` when it has no Wayland backend ("GTK 2", ...), else None."""
    try:
        with Path(executable).open("rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if head.startswith(b"#!"):
        return JAVA if b"java" in head else None
    for lib in needed_libraries(executable):
        for prefix, toolkit in X11_ONLY_LIBS.items():
            if lib.startswith(prefix):
                return toolkit
    return None


def _named(selector: str, apps: list[DesktopApp]) -> list[DesktopApp]:
    wanted = selector.strip().lower()
    if wanted.startswith("/"):
        real = str(Path(wanted).resolve())
        return [a for a in apps if a.executable == real]
    return [a for a in apps if wanted in (a.id.lower(), a.name.lower(), a.command.lower())]


def x11_only_note(selector: str, apps: list[DesktopApp] | None = None) -> str | None:
    """What to tell an agent that named an app that is not running on this Wayland session, when
    that app's toolkit draws only on X11 (None otherwise)."""
    for app in _named(selector, apps if apps is not None else installed_apps()):
        toolkit = toolkit_without_wayland(app.executable) if app.executable else None
        if toolkit is not None:
            return (
                f"{app.name} is a {toolkit} app, which has no Wayland backend: it draws only on an X display "
                "(XWayland), and deskhand drives it only on an X display. This session is Wayland without one "
                "(no DISPLAY), so it cannot show a window here: start it on a session with XWayland and run deskhand "
                "with that DISPLAY, or use an X11 desktop (`deskhand desktop start`, `serve --virtual`)."
            )
    return None
