"""The session's pointer and keyboard on KWin: ``org_kde_kwin_fake_input`` (version 4).

KWin advertises fake input only to clients it trusts: on a private desktop deskhand starts KWin
with ``KWIN_WAYLAND_NO_PERMISSION_CHECKS=1``; on a user's Plasma session the executable must be
allow-listed by a ``.desktop`` file with ``X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input``
(``doctor`` says so). ``authenticate`` is required before any event (KWin 5.27 shows no dialog).

Pointer: absolute motion in global logical pixels, buttons as evdev codes, the wheel as axis
values (15 a notch, as libinput reports a wheel click). Keys are evdev codes read with the
session's own layout, so typing depends on it: each character is looked up in the keymap KWin
gives its clients (``_xkb``), with Shift and AltGr held as that layout needs; text with a
character the layout lacks is refused before any key is sent (``unknown_key``, naming it).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Final

from deskhand.backends.linux.wayland import _pointer
from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._keymap import char_keysym
from deskhand.backends.linux.wayland._wire import Proxy
from deskhand.backends.linux.wayland._xkb import KeyTable, Stroke, read_keymap
from deskhand.backends.linux.wayland.compositor import Held
from deskhand.backends.linux.wayland.wlroots.devices import key_keysym
from deskhand.core.errors import NativeError

__all__ = ("FakeInput",)

_PRESSED: Final = 1
_RELEASED: Final = 0
#: The gap between two presses' stamps that makes them differ on the wire (whole milliseconds).
_STAMP_S: Final = 0.001
#: deskhand's modifier names (``core.keys``) -> ``_xkb.MODIFIER_KEYSYMS`` names; fn has no key.
_MODIFIERS: Final = {"shift": "shift", "ctrl": "ctrl", "control": "ctrl", "alt": "alt", "super": "super",
                     "cmd": "super", "meta": "super"}  # fmt: skip
FIX_FAKE_INPUT: Final = (
    "KWin offers org_kde_kwin_fake_input only to trusted clients: on your Plasma session install a .desktop "
    "file for the program that runs deskhand with X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input "
    "(`deskhand doctor` prints it); a desktop from `deskhand desktop start --compositor kwin` trusts every client"
)


class FakeInput(_pointer.PointerDevice):
    """One authenticated fake-input device for the session; tracks what it holds."""

    def __init__(self, client: Client, application: str = "deskhand") -> None:
        self.client = client
        fake = client.globals.get("org_kde_kwin_fake_input")
        if fake is None:
            raise NativeError("not_trusted", f"kwin: no fake input; {FIX_FAKE_INPUT}", dispatched=False)
        self.fake: Proxy = fake
        self.fake.request("authenticate", application, "deskhand operates apps for an agent or a script")
        client.conn.roundtrip(client.timeout_s)
        self.table = KeyTable(read_keymap(client))
        self.buttons: set[int] = set()
        self.keys: set[int] = set()
        self._confined: tuple[int, int, int, int] | None = None
        #: Whether a press was sent since the last round trip; when the round trip after the last
        #: press returned (its stamp is no later).
        self._press_unread = False
        self._press_read_at: float | None = None
        #: The pointer's pixel as last sent or read from KWin (None: not known, so hover).
        self._at: tuple[int, int] | None = None

    def close(self) -> None:
        self.release_all()
        self.flush()

    @property
    def held(self) -> Held:
        return Held(frozenset(self.buttons), frozenset(self.keys))

    # -- pointer -----------------------------------------------------------------------------
    def move(self, x: float, y: float) -> None:
        """Put the pointer at global ``(x, y)``. KWin 5.27 sends a client no motion to the pixel
        the pointer is already at, and none when a window moves under a pointer that stays: that
        window keeps the pointer where it was in it before the move (measured: the GTK fixture
        mapped under the pointer, then moved by 126, 41 px; a press at the pointer's pixel landed
        126, 41 px off, on another widget; a sub-pixel nudge rounds to the same pixel). So when
        the pointer is at that pixel already (and no button is held), a hover motion one pixel
        beside it goes first, inside the window :meth:`confine` named; elsewhere the motion alone
        (a drag in a settled window is the contract's five events, as on X11)."""
        x0, y0, width, height = self.client.bounds()
        px = min(max(round(x), x0), x0 + width - 1)
        py = min(max(round(y), y0), y0 + height - 1)
        if not self.buttons and self._at in (None, (px, py)):
            self.fake.request("pointer_motion_absolute", float(self._beside(px, py)), float(py))
        self.fake.request("pointer_motion_absolute", float(px), float(py))
        self._at = (px, py)

    def pointer_seen(self, x: int, y: int) -> None:
        """Where the compositor says the pointer is now (another client or the user's mouse may
        have moved it since this device's last motion)."""
        self._at = (x, y)

    def confine(self, rect: tuple[int, int, int, int]) -> None:
        """The target window of the next burst: the hover nudge stays inside it."""
        self._confined = rect

    def _beside(self, px: int, py: int) -> int:
        x0, _y0, width, _height = self._confined or self.client.bounds()
        return px + 1 if px + 1 < x0 + width else px - 1

    def button(self, button: int, down: bool) -> None:
        code = _pointer.evdev_button(button)
        if down:
            self._a_millisecond_after_the_last_press()
        self.fake.request("button", code, _PRESSED if down else _RELEASED)
        if down:
            self._press_unread = True
        (self.buttons.add if down else self.buttons.discard)(button)

    def _a_millisecond_after_the_last_press(self) -> None:
        """KWin stamps a fake event with its own clock (CLOCK_MONOTONIC, whole milliseconds on
        the wire) when it reads it, and Qt 6 counts no multi-click from presses stamped the same
        millisecond, as the pairs of a burst are (measured: a double click read [1, 1] by the Qt
        fixture). So a press waits until KWin has read the one before (a round trip) and a
        millisecond has passed since: about 1 ms per extra press of a multi-click."""
        if self._press_unread:
            self.flush()
        if self._press_read_at is not None:
            wait = self._press_read_at + _STAMP_S - time.monotonic()
            if wait > 0:
                time.sleep(wait)  # KWin's clock, not a wait for an effect: the next stamp differs

    def axis(self, axis: int, clicks: int) -> None:
        self.fake.request("axis", axis, _pointer.WHEEL_STEP * clicks)

    # -- keyboard ----------------------------------------------------------------------------
    def _key(self, code: int, down: bool) -> None:
        self.fake.request("keyboard_key", code, _PRESSED if down else _RELEASED)
        (self.keys.add if down else self.keys.discard)(code)

    def _modifier_key(self, code: int, down: bool) -> None:
        """A modifier key, and a round trip: KWin tells its clients the new modifiers after the
        events it read with the key, so the next key would reach a Qt app under the old ones
        (measured: KCalc read "7+5=" sent in one burst as 7 + 5 %)."""
        self._key(code, down)
        self.client.conn.roundtrip(self.client.timeout_s)

    def _stroke(self, keysym: int, what: str) -> Stroke:
        stroke = self.table.stroke(keysym)
        if stroke is None:
            raise NativeError(
                "unknown_key",
                f"kwin: {what} is not on the session's keyboard layout, and KWin's fake input sends keys of "
                "that layout only; paste the text instead",
                dispatched=False,
            )
        return stroke

    def _modifier(self, name: str) -> int:
        code = self.table.modifier(name)
        if code is None:
            raise NativeError("unknown_key", f"kwin: the keyboard layout has no {name} key", dispatched=False)
        return code

    def _typed(self, stroke: Stroke, held: frozenset[int] = frozenset()) -> None:
        """The key with Shift and AltGr as its level needs (those not ``held`` already)."""
        extra = [self._modifier(m) for m, on in (("shift", stroke.shift), ("level3", stroke.level3)) if on]
        extra = [code for code in extra if code not in held]
        for code in extra:
            self._modifier_key(code, True)
        self._key(stroke.code, True)
        self._key(stroke.code, False)
        for code in reversed(extra):
            self._modifier_key(code, False)

    def chord(self, modifiers: Sequence[str], key: str) -> None:
        """Press the modifiers (in order), press and release ``key`` (on its level), release the
        modifiers."""
        codes = [self._modifier(_MODIFIERS[m]) for m in modifiers if m in _MODIFIERS]
        stroke = self._stroke(key_keysym(key), repr(key))
        for code in codes:
            self._modifier_key(code, True)
        self._typed(stroke, frozenset(codes))
        for code in reversed(codes):
            self._modifier_key(code, False)

    def keyed(self, text: str) -> bool:
        """Every text is typed as key events (or refused whole: ``type_text``)."""
        del text
        return True

    def type_text(self, text: str) -> None:
        """Type ``text`` with the session's layout; refused whole when a character is not on it."""
        strokes = [self._stroke(char_keysym(ch), f"the character {ch!r}") for ch in text]
        for stroke in strokes:
            self._typed(stroke)

    def release_all(self) -> None:
        for button in sorted(self.buttons):
            self.button(button, False)
        for code in sorted(self.keys):
            self._key(code, False)

    def flush(self, timeout_s: float | None = None) -> None:
        """Wait until KWin has handled every event sent (a protocol error raises here)."""
        self.client.conn.roundtrip(self.client.timeout_s if timeout_s is None else timeout_s)
        if self._press_unread:
            self._press_unread = False
            self._press_read_at = time.monotonic()  # KWin stamped the last press by now
