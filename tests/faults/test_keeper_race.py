"""A copy made in the instant the clipboard keeper takes over wins (issue 14, the keeper's race).

deskhand closes while it owns the user's restored clipboard, with no clipboard manager: it starts a
keeper process. The user copies exactly while that keeper starts: a watcher sees the keeper's
window created on the root (``CreateNotify``) and copies at once, before the keeper has taken the
selection. The keeper takes it with deskhand's own timestamp, which the X server refuses after
that copy (ICCCM 2.1), so the copy stays: the copier still owns CLIPBOARD (it got no
``SelectionClear``), ``xclip`` reads the copy, and the keeper exits. Several rounds, each checked.

Then the copy is swept over the whole takeover: at the keeper's window, and 1 ms to 200 ms after it
(before it has taken the selection, while it takes it, after it holds it). Whichever side of the
take the copy lands on, the copy stays: the copier owns CLIPBOARD, ``xclip`` reads it, and the
keeper exits instead of taking it back.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time

import pytest
from _act_support import poll
from clip_support import xclip
from Xlib import X, display

from deskhand.backends.linux.x11.clipboard.owner import ClipboardOwner, text_items
from deskhand.desktop import VirtualDesktop
from proc_support import alive

pytestmark = pytest.mark.desktop

ROUNDS = 5


#: when the copy is made, after the keeper's window appears (seconds): the takeover swept
SWEEP_S = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2)


def _copy_when_a_window_appears(
    display_name: str, copier: ClipboardOwner, text: str, after_s: float = 0.0
) -> tuple[threading.Thread, threading.Event, list[str]]:
    """A thread that copies ``text`` as soon as any window is created on the root (the keeper's),
    or ``after_s`` later (a point in the takeover to copy at, not a synchronization)."""
    d = display.Display(display_name)
    d.screen().root.change_attributes(event_mask=X.SubstructureNotifyMask)
    d.sync()
    ready = threading.Event()
    errors: list[str] = []

    def watch() -> None:
        try:
            ready.set()
            while True:
                ev = d.next_event()
                if ev.type == X.CreateNotify:
                    if after_s:
                        time.sleep(after_s)
                    copier.own(text_items(text))
                    return
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            d.close()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread, ready, errors


@pytest.mark.parametrize("sweep", [False, True], ids=["at-its-window", "swept-over-the-takeover"])
def test_a_copy_made_as_the_keeper_starts_wins(desktop, sweep):
    name = desktop.env["DISPLAY"]
    env = {**os.environ, "DISPLAY": name}
    delays = SWEEP_S if sweep else (0.0,) * ROUNDS
    for round_, after_s in enumerate(delays):
        copier = ClipboardOwner(name)  # created first: its own window is not the one watched for
        deskhand = ClipboardOwner(name)
        keeper: int | None = None
        try:
            deskhand.own(text_items(f"the user's restored clipboard {round_}"))
            copied = f"copied as the keeper starts {round_}"
            thread, ready, errors = _copy_when_a_window_appears(name, copier, copied, after_s)
            assert ready.wait(5.0)
            deskhand.close()  # hands off: no manager runs, so a keeper is started
            thread.join(10.0)
            assert not thread.is_alive() and errors == [], errors
            keeper = deskhand.keeper_pid
            assert keeper is not None, "deskhand did not see the clipboard leave (the copy took it)"
            poll(lambda k=keeper: not alive(k), 10.0, "the keeper exits: it never got the clipboard, or lost it")
            keeper = None
            assert copier.owns, f"round {round_} (copy {after_s * 1000:g} ms in): the keeper overwrote the user's copy"
            assert xclip(env, "UTF8_STRING").decode() == copied
        finally:
            deskhand.close(hand_off=False)
            copier.close(hand_off=False)
            if keeper is not None and alive(keeper):
                os.kill(keeper, 9)


def test_a_copy_made_while_a_clipboard_manager_saves_wins(tmp_path):
    """The same race through a real clipboard manager (xfsettingsd's SAVE_TARGETS): the user copies
    after deskhand has answered the manager's MULTIPLE request and before the manager takes
    CLIPBOARD. A watcher makes that order certain: it stops the manager (SIGSTOP) when it asks for
    the items (its MULTIPLE property appears), copies once deskhand wrote them into the manager's
    window, and lets the manager go on. deskhand asks the manager to save as of the time it took
    the clipboard, so the manager's take is refused after that copy."""
    if shutil.which("xfsettingsd") is None:
        pytest.skip("xfsettingsd is not installed (xfce4-settings; `make deps` installs it)")
    vd = VirtualDesktop()
    vd.start()
    try:
        name = vd.env["DISPLAY"]
        d = display.Display(name)
        xfsettingsd = vd.launch(["xfsettingsd", "--disable-wm-check"], log_path=tmp_path / "xfsettingsd.log")
        manager = poll(lambda: d.get_selection_owner(d.intern_atom("CLIPBOARD_MANAGER")) or None, 20.0, "a manager")
        copier = ClipboardOwner(name)
        deskhand = ClipboardOwner(name)
        try:
            deskhand.own(text_items("the user's restored clipboard"))
            watch = display.Display(name)
            watch.create_resource_object("window", manager.id).change_attributes(event_mask=X.PropertyChangeMask)
            watch.sync()
            multiple, target = watch.intern_atom("MULTIPLE"), watch.intern_atom("UTF8_STRING")
            copied = "copied while the manager saves"

            def copy_on_save() -> None:
                while True:
                    ev = watch.next_event()
                    if ev.type != X.PropertyNotify or ev.state != X.PropertyNewValue:
                        continue
                    if ev.atom == multiple:  # it asks for the items: hold it before it takes CLIPBOARD
                        os.kill(xfsettingsd.pid, signal.SIGSTOP)
                    elif ev.atom == target:  # deskhand answered: the user copies now
                        try:
                            copier.own(text_items(copied))
                        finally:
                            os.kill(xfsettingsd.pid, signal.SIGCONT)
                        return

            thread = threading.Thread(target=copy_on_save, daemon=True)
            thread.start()
            deskhand.close()
            thread.join(10.0)
            assert not thread.is_alive(), "the manager never read the items"
            watch.close()
            assert deskhand.keeper_pid is None
            assert copier.owns, "the clipboard manager overwrote the user's copy"
            env = {**os.environ, **vd.env}
            assert xclip(env, "UTF8_STRING").decode() == copied
        finally:
            deskhand.close(hand_off=False)
            copier.close(hand_off=False)
            d.close()
    finally:
        vd.stop()
