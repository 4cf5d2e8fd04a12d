"""The host's gates after the static parse: resolve, deny policy, proven identity, results, errors."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from deskhand.backends.base import Image
from deskhand.backends.fake import FAKE_JPEG, FakeApp, FakeExecutor
from deskhand.core.counters import CallCounters
from deskhand.core.errors import RECOVERY_NOT_DISPATCHED, RECOVERY_OBSERVE, NativeError
from deskhand.host import AppPolicy, Host, ImageBlock, TextBlock, ToolResult
from deskhand.host.policy import DEFAULT_DENIED, PolicyFileError

MOUSEPAD = FakeApp(
    "Mousepad", "org.xfce.mousepad", pid=4242, state_text="App=org.xfce.mousepad (pid 4242)\n\t1 text  \n"
)
XTERM = FakeApp("XTerm", "xterm", pid=5000, executable="/usr/bin/xterm")
KONSOLE = FakeApp("Konsole", "org.kde.konsole", pid=5001, executable="/usr/bin/konsole")
POLKIT = FakeApp("Authenticate", "polkit-gnome-authentication-agent-1", pid=5002)
UNPROVEN = FakeApp("Ghost", "org.example.ghost", pid=6000, proven=False)
RECEIPT = "Action completed. Call `get_app_state` to fetch the updated UI state."


def make(apps: list[FakeApp] | None = None, policy: AppPolicy | None = None) -> tuple[Host, FakeExecutor]:
    fake = FakeExecutor(apps if apps is not None else [MOUSEPAD, XTERM, KONSOLE, POLKIT, UNPROVEN])
    return Host(fake, policy=policy or AppPolicy()), fake


def call(host: Host, name: str, args: dict[str, object], counters: CallCounters | None = None) -> ToolResult:
    async def go() -> ToolResult:
        return await host.call_tool(name, args, counters=counters)

    return anyio.run(go)


@pytest.mark.parametrize("app", [XTERM, KONSOLE, POLKIT])
def test_denied_apps_are_refused_after_resolution_before_dispatch(app: FakeApp) -> None:
    host, fake = make()
    result = call(host, "click", {"app": app.display_name, "x": 1, "y": 1})
    assert result.is_error and result.not_dispatched
    assert result.text == f"Computer Use is not allowed to use the app '{app.display_name}' for safety reasons."
    assert result.native_error is not None
    assert result.native_error.to_json() == {"name": "Error", "message": result.text, "nativeCode": "app_denied"}
    assert fake.methods() == ["resolve"]


def test_denial_is_on_the_resolved_identity_not_the_selector() -> None:
    host, fake = make()
    result = call(host, "get_app_state", {"app": "5000"})  # the pid of xterm
    assert result.is_error and result.not_dispatched
    assert "'XTerm'" in result.text
    assert fake.methods() == ["resolve"]


def test_a_cell_made_only_of_refusals_dispatched_nothing() -> None:
    host, _ = make()
    cell = CallCounters()
    call(host, "type_text", {"app": "XTerm", "text": "rm -rf /"}, cell)
    assert (cell.started, cell.completed, cell.rejected_before_dispatch, cell.result_unknown) == (1, 0, 1, False)
    assert cell.recovery == RECOVERY_NOT_DISPATCHED


def test_discovery_does_not_authorize() -> None:
    host, fake = make()
    result = call(host, "list_apps", {})
    assert not result.is_error
    assert result.text.splitlines() == [
        "Mousepad — org.xfce.mousepad",
        "XTerm — xterm",
        "Konsole — org.kde.konsole",
        "Authenticate — polkit-gnome-authentication-agent-1",
        "Ghost — org.example.ghost",
    ]
    apps = result.structured["apps"]
    assert isinstance(apps, list) and apps[1] == {"id": "xterm", "displayName": "XTerm", "isRunning": True}
    assert fake.methods() == ["list_apps"]


def test_no_apps_text() -> None:
    host, _ = make([])
    assert call(host, "list_apps", {}).text == "No running applications are available to control."


def test_deskhand_itself_is_never_liftable() -> None:
    me = FakeApp("deskhand", "deskhand", pid=os.getpid(), executable="/usr/bin/python3")
    with pytest.raises(PolicyFileError, match="cannot lift 'deskhand'"):
        AppPolicy.from_mapping({"allow": {"apps": ["deskhand"]}})
    policy = AppPolicy.from_mapping({"allow": {"apps": ["python3"]}})  # our interpreter: still our pid
    host, _ = make([me], policy)
    assert call(host, "click", {"app": "deskhand", "x": 1, "y": 1}).not_dispatched
    worker = FakeApp("kernel", "org.example.worker", pid=777)
    host2, _ = make([worker], AppPolicy().with_own_pids([777]))
    assert call(host2, "get_app_state", {"app": "kernel"}).not_dispatched


def test_policy_file_adds_and_lifts(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('[deny]\napps = ["org.xfce.mousepad"]\n[allow]\napps = ["xterm"]\n', encoding="utf-8")
    policy = AppPolicy.load(path)
    host, fake = make(policy=policy)
    assert call(host, "click", {"app": "Mousepad", "x": 1, "y": 1}).not_dispatched
    assert not call(host, "click", {"app": "XTerm", "x": 1, "y": 1}).is_error
    assert fake.methods() == ["resolve", "resolve", "click"]
    assert "konsole" in policy.denied


def test_policy_file_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[deny]\napps = ["gedit"]\n', encoding="utf-8")
    monkeypatch.setenv("DESKHAND_POLICY", str(path))
    assert AppPolicy.load().denied == DEFAULT_DENIED | {"gedit"}


@pytest.mark.parametrize("text", ["[deny]\napps = 'xterm'\n", "[deny\n", "[allow]\napps = [1]\n"])
def test_a_broken_policy_file_fails_closed(tmp_path: Path, text: str) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PolicyFileError):
        AppPolicy.load(path)


def test_mutations_need_a_proven_identity() -> None:
    host, fake = make()
    result = call(host, "click", {"app": "Ghost", "x": 1, "y": 1})
    assert result.is_error and not result.not_dispatched  # the contract counts this as result-unknown
    assert result.text.startswith("Resolving 'Ghost' did not prove the running process lifetime.")
    assert fake.methods() == ["resolve"]
    # observing does not need it
    assert not call(host, "get_app_state", {"app": "Ghost"}).is_error


def test_get_app_state_frames_the_envelope_and_forwards_the_image() -> None:
    host, fake = make()
    result = call(host, "get_app_state", {"app": "mousepad", "disable_diff": True})
    assert not result.is_error
    assert result.content == (
        TextBlock(
            "Computer Use state (CUA App Version: 1)\n<app_state>\n"
            "App=org.xfce.mousepad (pid 4242)\n\t1 text\n</app_state>"
        ),
        ImageBlock(FAKE_JPEG, "image/jpeg"),
    )
    assert fake.calls[-1].args == {"app": "Mousepad", "disable_diff": True}


def test_get_app_state_without_image_is_text_only() -> None:
    app = FakeApp("Pad", "org.example.pad", pid=1, image=None)
    host, _ = make([app])
    result = call(host, "get_app_state", {"app": "Pad"})
    assert len(result.content) == 1 and isinstance(result.content[0], TextBlock)


def test_each_get_app_state_forwards_a_fresh_screenshot() -> None:
    app = FakeApp("Pad", "org.example.pad", pid=1)
    host, fake = make([app])
    call(host, "get_app_state", {"app": "Pad"})
    app.image = Image(b"second", "image/jpeg", 1, 1)
    assert call(host, "get_app_state", {"app": "Pad"}).content[1] == ImageBlock(b"second", "image/jpeg")
    assert fake.methods().count("get_app_state") == 2


def test_a_native_error_is_mapped_and_never_replayed() -> None:
    host, fake = make()
    fake.fail("click", NativeError("process_gone", "The app quit during the click."))
    cell = CallCounters()
    result = call(host, "click", {"app": "Mousepad", "x": 1, "y": 1}, cell)
    assert result.is_error and not result.not_dispatched
    assert result.native_error is not None
    assert result.native_error.to_json() == {
        "name": "SkyComputerUseError",
        "message": "The app quit during the click.",
        "code": -10007,
        "errorName": "runningApplicationNotFound",
        "nativeCode": "process_gone",
        "request": None,
        "requestType": "jsonRPC",
    }
    assert fake.methods() == ["resolve", "click"]
    assert cell.result_unknown and cell.recovery == RECOVERY_OBSERVE


def test_resolution_errors() -> None:
    host, fake = make()
    result = call(host, "click", {"app": "Nothing", "x": 1, "y": 1})
    assert result.native_error is not None
    assert (result.native_error.name, result.native_error.code) == ("SkyComputerUseError", -10007)
    assert fake.methods() == ["resolve"]


def test_unexpected_exceptions_become_results() -> None:
    host, fake = make()
    fake.fail("type_text", RuntimeError("socket closed"))
    fake.fail("press_key", TypeError("bad type"))
    r1 = call(host, "type_text", {"app": "Mousepad", "text": "x"})
    r2 = call(host, "press_key", {"app": "Mousepad", "key": "a"})
    assert r1.native_error is not None and r1.native_error.to_json() == {"name": "Error", "message": "socket closed"}
    assert r2.native_error is not None and r2.native_error.name == "TypeError"
    assert not r1.not_dispatched and not r2.not_dispatched


def test_host_counters_total_every_call() -> None:
    host, _ = make()
    call(host, "click", {"app": "Mousepad", "x": 1, "y": 1})
    call(host, "click", {"app": "Mousepad", "x": 1})
    call(host, "click", {"app": "XTerm", "x": 1, "y": 1})
    assert host.counters.to_json()["nativeCallsStarted"] == 3
    assert host.counters.completed == 1 and host.counters.rejected_before_dispatch == 2


def test_action_structured_fields_are_forwarded() -> None:
    host, _ = make()
    result = call(host, "paste", {"app": "Mousepad", "text": "x", "format": "text"})
    assert result.text == RECEIPT
    # the fake executor reports no outcome: the result says so rather than claiming an effect
    assert result.structured == {"status": "completed", "result": {"effect": "unverifiable", "status": "completed"}}


def test_an_action_outcome_reaches_the_text_and_the_result() -> None:
    from deskhand.backends.base import ActionResult  # noqa: PLC0415
    from deskhand.core.effects import Evidence, judge  # noqa: PLC0415
    from deskhand.host.result import action_result  # noqa: PLC0415

    outcome = judge("accessibility", [Evidence("value_readback", "the element reads 'x'")], before="", after="x")
    result = action_result(ActionResult({"before": "", "after": "x"}, outcome))
    assert (
        result.content[0].text
        == RECEIPT + "\neffect: confirmed (value_readback: the element reads 'x'); route: accessibility"
    )
    assert result.structured["result"] == {
        "before": "",
        "after": "x",
        "effect": "confirmed",
        "route": "accessibility",
        "evidence": [{"kind": "value_readback", "detail": "the element reads 'x'"}],
    }
