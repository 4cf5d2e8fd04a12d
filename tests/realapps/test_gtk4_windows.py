"""GTK 4 (4.8) answers bounds relative to each window: an element of a window that is not the key
window is placed, and acted on, by its own window's origin. gnome-text-editor opens two files in
one window, moves the second into a window of its own (the new key window), and the two windows
are placed apart; a click by handle on the first window's text view (a real click: it places the
caret) must land in that view: the caret of the first view moves to the line clicked, and the
second view's stays where it was (each read from the app's accessibility tree). deskhand's
desktop runs openbox with no click-to-focus grab, so the click does not make that window the key
window."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps, need
from _observe import handle, inside, state_with

from deskhand.backends.linux.atspi.element import Ref
from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.x11.windows import windows_of

pytestmark = pytest.mark.slow

VIEW = r"text \(settable, string\) EditorSourceView, Value: "


def move(ex: LinuxExecutor, app: Any, title: str, x: int, y: int) -> None:
    """Move the app's window titled ``title`` so that its client area starts at (x, y)."""
    deadline = time.monotonic() + 10
    while True:
        win = next((w for w in windows_of(ex.x, app.pid) if w.title.startswith(title)), None)
        if win is not None:
            with ex.x.lock:
                ex.x.window(win.id).configure(x=x, y=y)
                ex.x.display.sync()
            if (win.client.x, win.client.y) == (x, y):
                return
        assert time.monotonic() < deadline, (title, windows_of(ex.x, app.pid))
        time.sleep(0.05)  # polling the window's position with a deadline


@pytest.mark.matrix("gnome-text-editor", "windows")
def test_a_click_by_handle_in_a_window_that_is_not_the_key_window_lands_there(
    apps: Apps, mex: LinuxExecutor, tmp_path: Path
) -> None:
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("".join(f"alpha {i:02}\n" for i in range(60)))
    second.write_text("".join(f"omega {i:02}\n" for i in range(60)))
    running = apps.run([need("gnome-text-editor"), "--standalone", str(first), str(second)], "gnome-text-editor")
    app = mex.resolve(str(running.pid))
    state = state_with(mex, app, r"^g\d+:\d+ frame second\.txt")
    frame = handle(state, r"frame second\.txt")
    mex.perform_secondary_action(app, frame, "page.move-to-new-window")
    state_with(mex, app, r"^g\d+:\d+ frame first\.txt")
    move(mex, app, "first.txt", 30, 40)
    move(mex, app, "second.txt", 560, 380)
    state = state_with(mex, app, VIEW + r"alpha")
    key = mex.key_window(app)
    assert key is not None and key.title.startswith("second.txt"), key
    windows = {w.title.split(" ", 1)[0]: w for w in windows_of(mex.x, app.pid)}
    view = mex.element(app, handle(state, VIEW + r"alpha")).frame
    assert view is not None and inside(view, windows["first.txt"].client), (view, windows)
    other = mex.element(app, handle(state, VIEW + r"omega")).frame
    assert other is not None and inside(other, windows["second.txt"].client), (other, windows)

    a11y = mex.actor.a11y
    refs = [mex.element(app, handle(state, VIEW + word)).ref for word in ("alpha", "omega")]
    first_view, second_view = (Ref(r.bus, r.path) for r in refs)  # type: ignore[attr-defined]
    carets = a11y.caret(first_view), a11y.caret(second_view)
    assert carets == (0, 0), carets
    mex.click(app, element=handle(state, VIEW + r"alpha"))
    # The line at the middle of the view: the caret is on it, well past the first lines.
    deadline = time.monotonic() + 10
    while (caret := a11y.caret(first_view) or 0) == 0:
        assert time.monotonic() < deadline, (a11y.caret(first_view), a11y.caret(second_view))
        time.sleep(0.05)  # polling the app's caret with a deadline
    text = first.read_text()
    line = text[:caret].count("\n")
    assert 5 <= line < 40, (caret, line)
    assert a11y.caret(second_view) == 0
