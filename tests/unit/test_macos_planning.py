"""macOS backend, pure: window choice and binding, pasteboard payloads and snapshots, identity and inventory."""

from __future__ import annotations

import pytest

from deskhand.backends.base import ProcessIdentity
from deskhand.backends.macos import _identity, _pasteplan
from deskhand.backends.macos import _windows as win
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point, Rect
from deskhand.core.paste import PastePayload


def _info(number: int, pid: int, x: float, y: float, w: float, h: float, **extra: object) -> dict[str, object]:
    return {
        "kCGWindowNumber": number,
        "kCGWindowOwnerPID": pid,
        "kCGWindowBounds": {"X": x, "Y": y, "Width": w, "Height": h},
        "kCGWindowLayer": extra.get("layer", 0),
        "kCGWindowIsOnscreen": extra.get("on_screen", True),
        "kCGWindowName": extra.get("title", ""),
    }


WINDOWS = win.parse_all(
    [
        _info(1, 10, 0, 0, 300, 200, title="Small"),
        _info(2, 10, 50, 50, 800, 600, on_screen=False, title="Big hidden"),
        _info(3, 10, 0, 0, 1, 500),
        _info(4, 11, 0, 0, 2000, 2000),
        _info(5, 10, 0, 0, 50, 50, layer=25),
        {"kCGWindowNumber": 6},  # no owner, no bounds: skipped
    ]
)


def test_parse_skips_incomplete_entries() -> None:
    assert [w.id for w in WINDOWS] == [1, 2, 3, 4, 5]
    assert WINDOWS[0].frame == Rect(0, 0, 300, 200) and WINDOWS[0].title == "Small"


def test_capture_choice_key_window_exact_else_best_score() -> None:
    assert win.capture_window(WINDOWS, 10, key_window_id=2, app_frontmost=True) == WINDOWS[1]
    assert win.capture_window(WINDOWS, 10, key_window_id=99, app_frontmost=True) is None
    # area 60000 + 1,000,000 + 2,000,000 (on screen, frontmost) beats 480000 off screen
    assert win.capture_window(WINDOWS, 10, key_window_id=None, app_frontmost=True) == WINDOWS[0]
    assert win.capture_window(WINDOWS, 12, key_window_id=None, app_frontmost=True) is None


def test_bind_at_point_front_most_on_screen_layer_zero() -> None:
    assert win.bind_at_point(WINDOWS, 10, Point(10, 10)).id == 1
    with pytest.raises(NativeError) as outside:
        win.bind_at_point(WINDOWS, 10, Point(700, 500))
    assert outside.value.code == "point_outside_target_window"
    with pytest.raises(NativeError) as off:
        win.bind_at_point(win.parse_all([_info(9, 12, 0, 0, 9, 9, on_screen=False)]), 12, Point(1, 1))
    assert off.value.code == "target_window_offscreen"


def test_match_ax_window_by_frame_then_title() -> None:
    assert win.match_ax_window(Rect(50, 50, 800, 600), None, WINDOWS) == WINDOWS[1]
    assert win.match_ax_window(Rect(50.3, 50, 800, 600), "x", WINDOWS) == WINDOWS[1]
    assert win.match_ax_window(None, "Small", WINDOWS) == WINDOWS[0]
    assert win.match_ax_window(Rect(7, 7, 7, 7), "nothing", WINDOWS) is None


def test_pasteboard_types_per_format() -> None:
    assert _pasteplan.pasteboard_types(PastePayload.build("hi", "text")) == (("public.utf8-plain-text", b"hi"),)
    md = dict(_pasteplan.pasteboard_types(PastePayload.build("**b**", "md")))
    assert md["public.utf8-plain-text"] == b"**b**" and b"<strong>b</strong>" in md["public.html"]
    html = _pasteplan.pasteboard_types(PastePayload.build("<p>x</p>", "html"))
    assert [uti for uti, _ in html] == ["public.html", "public.utf8-plain-text"]
    payload = PastePayload.build("hi", "text")
    assert payload.is_read("public.utf8-plain-text")  # a provider request is a read for the core


def test_snapshot_checks() -> None:
    snap = _pasteplan.check_snapshot(
        [[("public.utf8-plain-text", b"a"), ("public.rtf", b"{}")]], declared_types=["x"], count_before=4, count_after=4
    )
    assert snap.items == ((("public.utf8-plain-text", b"a"), ("public.rtf", b"{}")),) and snap.change_count == 4
    assert _pasteplan.check_snapshot([], declared_types=[], count_before=1, count_after=1).items == ()
    for items, declared, after in (([[("t", None)]], ["t"], 1), ([], ["t"], 1), ([], [], 2)):
        with pytest.raises(NativeError) as info:
            _pasteplan.check_snapshot(items, declared_types=declared, count_before=1, count_after=after)
        assert info.value.code == "clipboard_snapshot_failed" and info.value.dispatched is False
    assert _pasteplan.owns(5, 5) and not _pasteplan.owns(6, 5) and not _pasteplan.owns(5, None)


LAUNCH = 7.9e8 + 0.123456789


def test_identity_proven_only_with_every_field_and_exact() -> None:
    ident = _identity.identity_from(
        10, "com.apple.TextEdit", "/System/Applications/TextEdit.app/Contents/MacOS/TextEdit", LAUNCH
    )
    assert ident is not None and ident.proven and ident.start_time == LAUNCH
    assert _identity.identity_from(10, None, "/x", LAUNCH) is None
    assert _identity.identity_from(10, "b", "relative", LAUNCH) is None
    assert _identity.identity_from(10, "b", "/x", None) is None
    assert _identity.verify(ident, ident) == ident
    bumped = ProcessIdentity(10, ident.app_id, ident.executable, LAUNCH + 1e-7)
    with pytest.raises(NativeError, match="changed process identity") as stale:
        _identity.verify(ident, bumped)
    assert stale.value.code == "stale_process"
    with pytest.raises(NativeError) as gone:
        _identity.verify(ident, None)
    assert gone.value.code == "process_gone"


RUNNING = [
    _identity.RunningProcess(ProcessIdentity(10, "com.apple.TextEdit", "/A/TextEdit", LAUNCH), "TextEdit"),
    _identity.RunningProcess(ProcessIdentity(11, "com.apple.Notes", "/A/Notes", LAUNCH), "Notes"),
    _identity.RunningProcess(ProcessIdentity(12, "com.apple.Notes", "/A/Notes", LAUNCH + 1), "Notes"),
]


def test_resolve_and_merge() -> None:
    assert _identity.resolve("textedit", RUNNING).pid == 10
    assert _identity.resolve("com.apple.TextEdit", RUNNING).pid == 10
    assert _identity.resolve("11", RUNNING).pid == 11
    with pytest.raises(NativeError) as many:
        _identity.resolve("Notes", RUNNING)
    assert many.value.code == "ambiguous_target"
    with pytest.raises(NativeError) as none:
        _identity.resolve("Safari", RUNNING)
    assert none.value.code == "target_not_running"
    recent = [
        _identity.RecentApp("com.apple.TextEdit", "TextEdit", "2026-01-01T00:00:00Z", 3),
        _identity.RecentApp("com.apple.Safari", "", None, -1),
    ]
    rows = [e.to_json() for e in _identity.merge(RUNNING, recent)]
    assert rows == [
        {"id": "com.apple.TextEdit", "displayName": "TextEdit", "isRunning": True,
         "lastUsedDate": "2026-01-01T00:00:00Z", "useCount": 3},
        {"id": "com.apple.Notes", "displayName": "Notes", "isRunning": True},
        {"id": "com.apple.Safari", "displayName": "com.apple.Safari", "isRunning": False},
    ]  # fmt: skip
