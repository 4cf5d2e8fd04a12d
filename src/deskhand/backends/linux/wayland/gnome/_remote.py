"""Input on GNOME through ``org.gnome.Mutter.RemoteDesktop``: one session for the executor's life.

Absolute pointer motion needs a screen-cast stream linked to the remote-desktop session (its
coordinates are the stream's), so the session records each monitor through
``org.gnome.Mutter.ScreenCast`` and waits for PipeWire to announce the stream: PipeWire and
WirePlumber must run. No frame is ever read from the stream. On the session bus Mutter asks no
consent (a sandboxed app goes through the RemoteDesktop portal, which asks the user once).

Keys are sent by keysym (``NotifyKeyboardKeysym``): Mutter finds the keysym on the current layout
and adds the level's modifiers itself, so typing does not depend on the layout for every keysym
the layout has. A keysym the layout lacks is dropped by Mutter with only a log line, so
``typable`` says which characters go as keys; the rest is committed through the shell's input
method (``_shell.ShellWindows.commit_text``).

Every burst is pipelined (``_bus.Bus.calls``) and what is held is tracked, so ``release_all``
lifts it on any failure: nothing stays pressed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from jeepney import DBusAddress, MatchRule, message_bus

from deskhand.backends.linux.wayland import _pointer
from deskhand.backends.linux.wayland._keymap import MODIFIERS, char_keysym, modifier_keysym
from deskhand.backends.linux.wayland.compositor import Held
from deskhand.backends.linux.wayland.gnome._bus import Bus, BusError, Call
from deskhand.core.errors import BackendUnavailable

__all__ = ()

RD: Final = "org.gnome.Mutter.RemoteDesktop"
SC: Final = "org.gnome.Mutter.ScreenCast"
RD_SESSION: Final = f"{RD}.Session"
SC_SESSION: Final = f"{SC}.Session"
DISPLAY_CONFIG: Final = DBusAddress(
    "/org/gnome/Mutter/DisplayConfig",
    bus_name="org.gnome.Mutter.DisplayConfig",
    interface="org.gnome.Mutter.DisplayConfig",
)
FIX_REMOTE: Final = (
    "GNOME's remote desktop API (org.gnome.Mutter.RemoteDesktop) did not start a session: it needs PipeWire and "
    "WirePlumber running in the session (apt-get install --no-install-recommends pipewire wireplumber)"
)
#: XF86Launch9 (on every evdev keymap, as F18's key): the shell extension grabs it as an accelerator
#: and counts it (``Marks``); sent after a burst, it says when Mutter has handed the burst to the
#: clients. Mutter consumes a grabbed key's press only: its release reaches the focused window (a
#: release without its press, which toolkits ignore).
MARKER_KEYSYM: Final = 0x1008FF49
#: Characters every Latin layout has as keys (printable ASCII, Return, Tab); others are committed.
_KEY_CHARS: Final = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\n", "\t"}


def typable(ch: str) -> bool:
    """Whether ``ch`` is typed as a key (else it is committed as text)."""
    return ch in _KEY_CHARS


@dataclass(frozen=True, slots=True)
class Stream:
    """One monitor's screen-cast stream and the monitor's rect in global coordinates."""

    path: str
    x: int
    y: int
    width: int
    height: int


def _monitors(bus: Bus) -> list[tuple[str, int, int, int, int]]:
    """(connector, x, y, width, height) of every logical monitor (its first physical monitor)."""
    _serial, monitors, logical, _props = bus.call(DISPLAY_CONFIG, "GetCurrentState")
    sizes: dict[str, tuple[int, int]] = {}
    for (connector, *_spec), modes, _mprops in monitors:
        for _id, width, height, _rate, scale, _scales, mprops in modes:
            if mprops.get("is-current", ("b", False))[1]:
                sizes[connector] = (round(width / scale), round(height / scale))
    out = []
    for x, y, _scale, _transform, _primary, attached, _lprops in logical:
        connector = attached[0][0]
        width, height = sizes.get(connector, (0, 0))
        out.append((connector, int(x), int(y), width, height))
    return out


class RemoteInput:
    """A RemoteDesktop session with a stream per monitor. Close it to end the session."""

    def __init__(self, bus: Bus, *, timeout_s: float = 5.0) -> None:
        self.bus = bus
        self.buttons: set[int] = set()
        self.keys: set[int] = set()
        try:
            self.path, self.streams = self._start(timeout_s)
        except BusError as err:
            raise BackendUnavailable(f"gnome: {FIX_REMOTE}: {err.message}") from err
        self.rd = DBusAddress(self.path, bus_name=RD, interface=RD_SESSION)

    def _start(self, timeout_s: float) -> tuple[str, list[Stream]]:
        bus = self.bus
        (rd_path,) = bus.call(
            DBusAddress("/org/gnome/Mutter/RemoteDesktop", bus_name=RD, interface=RD), "CreateSession"
        )
        props = DBusAddress(rd_path, bus_name=RD, interface="org.freedesktop.DBus.Properties")
        ((_sig, session_id),) = bus.call(props, "Get", "ss", (RD_SESSION, "SessionId"))
        (sc_path,) = bus.call(
            DBusAddress("/org/gnome/Mutter/ScreenCast", bus_name=SC, interface=SC), "CreateSession", "a{sv}",
            ({"remote-desktop-session-id": ("s", session_id)},),
        )  # fmt: skip
        rule = MatchRule(type="signal", interface=f"{SC}.Stream", member="PipeWireStreamAdded")
        bus.call(message_bus, "AddMatch", "s", (rule.serialise(),))
        streams = []
        with bus.conn.filter(rule, bufsize=16) as added:
            for connector, x, y, width, height in _monitors(bus):
                (stream,) = bus.call(
                    DBusAddress(sc_path, bus_name=SC, interface=SC_SESSION), "RecordMonitor", "sa{sv}", (connector, {})
                )
                streams.append(Stream(str(stream), x, y, width, height))
            bus.call(DBusAddress(rd_path, bus_name=RD, interface=RD_SESSION), "Start")
            deadline = time.monotonic() + timeout_s
            seen: set[str] = set()
            while len(seen) < len(streams):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BackendUnavailable(f"gnome: {FIX_REMOTE}: no PipeWire stream within {timeout_s} s")
                try:
                    msg = bus.conn.recv_until_filtered(added, timeout=left)
                except TimeoutError:
                    continue
                seen.add(str(msg.header.fields.get(1)))  # PATH: the stream that was added
        return str(rd_path), streams

    def close(self) -> None:
        try:
            self.release_all()
            self.bus.call(self.rd, "Stop")
        except (BusError, BackendUnavailable):
            pass  # the shell or the bus is gone: its session went with it

    # -- events (each returns the call; ``send`` pipelines them) ------------------------------
    def _stream_at(self, x: float, y: float) -> Stream:
        for s in self.streams:
            if s.x <= x < s.x + s.width and s.y <= y < s.y + s.height:
                return s
        if not self.streams:
            raise BackendUnavailable("gnome: the shell has no monitor")
        return self.streams[0]

    def motion(self, x: float, y: float) -> Call:
        s = self._stream_at(x, y)
        px = min(max(float(round(x)) - s.x, 0.0), s.width - 1.0)
        py = min(max(float(round(y)) - s.y, 0.0), s.height - 1.0)
        return (self.rd, "NotifyPointerMotionAbsolute", "sdd", (s.path, px, py))

    def button(self, button: int, down: bool) -> Call:
        return (self.rd, "NotifyPointerButton", "ib", (_pointer.evdev_button(button), down))

    def axis(self, axis: int, clicks: int) -> Call:
        """Wheel notches on one axis (positive: down / right)."""
        return (self.rd, "NotifyPointerAxisDiscrete", "ui", (axis, clicks))

    def key(self, keysym: int, down: bool) -> Call:
        return (self.rd, "NotifyKeyboardKeysym", "ub", (keysym, down))

    def chord(self, modifiers: Sequence[str], keysym: int) -> list[Call]:
        """Modifiers pressed in order, the key pressed and released, the modifiers released."""
        mods = [modifier_keysym(m) for m in modifiers if m in MODIFIERS]  # fn has no key
        return [
            *(self.key(m, True) for m in mods),
            self.key(keysym, True),
            self.key(keysym, False),
            *(self.key(m, False) for m in reversed(mods)),
        ]

    def marker(self) -> list[Call]:
        """The marker key pressed and released (not tracked as held: the shell consumes it)."""
        return [self.key(MARKER_KEYSYM, True), self.key(MARKER_KEYSYM, False)]

    def type_keys(self, text: str) -> list[Call]:
        out = []
        for ch in text:
            keysym = char_keysym(ch)
            out += [self.key(keysym, True), self.key(keysym, False)]
        return out

    def send(self, calls: Sequence[Call], timeout_s: float | None = None) -> None:
        """Send a burst (pipelined) and wait for Mutter to have taken every event; on any failure
        lift whatever is held (nothing stays pressed) and raise. What is held follows the calls
        written to the bus: Mutter takes a connection's calls in order, each written one whether or
        not its reply came in time, so a burst broken half way (ctrl down, the key not sent) holds
        what its written part pressed, and that is lifted (counted as the whole burst, ctrl was
        left down in Mutter, and the marker key after it never matched the shell's grab again)."""
        try:
            self.bus.calls(calls, timeout_s)
        except BaseException:
            self._track(calls[: self.bus.written])
            with contextlib.suppress(BackendUnavailable):  # the bus's own error is the one raised
                self.release_all()
            raise
        self._track(calls)

    def _track(self, calls: Sequence[Call]) -> None:
        for _address, method, _sig, body in calls:
            if method in ("NotifyPointerButton", "NotifyKeyboardKeysym") and int(body[0]) != MARKER_KEYSYM:
                held = self.buttons if method == "NotifyPointerButton" else self.keys
                (held.add if body[1] else held.discard)(int(body[0]))

    def readdress(self, calls: Sequence[Call], old: RemoteInput) -> list[Call]:
        """``calls`` built for ``old`` (a session since closed), addressed to this one: its session
        and, for absolute motion, its stream of the same monitor."""
        streams = {a.path: b.path for a, b in zip(old.streams, self.streams, strict=False)}
        out: list[Call] = []
        for call in calls:
            address, method, signature, body = call
            if address != old.rd:
                out.append(call)
            elif method == "NotifyPointerMotionAbsolute":
                out.append((self.rd, method, signature, (streams.get(str(body[0]), body[0]), *body[1:])))
            else:
                out.append((self.rd, method, signature, body))
        return out

    def ping(self, timeout_s: float | None = None) -> None:
        """A round trip to Mutter (``Peer.Ping``, answered from its main loop)."""
        peer = DBusAddress(self.path, bus_name=RD, interface="org.freedesktop.DBus.Peer")
        self.bus.calls([(peer, "Ping", "", ())], timeout_s)

    def release_all(self) -> None:
        """Lift every button and key that may be held, in one burst (Mutter refuses to lift one
        that was not down, which is then no error here); BackendUnavailable when the bus broke
        first, with the lifts not written still ``held``."""
        lifts: list[Call] = [(self.rd, "NotifyPointerButton", "ib", (code, False)) for code in sorted(self.buttons)]
        lifts += [self.key(k, False) for k in sorted(self.keys)]
        if not lifts:
            return
        self.buttons.clear()
        self.keys.clear()
        try:
            self.bus.calls(lifts)
        except BusError:
            pass
        except BackendUnavailable:
            for _address, method, _sig, body in lifts[self.bus.written :]:
                (self.buttons if method == "NotifyPointerButton" else self.keys).add(int(body[0]))
            raise

    @property
    def held(self) -> Held:
        """What is down (``buttons`` holds evdev codes, reported as X button numbers)."""
        return Held(frozenset(_pointer.X_NUMBER.get(c, c) for c in self.buttons), frozenset(self.keys))
