"""Tk canvas fixture: a window with no accessibility at all and no ``_NET_WM_PID`` (Tk sets none).

Run with Debian's python3 (python3-tk): ``/usr/bin/python3 tests/apps/tk_canvas.py``. The window
"Deskhand Tk Canvas" holds one 400x300 canvas painted in the four quadrant colours of the other
fixtures; a drag draws a black line from its press to its release, so screenshots change.
Every event goes to the log named by ``DESKHAND_EVENT_LOG`` (see ``tests/apps/README.md``).
"""

from __future__ import annotations

import os
import signal
import sys
import tkinter as tk
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _eventlog import CANVAS_SIZE, QUADRANT_COLOURS, EventLog, state_names

TITLE = "Deskhand Tk Canvas"
#: Tk's X11 wheel buttons.
_WHEEL = {4: "up", 5: "down", 6: "left", 7: "right"}


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


class App:
    def __init__(self) -> None:
        self.log = EventLog("tk")
        self.root = tk.Tk(className="deskhand-tk-canvas")
        self.root.title(TITLE)
        w, h = CANVAS_SIZE
        self.canvas = tk.Canvas(self.root, width=w, height=h, highlightthickness=0, borderwidth=0, takefocus=1)
        self.canvas.pack()
        half_w, half_h = w // 2, h // 2
        for (x, y), name in (
            ((0, 0), "top_left"),
            ((half_w, 0), "top_right"),
            ((0, half_h), "bottom_left"),
            ((half_w, half_h), "bottom_right"),
        ):
            colour = _hex(QUADRANT_COLOURS[name])
            self.canvas.create_rectangle(x, y, x + half_w, y + half_h, fill=colour, outline=colour)
        self.pressed_at: tuple[int, int] | None = None
        c = self.canvas
        c.bind("<ButtonPress>", self.on_press)  # any button: Tk 8.6 names only 1-5 in patterns
        c.bind("<ButtonRelease>", self.on_release)
        c.bind("<Motion>", self.on_motion)
        self.root.bind("<KeyPress>", self.on_key)
        self.root.bind("<KeyRelease>", self.on_key)
        self.root.bind("<Control-v>", self.on_paste, add="+")
        self.root.bind("<FocusIn>", lambda e: self.log.emit("focus", name="Canvas"))
        self.root.bind("<Map>", self.on_map)
        self.ready = False
        signal.signal(signal.SIGTERM, lambda *_: self.root.after(0, self.quit))
        signal.signal(signal.SIGINT, lambda *_: self.root.after(0, self.quit))
        self.root.after(50, self._tick)  # lets Python run its signal handlers inside mainloop

    def _tick(self) -> None:
        self.root.after(50, self._tick)

    def pointer(self, e: Any) -> dict[str, Any]:
        return {
            "x": e.x,
            "y": e.y,
            "x_root": e.x_root,
            "y_root": e.y_root,
            "state": e.state,
            "modifiers": state_names(e.state),
        }

    def on_map(self, _e: Any) -> None:
        if self.ready:
            return
        self.ready = True
        self.root.update_idletasks()
        self.log.emit(
            "ready",
            toolkit="tk",
            pid=os.getpid(),
            title=TITLE,
            window_id=int(self.root.wm_frame(), 16),
            canvas_root=[self.canvas.winfo_rootx(), self.canvas.winfo_rooty()],
            canvas_size=list(CANVAS_SIZE),
        )

    def on_press(self, e: Any) -> None:
        if e.num in _WHEEL:
            self.on_wheel(e)
            return
        self.pressed_at = (e.x, e.y)
        self.canvas.focus_set()
        self.log.emit("press", button=e.num, click_count=1, **self.pointer(e))

    def on_release(self, e: Any) -> None:
        if e.num in _WHEEL:
            return
        if self.pressed_at is not None and e.num == 1:
            self.canvas.create_line(*self.pressed_at, e.x, e.y, fill="black", width=3)
        self.pressed_at = None
        self.log.emit("release", button=e.num, **self.pointer(e))

    def on_motion(self, e: Any) -> None:
        self.log.emit("motion", **self.pointer(e))

    def on_wheel(self, e: Any) -> None:
        direction = _WHEEL[e.num]
        dx = {"left": -1, "right": 1}.get(direction, 0)
        dy = {"up": -1, "down": 1}.get(direction, 0)
        self.log.emit("wheel", direction=direction, delta_x=dx, delta_y=dy, **self.pointer(e))

    def on_key(self, e: Any) -> None:
        kind = "key_press" if str(e.type) in ("KeyPress", "2") else "key_release"
        self.log.emit(
            kind,
            keysym=e.keysym,
            keyval=e.keysym_num,
            text=e.char,
            keycode=e.keycode,
            state=e.state,
            modifiers=state_names(e.state),
        )

    def on_paste(self, _e: Any) -> None:
        try:
            text = self.root.clipboard_get()
        except tk.TclError:
            text = None
        self.log.emit("paste", name="Canvas", text=text)

    def quit(self) -> None:
        self.log.emit("exit", toolkit="tk", pid=os.getpid())
        self.root.destroy()

    def run(self) -> None:
        self.root.mainloop()


if __name__ == "__main__":
    App().run()
