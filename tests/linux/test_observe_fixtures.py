"""get_app_state against the GTK 3 and Qt 6 fixtures: known controls, diffs, full text, restart,
deadline; on X11 and on sway (``displays``)."""

from __future__ import annotations

import os
import re
import signal
import time
from dataclasses import dataclass

import pytest

from deskhand.backends.linux.atspi.connection import ACTION, EDITABLE_TEXT, Call
from deskhand.core.axtree.notices import IDENTICAL_CAPTURE
from deskhand.core.errors import NativeError
from display_support import executor_for

pytestmark = [pytest.mark.desktop, pytest.mark.displays("x11", "sway", "kwin")]


@dataclass(frozen=True)
class Toolkit:
    launcher: str  # the ``launch`` helper that starts the fixture
    app_id: str
    title: str
    details: str  # role text of the "Details" expander


TOOLKITS = [
    Toolkit("gtk_fixture", "gtk_fixture.py", "Deskhand GTK Fixture", "toggle button"),
    Toolkit("qt_fixture", "qt_fixture.py", "Deskhand Qt Fixture", "check box"),
]


@pytest.fixture(params=TOOLKITS, ids=lambda t: t.launcher.split("_")[0])
def kit(request) -> Toolkit:
    return request.param


def start(launch, kit: Toolkit):
    return started(getattr(launch, kit.launcher)())


def started(fx):
    """The fixture once its window is mapped (it logs ``ready`` from its map handler)."""
    fx.events.wait_for("ready")
    return fx


def handle_of(text: str, pattern: str) -> str:
    m = re.search(r"(g\d+:\d+)" + pattern, text)
    assert m, f"{pattern!r} not in:\n{text}"
    return m.group(1)


def test_full_state_has_known_controls(launch, executor, kit):
    fx = start(launch, kit)
    app = executor.resolve(str(fx.pid))
    state = executor.get_app_state(app)
    text = state.text
    assert text.startswith(f"App={kit.app_id} (pid {fx.pid})\n")
    assert f'Window: "{kit.title}"' in text
    assert re.search(r"\tg\d+:\d+ push button Apply(, Secondary Actions: .*)?$", text, re.M)
    assert re.search(r"\tg\d+:\d+ push button Reset(, Secondary Actions: .*)?$", text, re.M)
    assert re.search(r"\tg\d+:\d+ check box Enable sync, Value: off$", text, re.M)
    assert re.search(r"\tg\d+:\d+ text \(settable, string\) Name$", text, re.M)
    assert re.search(r"\tg\d+:\d+ text \(settable, string\) Notes$", text, re.M)
    assert re.search(r"\tg\d+:\d+ slider \(settable, float\) Volume, (.*, )?Value: 0(, .*)?$", text, re.M)
    assert re.search(r"\tg\d+:\d+ (list|list box) Rows \(showing 0-\d+ of 40 items\)(, .*)?$", text, re.M)
    assert re.search(r"\tg\d+:\d+ row Row 1(, .*)?$", text, re.M)
    assert re.search(rf"\tg\d+:\d+ {kit.details} Details, Value: off$", text, re.M)
    assert state.image is not None and state.image.mime_type == "image/jpeg"
    assert state.image.data[:2] == b"\xff\xd8"


def test_change_in_app_comes_back_as_diff(launch, executor, kit):
    fx = start(launch, kit)
    app = executor.resolve(str(fx.pid))
    first = executor.get_app_state(app).text
    epoch = handle_of(first, " ").split(":")[0]
    entry = executor.element(app, handle_of(first, r" text \(settable, string\) Name"))
    check = executor.element(app, handle_of(first, r" check box Enable sync"))
    # Change the app from its own side: its entry's text and its check box's state.
    executor.atspi.call(Call(entry.ref.bus, entry.ref.path, EDITABLE_TEXT, "SetTextContents", "s", ("hello",)))
    executor.atspi.call(Call(check.ref.bus, check.ref.path, ACTION, "DoAction", "i", (0,)))
    fx.events.wait_for("text", name="Name", text="hello")
    fx.events.wait_for("toggled", name="Enable sync", active=True)

    diff = executor.get_app_state(app).text
    assert diff.startswith("The following is a diff from the previous accessibility tree")
    assert re.search(r"^~\t+" + epoch + r":\d+ text \(settable, string\) Name, Value: hello$", diff, re.M), diff
    assert re.search(r"^~\t+" + epoch + r":\d+ check box Enable sync, Value: on$", diff, re.M), diff
    assert "App=" not in diff

    # No change: the no-change text; disable_diff: the full tree in the same epoch.
    again = executor.get_app_state(app).text
    assert again.startswith(f'There has been no change in the accessibility tree for Window: "{kit.title}".')
    full = executor.get_app_state(app, disable_diff=True).text
    assert full.startswith(f"App={kit.app_id}")
    assert handle_of(full, " ").split(":")[0] == epoch


def test_added_and_removed_elements(launch, executor, kit):
    fx = start(launch, kit)
    app = executor.resolve(str(fx.pid))
    first = executor.get_app_state(app).text
    expander = handle_of(first, " " + kit.details + " Details")
    # observed right after the action, with no wait of our own: the action's settle (6.12) makes
    # the change visible; the app's log confirms it afterwards
    executor.click(app, element=expander)
    opened = executor.get_app_state(app).text
    fx.events.wait_for("expanded", name="Details", expanded=True)
    assert re.search(r"^\+\t+g\d+:(\d+) label Hidden details text$", opened, re.M), opened
    added = int(re.search(r"^\+\t+g\d+:(\d+) label Hidden details text$", opened, re.M).group(1))
    executor.click(app, element=expander)
    closed = executor.get_app_state(app).text
    fx.events.wait_for("expanded", name="Details", expanded=False)
    removed = re.search(r"^Removed element IDs: (.+)$", closed, re.M)
    assert removed, closed
    ids: set[int] = set()
    for part in removed.group(1).split(", "):
        a, _, b = part.partition("-")
        ids.update(range(int(a), int(b or a) + 1))
    assert added in ids


def test_restart_gives_a_new_view_and_epoch_and_the_old_handle_process_gone(launch, executor, kit):
    fx = start(launch, kit)
    app = executor.resolve(str(fx.pid))
    text = executor.get_app_state(app).text
    apply_handle = handle_of(text, " push button Apply")
    fx.app.stop()
    fx2 = start(launch, kit)
    app2 = executor.resolve(str(fx2.pid))
    assert app2.identity != app.identity
    text2 = executor.get_app_state(app2).text
    assert text2.startswith(f"App={kit.app_id}")
    assert handle_of(text2, " ").split(":")[0] != apply_handle.split(":")[0]
    with pytest.raises(NativeError) as err:
        executor.element(app2, apply_handle)  # the new process has a view of its own
    assert err.value.code == "stale_snapshot"
    with pytest.raises(NativeError) as err:
        executor.element(app, apply_handle)  # the old view's handle names a process that is gone
    assert err.value.code == "process_gone"
    with pytest.raises(NativeError) as err:
        executor.verify_identity(app)
    assert err.value.code == "process_gone"


def test_stopped_app_ends_by_deadline(launch, desktop, kit):
    ex = executor_for(desktop, observe_timeout_s=1.0)
    try:
        fx = start(launch, kit)
        app = ex.resolve(str(fx.pid))
        ex.get_app_state(app)
        os.kill(fx.pid, signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            try:
                state = ex.get_app_state(app, disable_diff=True)
                assert "stopped answering" in state.text
            except NativeError as e:
                assert e.code == "ax_failed"
                assert "did not answer" in e.message
            assert time.monotonic() - t0 < 5.0  # bounded by the deadline, not the 25 s D-Bus default
            # deskhand stays responsive: discovery still answers quickly.
            t1 = time.monotonic()
            assert any(a.pid == fx.pid for a in ex.list_apps())
            assert time.monotonic() - t1 < 5.0
        finally:
            os.kill(fx.pid, signal.SIGCONT)
        # Once it runs again, the next observation is complete.
        assert "push button Apply" in ex.get_app_state(app, disable_diff=True).text
    finally:
        ex.close()


def test_reads_reuse_no_reply_so_a_change_between_two_reads_always_appears(launch, desktop, executor, kit):
    """Consecutive reads of an unchanged app give the no-change text. A change made between two
    reads (a value, a state, a subtree that was hidden) appears in the next one, although that
    read starts from the calls of the one before; and its full text equals a fresh executor's."""
    fx = start(launch, kit)
    app = executor.resolve(str(fx.pid))
    first = executor.get_app_state(app).text
    again = executor.get_app_state(app).text
    assert again.startswith(f'There has been no change in the accessibility tree for Window: "{kit.title}".'), again

    # three actions, then the next read at once (no wait for the app's log): it shows all three
    executor.set_value(app, handle_of(first, r" text \(settable, string\) Name"), "cached?")
    executor.click(app, element=handle_of(first, r" check box Enable sync"))
    executor.click(app, element=handle_of(first, " " + kit.details + " Details"))
    diff = executor.get_app_state(app).text
    fx.events.wait_for("text", name="Name", text="cached?")
    fx.events.wait_for("toggled", name="Enable sync", active=True)
    fx.events.wait_for("expanded", name="Details", expanded=True)
    assert re.search(r"^~\t+g\d+:\d+ text \(settable, string\) Name, Value: cached\?$", diff, re.M), diff
    assert re.search(r"^~\t+g\d+:\d+ check box Enable sync, Value: on$", diff, re.M), diff
    assert re.search(r"^\+\t+g\d+:\d+ label Hidden details text$", diff, re.M), diff
    assert executor.get_app_state(app).text.startswith("There has been no change")

    fresh = executor_for(desktop)
    try:
        fresh_text = fresh.get_app_state(fresh.resolve(str(fx.pid)), disable_diff=True).text
    finally:
        fresh.close()
    ours = executor.get_app_state(app, disable_diff=True).text
    # The identical-capture notice (always last) compares with this executor's previous capture,
    # which the fresh executor does not have.
    ours = re.sub(r"\n+" + re.escape(IDENTICAL_CAPTURE) + "$", "", ours)
    assert without_handles(ours) == without_handles(fresh_text)


def without_handles(text: str) -> str:
    return re.sub(r"g\d+:\d+", "gN:N", text)
