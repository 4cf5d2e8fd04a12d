"""The exact-window SDK over the fake backend: validation and gate errors come before dispatch."""

from __future__ import annotations

from collections.abc import Iterator

import anyio.from_thread
import pytest

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.core.errors import AppDeniedError, ArgumentError, GrantRequiredError, NativeError
from deskhand.host import AppPolicy, Host
from deskhand.sdk import Computer
from deskhand.server.mcp import platform_of
from deskhand.server.service import Service

ACTIONS = ("click", "drag", "scroll", "press_key", "type_text")


def _apps() -> list[FakeApp]:
    return [
        FakeApp("Mousepad", "org.xfce.mousepad", pid=701, window_ids=[7011, 7012]),
        FakeApp("XTerm", "xterm", pid=702, executable="/usr/bin/xterm"),
    ]


@pytest.fixture
def rig() -> Iterator[tuple[Computer, FakeExecutor]]:
    fake = FakeExecutor(_apps())
    service = Service(Host(fake, policy=AppPolicy.from_mapping({})), None)
    portal_cm = anyio.from_thread.start_blocking_portal()
    computer = Computer(service, portal_cm.__enter__(), portal_cm, None)
    try:
        yield computer, fake
    finally:
        computer.close()


def _dispatched(fake: FakeExecutor) -> list[str]:
    return [m for m in fake.methods() if m in ACTIONS or m == "get_app_state"]


def test_list_windows_reports_ids_pid_app_title_and_the_key_window(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, _ = rig
    rows = computer.list_windows(701)
    assert [(w["window_id"], w["pid"], w["app"], w["is_key"]) for w in rows] == [
        (7011, 701, "org.xfce.mousepad", False),
        (7012, 701, "org.xfce.mousepad", True),
    ]
    assert {w["pid"] for w in computer.list_windows()} == {701, 702}


def test_a_window_id_that_does_not_exist_is_refused_before_dispatch(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, fake = rig
    with pytest.raises(NativeError, match="Window 999 of pid 701 does not exist") as info:
        computer.observe_window(701, 999)
    assert info.value.code == "window_not_found" and info.value.not_dispatched
    with pytest.raises(NativeError, match="does not exist"):
        computer.get_window(701, 7021)  # another pid's id is not this pid's window
    assert _dispatched(fake) == []


def test_a_window_of_a_denied_app_is_refused_by_the_deny_policy(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, fake = rig
    window = computer.get_window(702, 7020)
    with pytest.raises(AppDeniedError):
        window.observe()
    with pytest.raises(AppDeniedError):
        window.press_key("a")
    assert _dispatched(fake) == []


def test_a_window_that_closed_mid_batch_stops_the_batch_before_its_next_event(
    rig: tuple[Computer, FakeExecutor],
) -> None:
    computer, fake = rig
    window = computer.get_window(701, 7012)
    window.observe()
    assert window.click(10, 20)["effect"]
    fake.apps[0].window_ids = [7011]  # 7012 closed; 7011 is now the key window
    with pytest.raises(NativeError, match="does not exist") as info:
        window.click(10, 20)
    assert info.value.not_dispatched
    with pytest.raises(NativeError, match="does not exist"):
        window.type_text("x")
    assert _dispatched(fake) == ["get_app_state", "click"]


def test_a_window_that_is_not_the_key_window_is_refused(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, fake = rig
    with pytest.raises(NativeError, match="not its app's key window") as info:
        computer.observe_window(701, 7011)
    assert info.value.code == "window_not_key"
    assert _dispatched(fake) == []


def test_coordinates_need_an_observation_of_that_window(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, fake = rig
    window = computer.get_window(701, 7012)
    with pytest.raises(NativeError, match="Observe window 7012") as info:
        window.drag(1, 2, 3, 4)
    assert info.value.code == "app_screenshot_required"
    assert _dispatched(fake) == []
    window.observe()
    window.drag(1, 2, 3, 4)
    assert fake.calls[-1].method == "drag" and fake.calls[-1].args["start"] == (1.0, 2.0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c: c.get_window(0, 1), "pid must be an integer"),
        (lambda c: c.get_window(True, 1), "pid must be an integer"),
        (lambda c: c.get_window(701, -3), "window_id must be a positive integer"),
        (lambda c: c.get_window(701, 7012).click(float("nan"), 1), "x must be a finite number"),
        (lambda c: c.get_window(701, 7012).hotkey(["ctrl"]), "at least 2 key names"),
        (lambda c: c.get_window(701, 7012).hotkey("ctrl+c"), "at least 2 key names"),
        (lambda c: c.verify_state(701, 7012, []), "expect must be a non-empty list"),
        (lambda c: c.verify_state(701, 7012, ["x"], timeout_ms=20_000), "timeout_ms must be"),
        (lambda c: c.verify_state(701, 7012, ["x"], stable_samples=0), "stable_samples must be"),
        (lambda c: c.get_app(-5), "pid must be an integer"),
    ],
)
def test_bad_arguments_raise_argument_errors_before_dispatch(
    rig: tuple[Computer, FakeExecutor], call: object, message: str
) -> None:
    computer, fake = rig
    with pytest.raises(ArgumentError, match=message):
        call(computer)  # type: ignore[operator]
    assert _dispatched(fake) == []


def test_verify_state_reports_what_it_compared(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, _ = rig
    hit = computer.verify_state(701, 7012, ["App=org.xfce.mousepad"], timeout_ms=0)
    assert hit["effect"] == "confirmed" and hit["status"] == "satisfied"
    miss = computer.verify_state(701, 7012, ["App=org.xfce.mousepad", "never there"], timeout_ms=0)
    assert miss["effect"] == "unverifiable" and miss["status"] == "unsatisfied"
    assert miss["compared"] == {
        "expect": ["App=org.xfce.mousepad", "never there"],
        "found": ["App=org.xfce.mousepad"],
        "missing": ["never there"],
        "samples": 1,
    }


def test_act_and_verify_reports_a_refused_action_and_never_claims_what_held_before(
    rig: tuple[Computer, FakeExecutor],
) -> None:
    computer, fake = rig
    refused = computer.act_and_verify(701, 7012, lambda w: w.hotkey(["ctrl", "alt", "BackSpace"]), ["x"])
    assert refused["effect"] == "refused" and refused["code"] == "grant_flag_required"
    assert "press_key" not in fake.methods()
    held = computer.act_and_verify(701, 7012, lambda w: w.press_key("a"), ["App=org.xfce.mousepad"], timeout_ms=0)
    assert held["effect"] == "unverifiable"  # it held before the action: the action proved nothing
    assert held["compared"]["held_before"] == ["App=org.xfce.mousepad"]  # type: ignore[index]
    assert fake.methods().count("press_key") == 1


def test_a_hotkey_with_the_system_chord_needs_the_grant(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, fake = rig
    app = computer.get_app(701)
    assert app.app == "701"
    with pytest.raises(GrantRequiredError):
        app.hotkey(["ctrl", "alt", "BackSpace"])
    app.hotkey(["ctrl", "s"])
    assert fake.calls[-1].method == "press_key" and fake.calls[-1].args["key"] == "ctrl+s"


def test_app_parity_methods_send_the_seed_2_actions(rig: tuple[Computer, FakeExecutor]) -> None:
    computer, fake = rig
    app = computer.get_app("Mousepad")
    state = app.get_state(include_screenshot=True)
    assert state["app"] == "org.xfce.mousepad" and state["mode"] == "full" and "screenshot" in state
    assert app.double_click([5, 6])["effect"]
    assert fake.calls[-1].args["count"] == 2
    app.right_click([5, 6])
    assert fake.calls[-1].args["button"] == "right"


def test_get_platform_reads_the_listing_and_reconnect_needs_an_owned_service(
    rig: tuple[Computer, FakeExecutor],
) -> None:
    computer, _ = rig
    assert computer.get_platform() == "linux"
    with pytest.raises(NativeError) as info:
        computer.reconnect()
    assert info.value.code == "reconnect_unavailable"


@pytest.mark.parametrize(
    "listing", ["{}", "null", "{", '{"_meta": {"platform": "darwin"}}', '{"_meta": {"platform": 42}}', '{"_meta": 1}']
)
def test_missing_or_invalid_platform_metadata_fails_explicitly(listing: str) -> None:
    with pytest.raises(NativeError, match="did not report a supported platform") as info:
        platform_of(listing)
    assert info.value.code == "driver_platform_unavailable"


@pytest.mark.parametrize("platform", ["linux", "macos", "windows"])
def test_each_known_platform_is_read_from_meta(platform: str) -> None:
    assert platform_of(f'{{"tools": [], "_meta": {{"platform": "{platform}"}}}}') == platform
