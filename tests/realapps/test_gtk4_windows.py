"""GTK 4 (4.8) answers bounds relative to each window: an element of a window that is not the key
window is placed, and acted on, by its own window's origin. gnome-text-editor opens two files in
one window, moves the second into a window of its own (the new key window), and the two windows
are placed apart; a click by handle on the first window's text view (a real click: it places the
caret) must land in that view: the caret of the first view moves to the line clicked, and the
second view's stays where it was (each read from the app's accessibility tree). deskhand's
desktop runs openbox with no click-to-focus grab, so the click does not make that window the key
window. On sway the click focuses (and raises) the window it lands in, as a user's would."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from _apps import Apps, need
from _display import MatrixExecutor, a11y_of, element_ref
from _observe import handle, inside, state_with

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.x11.windows import windows_of
from deskhand.core.geometry import Rect

pytestmark = [pytest.mark.slow, pytest.mark.displays("x11", "sway")]

VIEW = r"text \(settable, string\) EditorSourceView, Value: "


def clients(ex: MatrixExecutor, pid: int) -> dict[str, Rect]:
    """The app's windows' client rects by title."""
    if isinstance(ex, LinuxExecutor):
        return {w.title: w.client for w in windows_of(ex.x, pid)}
    return {v.title: Rect(*v.rect) for v in ex.views() if v.pid == pid}


def move(ex: MatrixExecutor, app: Any, title: str, x: int, y: int) -> None:
    """Move the app's window titled ``title`` so that its client area starts at (x, y)."""
    deadline = time.monotonic() + 10
    while True:
        if isinstance(ex, LinuxExecutor):
            win = next((w for w in windows_of(ex.x, app.pid) if w.title.startswith(title)), None)
            if win is not None:
                with ex.x.lock:
                    ex.x.window(win.id).configure(x=x, y=y)
                    ex.x.display.sync()
                if (win.client.x, win.client.y) == (x, y):
                    return
        else:
            view = next((v for v in ex.views() if v.pid == app.pid and v.title.startswith(title)), None)
            if view is not None:
                ex.compositor.place(view.id, x, y, view.rect[2], view.rect[3])
                if view.rect[:2] == (x, y):
                    return
        assert time.monotonic() < deadline, (title, clients(ex, app.pid))
        time.sleep(0.05)  # polling the window's position with a deadline


@pytest.mark.matrix("gnome-text-editor", "windows")
def test_a_click_by_handle_in_a_window_that_is_not_the_key_window_lands_there(
    apps: Apps, mex: MatrixExecutor, tmp_path: Path
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
    assert re.search(r'^Window: "second\.txt', state, re.M), state  # the key window
    windows = {title.split(" ", 1)[0]: rect for title, rect in clients(mex, app.pid).items()}
    (view, first_view), (other, second_view) = (
        element_ref(mex, app, handle(state, VIEW + w)) for w in ("alpha", "omega")
    )
    assert view.frame is not None and inside(view.frame, windows["first.txt"]), (view.frame, windows)
    assert other.frame is not None and inside(other.frame, windows["second.txt"]), (other.frame, windows)

    a11y = a11y_of(mex)
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
