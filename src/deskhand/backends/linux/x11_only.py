"""Apps that draw only on an X display, and what deskhand tells an agent that asks for one on a
Wayland desktop without XWayland (``WaylandExecutor.resolve``'s ``target_not_running``).

On a user's Wayland session such apps run under XWayland; on one without it (deskhand's own
headless sway) they exit before showing a window ("Cannot open display"), so the agent is told
why and where they run instead of waiting for a window that cannot come. One table
(``X11_ONLY``) says what marks such an app, one lookup (``x11_only_note``) reads it:

* the app itself (VLC 3, whose toolkit has a Wayland backend it cannot use): matched on the
  selector's lowercased words (an app id, a display name or an executable's basename);
* its toolkit (GTK 2, Motif, Tk; Java's AWT and Swing), which has no Wayland backend: read from
  the named installed app's binary, its ELF ``DT_NEEDED`` entries (the libraries it links), or a
  ``#!`` wrapper that runs Java (``inventory.wrapped_names`` reads the same scripts).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final, Literal

from deskhand.backends.linux.inventory import DesktopApp, installed_apps

__all__ = ("X11_ONLY", "NeedsX11", "needed_libraries", "toolkit_without_wayland", "x11_only_note")


@dataclass(frozen=True, slots=True)
class NeedsX11:
    """One mark of an app that draws only on X11: an app's name (``by="app"``, ``what`` says why),
    a linked library's name prefix (``"library"``) or the interpreter a ``#!`` wrapper runs
    (``"script"``), ``what`` naming the toolkit."""

    by: Literal["app", "library", "script"]
    key: str
    what: str


#: Every mark of an app that needs an X display, apps first.
X11_ONLY: Final = (
    NeedsX11(
        "app",
        "vlc",
        "VLC 3's Qt interface does not start on Qt's Wayland platform (VLC 3.0.24 exits with "
        "'no suitable interface module', with or without an X display beside it)",
    ),
    NeedsX11("library", "libgtk-x11-2.0.so", "GTK 2"),
    NeedsX11("library", "libXm.so", "Motif"),
    NeedsX11("library", "libtk8", "Tk"),
    NeedsX11("script", "java", "Java (AWT/Swing)"),
)
#: The refusal's words for an app named in ``X11_ONLY``, and what the agent can do instead.
APP_NOTE: Final = (
    "It cannot run natively on this Wayland desktop, which has no XWayland: {why}. It runs on an X11 display: "
    "XWayland on a desktop session, or deskhand's X11 desktop (`deskhand desktop start` without --wayland)."
)
#: The refusal's words for an app whose toolkit has no Wayland backend.
TOOLKIT_NOTE: Final = (
    "{app} is a {toolkit} app, which has no Wayland backend: it draws only on an X display (XWayland), and "
    "deskhand drives it only on an X display. This session is Wayland without one (no DISPLAY), so it cannot "
    "show a window here: start it on a session with XWayland and run deskhand with that DISPLAY, or use an X11 "
    "desktop (`deskhand desktop start`, `serve --virtual`)."
)
_MAX_ELF: Final = 64 << 20
_PT_LOAD, _PT_DYNAMIC, _DT_NEEDED, _DT_STRTAB = 1, 2, 1, 5


def x11_only_note(selector: str, apps: list[DesktopApp] | None = None) -> str | None:
    """What to tell an agent that named an app that is not running on this Wayland session, when
    that app draws only on X11 (None otherwise). ``apps``: the installed apps (read when needed)."""
    words = set(re.split(r"[^a-z0-9]+", selector.lower().rsplit("/", 1)[-1]))
    why = next((m.what for m in X11_ONLY if m.by == "app" and m.key in words), None)
    if why is not None:
        return APP_NOTE.format(why=why)
    for app in _named(selector, apps if apps is not None else installed_apps()):
        toolkit = toolkit_without_wayland(app.executable) if app.executable else None
        if toolkit is not None:
            return TOOLKIT_NOTE.format(app=app.name, toolkit=toolkit)
    return None


@lru_cache(maxsize=64)
def toolkit_without_wayland(executable: str) -> str | None:
    """The toolkit of ``executable`` when it has no Wayland backend ("GTK 2", ...), else None."""
    try:
        with Path(executable).open("rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if head.startswith(b"#!"):
        return next((m.what for m in X11_ONLY if m.by == "script" and m.key.encode() in head), None)
    for lib in needed_libraries(executable):
        for mark in X11_ONLY:
            if mark.by == "library" and lib.startswith(mark.key):
                return mark.what
    return None


def _named(selector: str, apps: list[DesktopApp]) -> list[DesktopApp]:
    wanted = selector.strip().lower()
    if wanted.startswith("/"):
        real = str(Path(wanted).resolve())
        return [a for a in apps if a.executable == real]
    return [a for a in apps if wanted in (a.id.lower(), a.name.lower(), a.command.lower())]


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
