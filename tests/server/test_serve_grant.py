"""`deskhand serve --grant-system-keys`: the user's session grant reaches the host; no tool call can give it."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskhand import runtime
from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.cli import build_parser, main
from deskhand.host import Host
from deskhand.host.policy import PolicyFileError
from deskhand.server import mcp
from deskhand.server.service import Service

pytestmark = pytest.mark.anyio

COMBO = {"app": "Mousepad", "key": "ctrl+alt+Delete"}


@pytest.fixture(autouse=True)
def no_user_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKHAND_POLICY", str(tmp_path / "absent.toml"))


@pytest.fixture
def executor(monkeypatch: pytest.MonkeyPatch) -> FakeExecutor:
    fake = FakeExecutor([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)])
    monkeypatch.setattr(runtime, "open_executor", lambda env=None, *, backend=None: fake)
    return fake


def test_the_flag_is_off_unless_given() -> None:
    parser = build_parser()
    assert parser.parse_args(["serve"]).grant_system_keys is False
    assert parser.parse_args(["serve", "--grant-system-keys"]).grant_system_keys is True


@pytest.mark.parametrize(("argv", "granted"), [(["serve"], False), (["serve", "--grant-system-keys"], True)])
def test_serve_passes_the_grant_to_the_host(
    monkeypatch: pytest.MonkeyPatch, executor: FakeExecutor, argv: list[str], granted: bool
) -> None:
    served: list[Service] = []

    async def fake_stdio(service: Service, *_options: object) -> None:
        served.append(service)

    monkeypatch.setattr(mcp, "serve_stdio", fake_stdio)
    assert main(argv) == 0
    (service,) = served
    assert isinstance(service.host, Host)
    assert service.host.system_keys_granted is granted


async def test_without_the_grant_a_system_combination_is_refused_before_dispatch(executor: FakeExecutor) -> None:
    service = runtime.open_service()
    result = await service.call("press_key", COMBO)
    assert result.is_error and result.not_dispatched
    assert "system key combination" in result.text
    assert executor.calls == []


async def test_with_the_grant_it_is_dispatched(executor: FakeExecutor) -> None:
    service = runtime.open_service(system_keys_granted=True)
    result = await service.call("press_key", COMBO)
    assert not result.is_error, result.text
    assert executor.methods() == ["resolve", "press_key"]


@pytest.mark.parametrize("extra", ["grant", "system_keys_granted", "grantSystemKeys", "grant_flag"])
async def test_no_argument_can_give_the_grant(executor: FakeExecutor, extra: str) -> None:
    service = runtime.open_service()
    direct = await service.call("press_key", {**COMBO, extra: True})
    batch = await service.call("sequence", {"app": "Mousepad", "steps": [{"tool": "press_key", "key": COMBO["key"]}]})
    smuggled = await service.call(
        "sequence", {"app": "Mousepad", "steps": [{"tool": "press_key", "key": COMBO["key"], extra: True}]}
    )
    for result in (direct, batch, smuggled):
        assert result.is_error and result.not_dispatched
    assert executor.calls == []


def test_an_unusable_policy_file_stops_serve_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: FakeExecutor, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[allow]\napps = ["deskhand"]\n', encoding="utf-8")
    monkeypatch.setenv("DESKHAND_POLICY", str(policy))
    with pytest.raises(PolicyFileError):
        runtime.open_service()
    assert executor.closed  # the executor's connections were released
    assert main(["serve"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot lift 'deskhand'" in err
