"""``KWin``: the compositor seam on KWin 5.27 (module docs of the ``kwin`` package)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._clipserver import ClipboardServer
from deskhand.backends.linux.wayland._dataclip import DataControl
from deskhand.backends.linux.wayland.compositor import Frame, View
from deskhand.backends.linux.wayland.kwin import screenshot
from deskhand.backends.linux.wayland.kwin.fakeinput import FakeInput
from deskhand.backends.linux.wayland.kwin.scripting import Scripting
from deskhand.core.errors import NativeError

__all__ = ("KWin",)

#: The content rect: where the frame and the buffer meet. A window KWin decorates has its buffer
#: inside the frame; one that decorates itself has its shadows in the buffer, outside the frame.
_CONTENT: Final = """
function content(w) {
  var f = w.frameGeometry, b = w.bufferGeometry;
  var x = Math.max(f.x, b.x), y = Math.max(f.y, b.y);
  return {x: x, y: y, width: Math.min(f.x + f.width, b.x + b.width) - x,
          height: Math.min(f.y + f.height, b.y + b.height) - y};
}
"""
#: The windows deskhand sees, bottom to top: managed toplevels and dialogs (no docks, desktops,
#: popups or notifications); and where the pointer is (the fake input's hover rule needs it).
_WINDOWS: Final = (
    _CONTENT
    + """
var out = [];
var all = workspace.clientList();
for (var i = 0; i < all.length; i++) {
  var w = all[i];
  if (!w.managed || w.deleted || w.popupWindow || w.specialWindow) continue;
  var c = content(w);
  var f = w.frameGeometry, b = w.bufferGeometry;
  out.push({uuid: String(w.internalId), pid: w.pid, app: String(w.desktopFileName || w.resourceClass),
            title: String(w.caption), rect: [c.x, c.y, c.width, c.height],
            buffer: [b.x, b.y, b.width, b.height], active: w.active, order: w.stackingOrder,
            visible: !w.minimized && !w.hidden && (w.onAllDesktops || w.desktop == workspace.currentDesktop)});
}
var p = workspace.cursorPos;
return {windows: out, cursor: [p.x, p.y]};
"""
)
_FIND: Final = (
    _CONTENT
    + """
var all = workspace.clientList(), w = null;
for (var i = 0; i < all.length; i++) { if (String(all[i].internalId) === %s) { w = all[i]; } }
if (w === null) return false;
"""
)


def view_id(uuid: str) -> int:
    """A window's number for the session: 31 bits of its KWin uuid (stable across connections)."""
    return int(uuid.strip("{}").replace("-", "")[:8], 16) & 0x7FFFFFFF


class KWin:
    """One KWin session: a Wayland client with the fake-input devices, and scripts over D-Bus."""

    name = "KWin"

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self.scripts = Scripting(self.env.get("DBUS_SESSION_BUS_ADDRESS"), scratch=self.env.get("XDG_RUNTIME_DIR"))
        try:
            self.client = Client(self.env)
        except BaseException:
            self.scripts.close()
            raise
        try:
            self.devices = FakeInput(self.client)
        except BaseException:
            self.client.close()
            self.scripts.close()
            raise
        self._uuids: dict[int, str] = {}
        self._closed = False

    @property
    def input(self) -> FakeInput:
        return self.devices

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.devices.close()
        finally:
            self.client.close()
            self.scripts.close()

    def _records(self) -> list[dict[str, Any]]:
        """The windows, bottom to top; the pointer's position goes to the fake input, read in the
        same script as the windows the gate checks right before a burst."""
        got = self.scripts.run(_WINDOWS) or {}
        cursor = got.get("cursor")
        if cursor is not None:
            self.devices.pointer_seen(int(cursor[0]), int(cursor[1]))
        return sorted(got.get("windows") or [], key=lambda r: int(r["order"]))

    def views(self) -> list[View]:
        """Every window deskhand sees, bottom of the stack to top."""
        out = []
        for r in self._records():
            vid = view_id(r["uuid"])
            self._uuids[vid] = r["uuid"]
            x, y, w, h = (int(n) for n in r["rect"])
            bx, by, bw, bh = (int(n) for n in r["buffer"])
            margins = (x - bx, bx + bw - x - w, y - by, by + bh - y - h)  # the shadows a buffer holds
            out.append(View(vid, int(r["pid"]), r["app"], r["title"], (x, y, w, h), bool(r["active"]),
                            bool(r["visible"]), True, "kwin", margins))  # fmt: skip
        return out

    def uuid(self, vid: int) -> str:
        """KWin's id (internalId) of a view."""
        uuid = self._uuids.get(vid)
        if uuid is None:
            self.views()
            uuid = self._uuids.get(vid)
        if uuid is None:
            raise NativeError("stale_window", f"kwin: no window {vid}", dispatched=None)
        return uuid

    def focus(self, view_id: int) -> None:
        """Activate (and so raise) the window."""
        body = _FIND % json.dumps(self.uuid(view_id)) + "workspace.activeClient = w; return true;"
        if not self.scripts.run(body):
            raise NativeError("stale_window", f"kwin: the window {view_id} is gone", dispatched=None)

    def place(self, view_id: int, x: int, y: int, width: int, height: int) -> None:
        """Give the window's content the rect (x, y, width, height); its frame goes around it."""
        body = _FIND % json.dumps(self.uuid(view_id)) + (
            "var f = w.frameGeometry, c = content(w);"
            "var l = c.x - f.x, t = c.y - f.y, r = f.width - c.width - l, b = f.height - c.height - t;"
            f"w.frameGeometry = {{x: {int(x)} - l, y: {int(y)} - t, width: {int(width)} + l + r, "
            f"height: {int(height)} + t + b}};"
            "return true;"
        )
        if not self.scripts.run(body):
            raise NativeError("stale_window", f"kwin: the window {view_id} is gone", dispatched=None)

    def capture(self, rect: tuple[int, int, int, int] | None = None) -> Frame:
        if rect is None:
            rect = self.client.bounds()
        return screenshot.capture_area(self.scripts, rect)

    def capture_view(self, views: Sequence[View], target: View) -> Frame:
        """The window as it is on the screen when no other window lies over it (with its open
        menus and popups, which are surfaces of their own); a covered one by itself (KWin renders
        it alone, without what covers it and without its popups). Refused when it is not on the
        screen (minimized, on another desktop)."""
        if not target.visible:
            raise NativeError("target_window_offscreen", "kwin: the window is not on screen", dispatched=False)
        order = [v.id for v in views]
        above = views[order.index(target.id) + 1 :] if target.id in order else []
        if not any(v.visible and _overlap(v.rect, target.rect) for v in above):
            return screenshot.capture_area(self.scripts, target.rect)
        frame = screenshot.capture_window(self.scripts, self.uuid(target.id), (target.rect[0], target.rect[1]))
        if (frame.width, frame.height) != (target.rect[2], target.rect[3]):
            raise NativeError(
                "capture_failed",
                f"kwin: the window rendered at {frame.width}x{frame.height}, not its {target.rect[2]}x{target.rect[3]}",
                dispatched=False,
            )
        return frame

    def clipboard(self) -> ClipboardServer:
        return ClipboardServer(DataControl(self.env), self.env)


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
