"""``Gnome``: the compositor seam on GNOME Shell 43 (windows, capture and text from deskhand's
shell extension, input through Mutter's RemoteDesktop, the clipboard through the same session).

* Views: ``rect`` is the window's frame (what the user sees: a GTK window's client-side title bar
  included, its shadow excluded); ``surface`` is the client's whole buffer, which a Wayland
  client's AT-SPI coordinates are relative to. Stacking is bottom to top.
* A window is captured by itself (``Capture``: the window actor's own pixels, cut to the frame), so a
  covered window is captured as it is, not as the screen shows it; the app's open popups (menus,
  combo lists: windows of their own on Wayland) are drawn over it where they lie. A window with
  nothing drawn (minimized) is ``capture_failed``. A rect of the screen is captured as it shows
  (``CaptureArea``: the shell's own screenshot).
* Input (``GnomeInput``): events are queued and sent as one pipelined burst at ``flush``, followed
  by a marker key the shell extension consumes and counts: Mutter hands input to the clients from
  its input thread after its calls return, so ``flush`` returns once the marker was consumed.
  A text whose characters are all on the layout (printable ASCII, Return, Tab) goes as keys;
  any other text is committed whole through the shell's input method to the focused window, as
  an on-screen keyboard does (text-input-v3: GTK 3 and GTK 4; a newline in it is inserted, not
  pressed). Mixing the two is not ordered: Mutter hands keys to the client from its input thread,
  a commit from its main loop, and nothing tells when a key reached the client. A window without
  text-input gets ``feature_unavailable`` (paste instead).
  A burst that fails lifts what its sent part pressed (``_remote.RemoteInput.send``); when its
  marker was sent but not seen consumed, the next burst waits for that marker first, and opens
  the RemoteDesktop session again when it never comes (Mutter then lifts whatever the old session
  held): input after a failure is never sent with a key left down.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Final

from deskhand.backends.linux.wayland import _pointer
from deskhand.backends.linux.wayland._clipserver import ClipboardServer
from deskhand.backends.linux.wayland.compositor import Frame, Held, View
from deskhand.backends.linux.wayland.gnome._bus import Bus, Call
from deskhand.backends.linux.wayland.gnome._clipboard import Selection
from deskhand.backends.linux.wayland.gnome._png import crop, decode_bgrx
from deskhand.backends.linux.wayland.gnome._remote import RemoteInput, typable
from deskhand.backends.linux.wayland.gnome._shell import ShellWindow, ShellWindows
from deskhand.backends.linux.wayland.wlroots.devices import key_keysym
from deskhand.core.errors import BackendUnavailable, NativeError

__all__ = ("Gnome", "GnomeInput")

#: How long a burst may take to reach the clients (the marker's count moving).
DELIVERY_TIMEOUT_S: Final = 2.0
_POLL_S: Final = 0.001
#: How long a commit waits for the focused window's text input to be on.
TEXT_INPUT_WAIT_S: Final = 0.5
_TEXT_INPUT_POLL_S: Final = 0.01


def _view(w: ShellWindow) -> View:
    return View(
        id=w.id, pid=w.pid, app_id=w.app_id or w.wm_class, title=w.title, rect=w.frame, focused=w.focused,
        visible=w.visible, floating=True, shell="xdg_shell" if w.wayland else "xwayland",
        surface=w.buffer if w.buffer != w.frame else None,
    )  # fmt: skip


def _blit(canvas: bytearray, size: tuple[int, int], pixels: tuple[bytes, int, int], at: tuple[int, int]) -> None:
    """Copy BGRX rows ``pixels`` (data, width, height) into ``canvas`` of ``size`` at ``at``, clipped."""
    (width, height), (src, sw, sh), (dx, dy) = size, pixels, at
    x0, x1 = max(0, dx), min(width, dx + sw)
    if x1 <= x0:
        return
    for row in range(max(0, dy), min(height, dy + sh)):
        s0 = ((row - dy) * sw + (x0 - dx)) * 4
        canvas[(row * width + x0) * 4 : (row * width + x1) * 4] = src[s0 : s0 + (x1 - x0) * 4]


class GnomeInput(_pointer.PointerDevice):
    """The session's pointer and keyboard: one RemoteDesktop session (``compositor.Input``)."""

    def __init__(self, remote: RemoteInput, shell: ShellWindows) -> None:
        self.remote = remote
        self.shell = shell
        self.pending: list[Call] = []
        #: a pointer burst went out with no marker after it (``settle``)
        self.unsettled = False
        #: the marker count before a burst whose marker went out but was not seen consumed
        self.late: int | None = None

    def move(self, x: float, y: float) -> None:
        self.pending.append(self.remote.motion(x, y))

    def button(self, button: int, down: bool) -> None:
        self.pending.append(self.remote.button(button, down))

    def axis(self, axis: int, clicks: int) -> None:
        self.pending.append(self.remote.axis(axis, clicks))

    def chord(self, modifiers: Sequence[str], key: str) -> None:
        self.pending += self.remote.chord(modifiers, key_keysym(key))

    def keyed(self, text: str) -> bool:
        """Whether ``text`` goes as keys (every character on the layout); else it is committed whole."""
        return all(typable(ch) for ch in text)

    def type_text(self, text: str) -> None:
        """Keys when the layout has every character; else the whole text committed through the
        shell's input method to the focused window (module docstring)."""
        if self.keyed(text):
            self.pending += self.remote.type_keys(text)
            return
        self.flush()  # anything queued before goes first (a commit is not ordered after queued keys)
        if not self._commit(text):
            raise NativeError(
                "feature_unavailable",
                "GNOME: the text has characters that are not on the keyboard layout, and the focused window "
                "takes no input-method text (text-input-v3); paste it instead",
                dispatched=None,
            )

    def _commit(self, text: str) -> bool:
        """Commit ``text`` to the focused window once it has a text-input focus, polled for up to
        ``TEXT_INPUT_WAIT_S``: a client turns its text input on after it takes the focus (Qt 6 once
        had not yet, right after its entry logged the focus); the shell commits only then."""
        deadline = time.monotonic() + TEXT_INPUT_WAIT_S
        while True:
            focused = next((w for w in self.shell.windows() if w.focused), None)
            if focused is not None and self.shell.commit_text(focused.id, text):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(_TEXT_INPUT_POLL_S)  # polling the shell's text-input focus, with a deadline

    def release_all(self) -> None:
        self.pending.clear()
        self.remote.release_all()

    def confine(self, rect: tuple[int, int, int, int]) -> None:
        """Nothing to do: Mutter's remote desktop sends only the motions asked for."""
        del rect

    @property
    def held(self) -> Held:
        return self.remote.held

    def flush(self, timeout_s: float | None = None) -> None:
        """Send what is queued as one pipelined burst; after keys, the marker key too, and wait
        until the shell has consumed it: Mutter hands input to the clients from its input thread
        after the calls return, in order, so every key before the marker has then reached the
        focused client (without it, keys typed and a focus change right after went to the newly
        focused window: 29 of 30 bursts)."""
        calls, self.pending = self.pending, []
        old = self.remote
        self._owed()
        if self.remote is not old:  # the burst was queued for the session closed since
            calls = self.remote.readdress(calls, old)
        if not calls:  # nothing queued: Mutter's main loop has turned since the last burst
            self.remote.ping(timeout_s)
            return
        if not any(c[1] == "NotifyKeyboardKeysym" for c in calls):
            # pointer only: the marker waits for the next focus change (``settle``): its key
            # release, arriving while a menu opens on the click, made GTK close the menu again
            self.remote.send(calls, timeout_s)
            self.unsettled = True
            return
        self._marked(calls, timeout_s)

    def settle(self, timeout_s: float | None = None) -> None:
        """Before the focus or the stacking changes: wait until every burst sent has reached the
        clients (a click sent just before an activation landed on the window raised over it: 8
        of 30)."""
        self._owed()
        if self.unsettled:
            self._marked([], timeout_s)
            self.shell.frame()  # Clutter hands pointer events out per frame, keys at once

    def _marked(self, calls: list[Call], timeout_s: float | None) -> None:
        deadline = time.monotonic() + (DELIVERY_TIMEOUT_S if timeout_s is None else timeout_s)
        before = self.shell.marks()
        burst = [*calls, *self.remote.marker()]
        try:
            self.remote.send(burst, timeout_s)
        except BaseException:
            if self.remote.bus.written == len(burst):  # the marker went out: Mutter will get to it
                self.late = before
            raise
        self.unsettled = False
        while self.shell.marks() == before:
            if time.monotonic() >= deadline:
                self.late = before
                raise NativeError(
                    "input_failed", "GNOME Shell did not hand the input to the app in time", dispatched=True
                )
            time.sleep(_POLL_S)  # polling the shell's marker count, with a deadline

    def _owed(self) -> None:
        """After a burst whose marker was not seen consumed: wait for that marker first (Mutter
        slow: else it would end the next burst's wait before its own marker). One that does not
        come was lost with the session's input (a key Mutter still holds and deskhand does not
        know of: the marker then misses the shell's grab, and every later one would): the
        RemoteDesktop session is opened again, and Mutter lifts what the old one held."""
        if self.late is None:
            return
        late, self.late = self.late, None
        deadline = time.monotonic() + DELIVERY_TIMEOUT_S
        while self.shell.marks() == late:
            if time.monotonic() >= deadline:
                self.remote.close()
                try:
                    self.remote = RemoteInput(self.remote.bus)
                except BaseException:
                    self.late = late  # tried again at the next burst
                    raise
                return
            time.sleep(_POLL_S)  # polling the shell's marker count, with a deadline

    def close(self) -> None:
        self.remote.close()


class Gnome:
    """One GNOME Shell session: a session-bus connection to the extension and a RemoteDesktop
    session for input (module docstring)."""

    name = "GNOME Shell"

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        address = self.env.get("DBUS_SESSION_BUS_ADDRESS")
        if not address:
            raise BackendUnavailable("gnome: no session bus (DBUS_SESSION_BUS_ADDRESS) to reach GNOME Shell on")
        self.bus = Bus(address)
        try:
            self.shell = ShellWindows(self.bus)
            self.shell.version()  # the extension answers (else the fix to install it)
            self._input = GnomeInput(RemoteInput(self.bus), self.shell)
        except BaseException:
            self.bus.close()
            raise

    @property
    def input(self) -> GnomeInput:
        return self._input

    def close(self) -> None:
        try:
            self._input.close()
        finally:
            self.bus.close()

    def views(self) -> list[View]:
        return [_view(w) for w in self.shell.windows()]

    def focus(self, view_id: int) -> None:
        """Activate (raise and focus) the window, after the input sent before has gone where it
        was sent, and return once a frame has passed: Mutter syncs the stacking of what it draws
        (which pointer events are picked against) before its next frame, so a click sent right
        after an activation landed on the window that was on top before (9 of 30)."""
        self._input.settle()
        self.shell.activate(view_id)
        self.shell.frame()

    def place(self, view_id: int, x: int, y: int, width: int, height: int) -> None:
        self._input.settle()
        self.shell.move_resize(view_id, x, y, width, height)
        self.shell.frame()

    def capture(self, rect: tuple[int, int, int, int] | None = None) -> Frame:
        """What the screen shows in ``rect`` (None: all of it), through the shell's screenshot."""
        data, width, height = decode_bgrx(self.shell.capture_area(rect))
        x, y = rect[:2] if rect is not None else (0, 0)
        return Frame(data, width, height, x, y)

    def capture_view(self, views: Sequence[View], target: View) -> Frame:
        """``target``'s own pixels, covered or not (the window actor's image), cut to its frame."""
        del views
        data, width, height, fx, fy = self._frame_pixels(target.id)
        popups = self.shell.popups(target.pid)
        if popups:  # the app's open menus lie over it on the screen: drawn over its pixels
            canvas = bytearray(data)
            for popup in popups:
                pdata, pw, ph, px, py = self._frame_pixels(popup.id)
                _blit(canvas, (width, height), (pdata, pw, ph), (px - fx, py - fy))
            data = bytes(canvas)
        return Frame(data, width, height, fx, fy)

    def _frame_pixels(self, window_id: int) -> tuple[bytes, int, int, int, int]:
        shot = self.shell.capture(window_id)
        data, width, height = decode_bgrx(shot.png)
        fx, fy, fw, fh = shot.frame
        data, width, height = crop(data, width, height, (fx - shot.buffer[0], fy - shot.buffer[1], fw, fh))
        return data, width, height, fx, fy

    def clipboard(self) -> ClipboardServer:
        return ClipboardServer(Selection(self.env["DBUS_SESSION_BUS_ADDRESS"]), self.env)
