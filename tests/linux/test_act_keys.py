"""Keys and typing against the GTK and Qt fixtures, checked in their key logs and their own text fields.

The contract's key behaviour runs on X11, sway and KWin (``displays``); X11's keymap handling (spare
keycodes bound for a burst, given back once the app confirmed it) is X11's own: on sway the
keys go through the session's virtual keyboard, whose keymap is deskhand's (no user's map to restore);
KWin's fake input types with the session's own layout, so text the layout lacks is refused before
any key, and the tests about typing (not about wide characters) type the layout's characters there.
"""

from __future__ import annotations

import time

import pytest
from _act_support import bind, field_route, named_rect, nothing_held, poll
from Xlib import display as xdisplay

from deskhand.backends.linux.x11.input import AppPing
from deskhand.backends.linux.x11.keymap import char_keysym
from deskhand.core.errors import NativeError
from display_support import typable

pytestmark = pytest.mark.desktop
BOTH = pytest.mark.displays("x11", "sway", "kwin")
#: KWin's fake input sends keys of the session's layout only: what it lacks is refused whole
#: before any key (``test_typing_on_kwin_uses_the_layout_and_refuses_what_it_lacks``).
KWIN_LAYOUT = pytest.mark.xfail(
    strict=True,
    raises=NativeError,
    reason="KWin 5.27's fake input types with the session's layout, which has no emoji: refused before any key",
)


@pytest.fixture(params=["gtk", "qt"])
def app(request, launch, ex):
    running = launch.gtk_fixture() if request.param == "gtk" else launch.qt_fixture()
    running.events.wait_for("ready")
    return running, bind(ex, running.pid)


def _focus_canvas(running, bound):
    r = named_rect(bound.ex, bound.app.pid, "Canvas")
    since = time.monotonic()
    bound.ex.click(bound.app, point=bound.pixels(r.x + 10, r.y + 10))
    running.events.wait_for("release", since=since)


def _typed_on_canvas(running, bound, text):
    """``text`` typed as keys; the canvas logs exactly its characters."""
    since = time.monotonic()
    result = bound.ex.type_text(bound.app, text)
    assert result.structured["route"] == "key_events"

    def typed() -> str:
        return "".join(e["text"] for e in running.events.of_type("key_press", since=since) if e["text"])

    # Shift's own releases (for "A" and "?") count as key releases too, so waiting for len(text)
    # releases could read the log before the last "é" arrived: wait for the characters themselves
    poll(lambda: len(typed()) >= len(text), what="every typed character")
    assert typed() == text


@pytest.mark.displays("x11", "sway")
def test_typing_on_the_canvas_uses_keys_and_restores_the_keymap(app, desktop):
    running, bound = app
    _focus_canvas(running, bound)
    x11 = not desktop.wayland
    actor = bound.ex.actor
    if x11:  # X11: the spare keycodes a burst binds are given back
        before = [actor.keymap.row(k) for k in actor.keymap.spare]
        spare_before = list(actor.keymap.spare)
    _typed_on_canvas(running, bound, "Hé✓ A?é")
    if x11:
        actor.keymap.refresh()
        assert actor.keymap.spare == spare_before
        assert [actor.keymap.row(k) for k in spare_before] == before
    assert nothing_held(desktop, bound.ex) == ((), set())


@pytest.mark.displays("kwin")
def test_typing_on_kwin_uses_the_layout_and_refuses_what_it_lacks(app, desktop):
    # The layout's characters go in as keys (Shift for "A" and "?"); a text with one character
    # the layout lacks is refused whole, before any key, naming it and saying to paste.
    running, bound = app
    _focus_canvas(running, bound)
    _typed_on_canvas(running, bound, "Hi A?x")
    refused_at = time.monotonic()
    with pytest.raises(NativeError) as refused:
        bound.ex.type_text(bound.app, "ok é ✓")
    assert refused.value.code == "unknown_key" and refused.value.dispatched is False
    assert "'é'" in refused.value.message and "paste" in refused.value.message
    # nothing of it was sent: a key typed after the refusal is the first the canvas gets
    bound.ex.type_text(bound.app, "z")
    poll(lambda: running.events.of_type("key_press", since=refused_at), what="the key after the refusal")
    assert [e["text"] for e in running.events.of_type("key_press", since=refused_at) if e["text"]] == ["z"]
    assert nothing_held(desktop, bound.ex) == ((), set())


@BOTH
def test_named_keys_and_chords_reach_the_canvas(app, desktop):
    running, bound = app
    _focus_canvas(running, bound)
    since = time.monotonic()
    bound.ex.press_key(bound.app, "ctrl+a BackSpace Delete Return shift+Tab")
    poll(lambda: len(running.events.of_type("key_press", since=since)) >= 7, what="key presses")
    presses = [(e["keysym"], e["modifiers"]) for e in running.events.of_type("key_press", since=since)]
    # every chord in order, each modifier pressed before its key (and released before the next chord)
    assert presses == [
        ("Control_L", []),
        ("a", ["control"]),
        ("BackSpace", []),
        ("Delete", []),
        ("Return", []),
        ("Shift_L", []),
        ("ISO_Left_Tab", ["shift"]),
    ]
    assert nothing_held(desktop, bound.ex) == ((), set())


@BOTH
def test_type_text_into_an_entry_and_edit_keys(app, desktop):
    running, bound = app
    entry = bound.handle(r"text \(settable, string\) Name")
    bound.ex.click(bound.app, element=entry)
    bound.ex.set_value(bound.app, entry, "")
    since = time.monotonic()
    text = typable(desktop, "Café ✓ ABC?", "Cafe (1) ABC?")
    bound.ex.type_text(bound.app, text)
    running.events.wait_for("text", name="Name", text=text, since=since)
    # ctrl+a then BackSpace clears; typing again, Home + Delete removes the first character
    bound.ex.press_key(bound.app, "ctrl+a BackSpace")
    running.events.wait_for("text", name="Name", text="", since=since)
    bound.ex.type_text(bound.app, "xyz")
    running.events.wait_for("text", name="Name", text="xyz", since=since)
    bound.ex.press_key(bound.app, "Home Delete")
    running.events.wait_for("text", name="Name", text="yz", since=since)
    assert nothing_held(desktop, bound.ex) == ((), set())


@pytest.mark.displays("x11", "sway", "kwin", kwin=KWIN_LAYOUT)
def test_typing_after_an_emoji_continues_after_it(app):
    # The accessible-text route sets the caret after what it inserted, in the app's own offset
    # unit (Qt counts UTF-16 units, GTK code points); the next insert lands after the emoji. On
    # Wayland the keys go in, and the field is read back.
    running, bound = app
    entry = bound.handle(r"text \(settable, string\) Name")
    bound.ex.set_value(bound.app, entry, "")
    since = time.monotonic()
    bound.ex.click(bound.app, element=entry)
    # No wait for the app's focus event: type_text confirms the app took the click before it
    # reads the focus (a ping round trip).
    assert bound.ex.type_text(bound.app, "a🙂").structured["route"] == field_route(bound.ex)
    bound.ex.type_text(bound.app, "b")
    running.events.wait_for("text", name="Name", text="a🙂b", since=since)
    running.events.wait_for("selection", name="Name", start=3, end=3, since=since)


def _keymap_rows(desktop) -> list[tuple[int, ...]]:
    """The X server's whole core keymap, read on a fresh connection (none on Wayland: deskhand
    types through a virtual keyboard of its own, with its own keymap)."""
    if desktop.wayland:
        return []
    d = xdisplay.Display(f":{desktop.display}")
    try:
        lo, hi = d.display.info.min_keycode, d.display.info.max_keycode
        return [tuple(row) for row in d.get_keyboard_mapping(lo, hi - lo + 1)]
    finally:
        d.close()


def test_temporary_keys_twice_in_a_row_into_the_qt_name_field(launch, ex, desktop):
    # Two key bursts right after each other, each with characters missing from the keymap: the
    # second binds the keycodes the first used, which is only right once Qt processed the first
    # (Qt answers the ping that confirms it; before, the actor waited 1 s and restored blind).
    running = launch.qt_fixture()
    running.events.wait_for("ready")
    bound = bind(ex, running.pid)
    entry = bound.handle(r"text \(settable, string\) Name")
    bound.ex.click(bound.app, element=entry)
    bound.ex.set_value(bound.app, entry, "")
    keymap = _keymap_rows(desktop)
    for _ in range(3):
        since = time.monotonic()
        bound.ex.press_key(bound.app, "ctrl+a BackSpace")
        bound.ex.press_key(bound.app, "é ✓")
        bound.ex.press_key(bound.app, "ü ★")
        running.events.wait_for("text", name="Name", text="é✓ü★", since=since)
        texts = [e["text"] for e in running.events.of_type("text", since=since) if e["name"] == "Name"]
        assert texts[-4:] == ["é", "é✓", "é✓ü", "é✓ü★"]
        assert bound.ex.actor.keymap.temporary == {}
        assert _keymap_rows(desktop) == keymap
    assert nothing_held(desktop, bound.ex) == ((), set())


@BOTH
def test_clicked_field_gets_the_text_right_away(app, desktop):
    # type_text right after a click: it reads the focus only after the app took the click, so
    # the text goes into the field just clicked (through its accessible text, on X11).
    running, bound = app
    fields = {name: bound.handle(rf"text \(settable, string\) {name}") for name in ("Name", "Notes")}
    for i, name in enumerate(["Notes", "Name", "Notes", "Name"]):
        for handle in fields.values():
            bound.ex.set_value(bound.app, handle, "")
        since = time.monotonic()
        bound.ex.click(bound.app, element=fields[name])
        text = typable(desktop, f"{i}é", f"{i}e")
        result = bound.ex.type_text(bound.app, text)
        assert result.structured["route"] == field_route(bound.ex), i
        running.events.wait_for("text", name=name, text=text, since=since)
        names = [e["name"] for e in running.events.of_type("text", since=since)]
        # no other field got any of it (keys change the field once per character, the
        # accessible text once)
        assert set(names) == {name} and (len(names) == 1 or result.structured["route"] == "key_events"), names


def test_keys_stay_bound_until_the_app_confirms(app, desktop, monkeypatch):
    # A window that does not take pings never confirms: its temporary keycodes stay bound (a
    # second burst with the same character reuses them, a new character gets another keycode),
    # and closing the actor empties them.
    running, bound = app
    _focus_canvas(running, bound)
    keymap = _keymap_rows(desktop)
    monkeypatch.setattr(AppPing, "_takes", lambda self, window: False)
    since = time.monotonic()
    bound.ex.type_text(bound.app, "é✓")
    bound.ex.type_text(bound.app, "éü")
    poll(lambda: len(running.events.of_type("key_release", since=since)) >= 4, what="key releases")
    typed = "".join(e["text"] for e in running.events.of_type("key_press", since=since) if e["text"])
    assert typed == "é✓éü"
    actor = bound.ex.actor
    assert sorted(actor.keymap.temporary.values()) == sorted(char_keysym(c) for c in "é✓ü")
    assert _keymap_rows(desktop) != keymap
    actor.close()  # the executor's close at the end closes it again, which does nothing
    assert _keymap_rows(desktop) == keymap


def test_close_closes_the_connections_when_the_keymap_restore_fails(ex, monkeypatch):
    actor = ex.actor
    owner = actor.session.clipboard()
    monkeypatch.setitem(actor.keymap.temporary, 255, char_keysym("é"))

    def lost(**_kw):
        raise ConnectionResetError("the X server went away")

    monkeypatch.setattr(actor.typing.keystrokes, "reclaim", lost)
    with pytest.raises(ConnectionResetError):
        actor.close()
    assert not owner._thread.is_alive()
    assert actor.session.clipboard_owner is None
    assert actor.session.d.display.socket_error is not None  # closed
