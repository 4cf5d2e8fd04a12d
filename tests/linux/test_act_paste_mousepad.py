"""Paste into Mousepad (a real Debian GTK app), checked through Mousepad's own AT-SPI document text.

Every test sets the clipboard it starts from with a separate client (its own X connection and
thread) and reads the clipboard back afterwards with yet another one, so "the clipboard holds
exactly what it held before" is checked over the wire, target by target.

No previous owner: X has no clipboard storage, an empty clipboard is a selection with no owner.
The paste takes the selection, and the restore gives it up again, so the clipboard is empty
afterwards (nobody owns it) rather than kept alive by us with nothing in it.

The paste itself runs on X11 and on sway (``displays``; the user's clipboard is another client's on
either server, ``_clip_support``); the X11 owner's own corners (bad atoms in TARGETS, a missing
server timestamp, a call given up on) stay X11.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from _act_support import bind, mousepad_env, nothing_held, poll
from _clip_support import OtherClient, clear_clipboard, clipboard_now
from Xlib import X
from Xlib import display as xdisplay

from deskhand.backends.linux.atspi.connection import Deadline
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner, Snapshot, text_items
from deskhand.core.errors import NativeError

pytestmark = pytest.mark.desktop
BOTH = pytest.mark.displays("x11", "sway", "kwin")

MOUSEPAD = shutil.which("mousepad")
EDITABLE_TEXT = "org.a11y.atspi.EditableText"


@pytest.fixture
def mousepad(launch, ex, tmp_path: Path):
    if MOUSEPAD is None:
        pytest.skip("mousepad is not installed (apt-get install mousepad)")
    running = launch([MOUSEPAD, "--disable-server"], env=mousepad_env(tmp_path))
    bound = bind(ex, running.pid)
    doc = poll(lambda: _document(ex, running.pid), what="Mousepad's document text on AT-SPI")
    return bound, doc


def _document(ex: LinuxExecutor, pid: int) -> Ref | None:
    """Mousepad's document: its editable text element, found on the bus independently of the actor."""
    buses = ex.atspi.apps(Deadline(2.0))
    bus = next((b for b, p in ex.atspi.pids(buses, Deadline(2.0)).items() if p == pid), None)
    if bus is None:
        return None
    nodes = ex.atspi.snapshot(bus, Deadline(3.0)).nodes.values()
    return next((Ref(bus, n.path) for n in nodes if EDITABLE_TEXT in n.interfaces), None)


def _read_clipboard(desktop: Any) -> Snapshot:
    reader = ClipboardOwner(f":{desktop.display}")
    try:
        return reader.snapshot()
    finally:
        reader.close()


def _clipboard_owner(desktop: Any) -> int:
    d = xdisplay.Display(f":{desktop.display}")
    try:
        owner = d.get_selection_owner(d.intern_atom("CLIPBOARD"))
        return 0 if owner in (None, X.NONE) else int(owner.id)
    finally:
        d.close()


#: What another app had copied: text, HTML and a private binary type.
PREVIOUS = ("previous clip ✓", "<i>previous</i>", {"application/x-deskhand-test": bytes(range(256))})


@BOTH
@pytest.mark.parametrize(
    ("fmt", "content", "inserted"),
    [
        ("text", "héllo ✓ Mousepad?", "héllo ✓ Mousepad?"),
        ("md", "**bold** _x_", "**bold** _x_"),
        ("html", "<p><b>Hi</b> there</p>", "Hi there"),
    ],
)
def test_paste_into_mousepad_restores_the_clipboard(mousepad, ex, desktop, fmt, content, inserted):
    bound, doc = mousepad
    a11y = A11y(ex.atspi)
    assert a11y.set_text_contents(doc, "")
    other = OtherClient(desktop)
    try:
        other.own(*PREVIOUS)
        before = clipboard_now(desktop)
        assert set(before) >= {"text/html", "application/x-deskhand-test"}

        result = bound.ex.paste(bound.app, content, fmt)

        assert poll(lambda: a11y.text(doc) == inserted, what=f"Mousepad's text == {inserted!r}")
        receipt = result.structured["receipt"]
        assert receipt["status"] == "completed"
        assert result.structured["clipboard_consumed"] is True
        assert result.structured["clipboard_restored"] is True
        if not desktop.wayland:
            # Mousepad asked for a text target after the keys (GTK first tries its private target).
            assert any(t in ("text/plain;charset=utf-8", "UTF8_STRING") for t in ex.actor.session.clipboard().reads())
        # Every target of the previous clipboard, byte for byte, now served by our owner.
        poll(lambda: not other.owns, what="the other client no longer the owner")
        assert clipboard_now(desktop) == before
    finally:
        other.close()
    assert nothing_held(desktop, ex) == ((), set())


@BOTH
def test_paste_with_no_previous_owner_leaves_the_clipboard_empty(mousepad, ex, desktop, capfd):
    bound, doc = mousepad
    a11y = A11y(ex.atspi)
    assert a11y.set_text_contents(doc, "")
    clear_clipboard(desktop)
    assert clipboard_now(desktop) == {}
    if not desktop.wayland:
        assert _clipboard_owner(desktop) == 0

    result = bound.ex.paste(bound.app, "from nowhere", "text")

    assert poll(lambda: a11y.text(doc) == "from nowhere", what="Mousepad's text")
    assert result.structured["clipboard_restored"] is True
    assert clipboard_now(desktop) == {}
    if not desktop.wayland:
        assert _clipboard_owner(desktop) == 0
    assert "BadAtom" not in capfd.readouterr().err


class _SloppyOwner(ClipboardOwner):
    """A real X client whose TARGETS list also holds atom 0 and an id the server never assigned."""

    def _answer(self, requestor: Any, prop: int, target: str) -> bool:
        if target != "TARGETS":
            return super()._answer(requestor, prop, target)
        atoms = [self._atom(n) for n in ("TARGETS", *self._items)] + [0, 0x1FFFFFFF]
        requestor.change_property(prop, self._atom("ATOM"), 32, atoms)
        return True


def test_previous_owner_listing_bad_atoms(mousepad, ex, desktop, capfd):
    bound, doc = mousepad
    a11y = A11y(ex.atspi)
    assert a11y.set_text_contents(doc, "")
    sloppy = _SloppyOwner(f":{desktop.display}")
    try:
        sloppy.own(text_items("kept"))
        result = bound.ex.paste(bound.app, "over bad atoms", "text")
        assert poll(lambda: a11y.text(doc) == "over bad atoms", what="Mousepad's text")
        assert result.structured["clipboard_restored"] is True
        after = _read_clipboard(desktop)
        assert dict(after.items) == dict(text_items("kept"))
    finally:
        sloppy.close()
    assert "BadAtom" not in capfd.readouterr().err


@BOTH
def test_text_events_count_the_documents_changes(mousepad, ex):
    # The paste's event signal: Mousepad's document emits object:text-changed and
    # object:text-caret-moved once someone registered for them; the counter sees only this element.
    from deskhand.backends.linux.act.paste import TEXT_EVENTS, TextEvents  # noqa: PLC0415

    bound, doc = mousepad
    a11y = A11y(ex.atspi)
    assert a11y.set_text_contents(doc, "")
    ex.actor.session.register_events(TEXT_EVENTS)
    events = TextEvents(ex.actor.session.a11y_address, doc)
    try:
        assert events.count() == 0
        # The app learns of the registration asynchronously: edit until its events arrive.
        poll(lambda: a11y.insert_text(doc, 0, "x") and events.count() > 0, what="a text event from the document")
        seen = events.count()
        result = bound.ex.paste(bound.app, "pasted", "text")
        assert result.structured["receipt"]["status"] == "completed"
        poll(lambda: events.count() > seen, what="text events from the paste")
    finally:
        events.close()


def test_no_server_timestamp_is_a_write_failure_that_keeps_the_restored_items(desktop, monkeypatch):
    owner = ClipboardOwner(f":{desktop.display}")
    try:
        restored = Snapshot(text_items("the user's text"))
        owner.restore(restored, owner.own(text_items("pasted")))
        assert owner.owns

        def no_notify(_match, _deadline):  # what _wait raises at its deadline
            raise NativeError("clipboard_snapshot_failed", "did not answer", dispatched=False)

        monkeypatch.setattr(owner, "_wait", no_notify)
        with pytest.raises(NativeError) as err:
            owner.own(text_items("next paste"))
        assert (err.value.code, err.value.dispatched) == ("clipboard_write_failed", False)
        assert owner.owns
        assert owner._items == dict(restored.items)
    finally:
        owner.close()


def test_a_clipboard_call_given_up_on_never_runs_late(desktop):
    """A caller that timed out got `clipboard_write_failed` (not dispatched): the queued call must
    not run afterwards (a late own() would take the user's clipboard with nothing to restore it)."""
    owner = ClipboardOwner(f":{desktop.display}")
    release = threading.Event()
    ran: list[str] = []
    try:
        blocker = threading.Thread(target=lambda: owner._call(release.wait, timeout_s=10), daemon=True)
        blocker.start()
        poll(lambda: not owner._calls.qsize(), what="the owner thread busy with the blocker")
        with pytest.raises(NativeError) as err:
            owner._call(lambda: ran.append("late"), timeout_s=0.05)
        assert err.value.code == "clipboard_write_failed"
        assert err.value.dispatched is False
        release.set()
        blocker.join(5)
        assert owner._call(lambda: "next") == "next"  # the thread is free again and serves new calls
        assert ran == []
    finally:
        release.set()
        owner.close()
