"""SDL 2 canvas fixture (pygame): a window with no accessibility, drawn by SDL on X11.

Run with the venv's python (pygame is a dev dependency): ``.venv/bin/python tests/apps/sdl_canvas.py``.
The window "Deskhand SDL Canvas" is 400x300 and painted in the four quadrant colours of the other
fixtures; a left drag draws a black line from its press to its release. Every event goes to the
log named by ``DESKHAND_EVENT_LOG`` (see ``tests/apps/README.md``); coordinates are window-local
(the whole window is the canvas).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "x11")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _eventlog import CANVAS_SIZE, QUADRANT_COLOURS, EventLog

TITLE = "Deskhand SDL Canvas"
#: SDL button numbers are X's for 1-3; SDL's X1/X2 (4, 5 in pygame 2) are X's back/forward (8, 9).
_BUTTONS = {1: 1, 2: 2, 3: 3, 6: 8, 7: 9}


class App:
    def __init__(self) -> None:
        self.log = EventLog("sdl")
        pygame.display.init()
        self.screen = pygame.display.set_mode(CANVAS_SIZE)
        pygame.display.set_caption(TITLE)
        self.lines: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self.pressed_at: tuple[int, int] | None = None
        #: the pointer as of the last event handled (SDL's wheel event carries no position)
        self.last_pos: tuple[int, int] = (0, 0)
        self.running = True
        self.ready = False
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)

    def stop(self, *_: Any) -> None:
        self.running = False

    def paint(self) -> None:
        w, h = CANVAS_SIZE
        hw, hh = w // 2, h // 2
        for (x, y), name in (
            ((0, 0), "top_left"),
            ((hw, 0), "top_right"),
            ((0, hh), "bottom_left"),
            ((hw, hh), "bottom_right"),
        ):
            self.screen.fill(QUADRANT_COLOURS[name], pygame.Rect(x, y, hw, hh))
        for a, b in self.lines:
            pygame.draw.line(self.screen, (0, 0, 0), a, b, 3)
        pygame.display.flip()

    def pointer(self, pos: tuple[int, int]) -> dict[str, Any]:
        return {"x": pos[0], "y": pos[1]}

    def handle(self, e: Any) -> bool:
        """Log one event; True when the window must be painted again."""
        if e.type in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
            self.last_pos = e.pos
        if e.type == pygame.WINDOWSHOWN or (e.type == pygame.WINDOWEXPOSED and not self.ready):
            if not self.ready:
                self.ready = True
                info = pygame.display.get_wm_info()
                self.log.emit(
                    "ready", toolkit="sdl", pid=os.getpid(), title=TITLE, window_id=int(info.get("window", 0))
                )
            return True
        if e.type == pygame.WINDOWEXPOSED:
            return True
        if e.type == pygame.MOUSEBUTTONDOWN and e.button in _BUTTONS:
            if e.button == 1:
                self.pressed_at = e.pos
            self.log.emit(
                "press", button=_BUTTONS[e.button], click_count=getattr(e, "clicks", 1), **self.pointer(e.pos)
            )
        elif e.type == pygame.MOUSEBUTTONUP and e.button in _BUTTONS:
            if e.button == 1 and self.pressed_at is not None:
                self.lines.append((self.pressed_at, e.pos))
                self.pressed_at = None
                self.log.emit("release", button=1, **self.pointer(e.pos))
                return True
            self.log.emit("release", button=_BUTTONS[e.button], **self.pointer(e.pos))
        elif e.type == pygame.MOUSEMOTION:
            self.log.emit("motion", buttons=list(e.buttons), **self.pointer(e.pos))
        elif e.type == pygame.MOUSEWHEEL:
            direction = "up" if e.y > 0 else "down" if e.y < 0 else "right" if e.x > 0 else "left"
            self.log.emit("wheel", direction=direction, delta_x=e.x, delta_y=-e.y, **self.pointer(self.last_pos))
        elif e.type in (pygame.KEYDOWN, pygame.KEYUP):
            if e.type == pygame.KEYDOWN and e.key == pygame.K_v and e.mod & pygame.KMOD_CTRL:
                self.log.emit("paste", name="Canvas", text=_clipboard_text())
            kind = "key_press" if e.type == pygame.KEYDOWN else "key_release"
            self.log.emit(
                kind, keysym=pygame.key.name(e.key), keyval=e.key, text=getattr(e, "unicode", ""),
                keycode=e.scancode, modifiers=_mods(e.mod),
            )  # fmt: skip
        elif e.type == pygame.TEXTINPUT:
            self.log.emit("text_input", text=e.text)
        elif e.type == pygame.WINDOWFOCUSGAINED:
            self.log.emit("focus", name="Canvas")
        elif e.type == pygame.QUIT:
            self.running = False
        return False

    def run(self) -> None:
        self.paint()
        while self.running:
            e = pygame.event.wait(100)  # ms: the signal flag is seen at least this often
            dirty = e.type != pygame.NOEVENT and self.handle(e)
            for more in pygame.event.get():
                dirty = self.handle(more) or dirty
            if dirty:
                self.paint()
        self.log.emit("exit", toolkit="sdl", pid=os.getpid())
        pygame.display.quit()


def _clipboard_text() -> str | None:
    """SDL's own clipboard read (``SDL_GetClipboardText`` of the SDL pygame loaded)."""
    import ctypes  # noqa: PLC0415

    libs = sorted((Path(pygame.__file__).resolve().parent.parent / "pygame.libs").glob("libSDL2-*.so*"))
    if not libs:
        return None
    sdl = ctypes.CDLL(str(libs[0]))
    sdl.SDL_GetClipboardText.restype = ctypes.c_void_p
    sdl.SDL_free.argtypes = [ctypes.c_void_p]
    raw = sdl.SDL_GetClipboardText()
    if not raw:
        return None
    try:
        return ctypes.string_at(raw).decode("utf-8", errors="replace")
    finally:
        sdl.SDL_free(raw)


def _mods(mod: int) -> list[str]:
    names = [("shift", pygame.KMOD_SHIFT), ("control", pygame.KMOD_CTRL), ("mod1", pygame.KMOD_ALT)]
    return [name for name, bit in names if mod & bit]


if __name__ == "__main__":
    App().run()
