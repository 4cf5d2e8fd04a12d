"""The policy file (native-contract.md 6.13, Linux): it adds denied apps and never lifts deskhand itself."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from deskhand.backends.base import ProcessIdentity
from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.host import AppPolicy, Host, ToolResult
from deskhand.host.policy import DEFAULT_DENIED, INTRINSIC, PolicyFileError, default_policy_path

GEDIT = FakeApp("Text Editor", "org.gnome.gedit", pid=700, executable="/usr/bin/gedit")
MOUSEPAD = FakeApp("Mousepad", "org.xfce.mousepad", pid=701)
XTERM = FakeApp("XTerm", "xterm", pid=702, executable="/usr/bin/xterm")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return path


def click(host: Host, app: str) -> ToolResult:
    async def go() -> ToolResult:
        return await host.call_tool("click", {"app": app, "x": 1, "y": 1})

    return anyio.run(go)


def test_the_file_adds_denied_apps_by_app_id_or_executable_name(tmp_path: Path) -> None:
    policy = AppPolicy.load(write(tmp_path, '[deny]\napps = ["gedit", "org.xfce.mousepad"]\n'))
    fake = FakeExecutor([GEDIT, MOUSEPAD, XTERM])
    host = Host(fake, policy=policy)
    for name in ("Text Editor", "Mousepad", "XTerm"):  # two from the file, one default
        result = click(host, name)
        assert result.is_error and result.not_dispatched
        assert result.text == f"Computer Use is not allowed to use the app '{name}' for safety reasons."
    assert fake.methods() == ["resolve"] * 3
    assert policy.denied == DEFAULT_DENIED | {"gedit", "org.xfce.mousepad"}


def test_deny_wins_over_allow_in_the_same_file(tmp_path: Path) -> None:
    policy = AppPolicy.load(write(tmp_path, '[deny]\napps = ["xterm", "gedit"]\n[allow]\napps = ["xterm", "gedit"]\n'))
    assert {"xterm", "gedit"} <= policy.denied


def test_the_file_is_read_by_the_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKHAND_POLICY", str(write(tmp_path, '[deny]\napps = ["gedit"]\n')))
    host = Host(FakeExecutor([GEDIT]))
    assert click(host, "Text Editor").not_dispatched


@pytest.mark.parametrize("name", sorted(INTRINSIC))
def test_allowing_deskhand_itself_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    path = write(tmp_path, f'[allow]\napps = ["xterm", "{name}"]\n')
    with pytest.raises(PolicyFileError, match=f"cannot lift '{name}'"):
        AppPolicy.load(path)
    monkeypatch.setenv("DESKHAND_POLICY", str(path))
    with pytest.raises(PolicyFileError):  # deskhand does not start with that policy
        Host(FakeExecutor())


def test_our_own_process_stays_denied_whatever_the_file_allows(tmp_path: Path) -> None:
    me = FakeApp("Mousepad", "org.xfce.mousepad", pid=os.getpid())
    policy = AppPolicy.load(write(tmp_path, '[allow]\napps = ["org.xfce.mousepad", "mousepad"]\n'))
    assert click(Host(FakeExecutor([me]), policy=policy), "Mousepad").not_dispatched


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[denied]\napps = ["gedit"]\n', "unknown table [denied]"),
        ('[deny]\napp = ["gedit"]\n', "[deny] takes only apps, not 'app'"),
        ('apps = ["gedit"]\n', "unknown table [apps]"),
        ('[deny]\napps = [""]\n', "[deny] apps must be a list of non-empty strings"),
        ("[allow]\napps = 'xterm'\n", "[allow] apps must be a list of non-empty strings"),
        ("deny = 3\n", "[deny] apps must be a list of non-empty strings"),
    ],
)
def test_a_file_that_means_something_else_fails_closed(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PolicyFileError, match=message.replace("[", r"\[").replace("]", r"\]")):
        AppPolicy.load(write(tmp_path, text))


def test_no_file_and_an_empty_file_are_the_defaults(tmp_path: Path) -> None:
    assert AppPolicy.load(tmp_path / "missing.toml").denied == DEFAULT_DENIED
    assert AppPolicy.load(write(tmp_path, "")).denied == DEFAULT_DENIED


def test_the_file_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DESKHAND_POLICY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_policy_path() == tmp_path / "deskhand" / "policy.toml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert default_policy_path() == Path.home() / ".config" / "deskhand" / "policy.toml"
    monkeypatch.setenv("DESKHAND_POLICY", str(tmp_path / "p.toml"))
    assert default_policy_path() == tmp_path / "p.toml"


# names a file may hold: no "/" (a path must be absolute) and no surrounding spaces (both refused)
_plain = st.text(
    alphabet=st.characters(blacklist_characters="/", blacklist_categories=("Z", "C")), min_size=1, max_size=12
)
names = st.one_of(st.sampled_from(sorted(DEFAULT_DENIED)), _plain)


@given(st.lists(names, max_size=6), st.lists(names, max_size=6), st.sampled_from(sorted(INTRINSIC)))
def test_no_file_lifts_an_intrinsic_denial_and_every_denied_name_holds(
    deny: list[str], allow: list[str], intrinsic: str
) -> None:
    data = {"deny": {"apps": deny}, "allow": {"apps": allow}}
    try:
        policy = AppPolicy.from_mapping(data)
    except PolicyFileError:
        assert set(allow) & INTRINSIC
        return
    own = ProcessIdentity(os.getpid(), "org.example.any", "/usr/bin/any", 1.0)
    named = ProcessIdentity(99_999, intrinsic, f"/usr/bin/{intrinsic}", 1.0)
    assert policy.is_denied(own) and policy.is_denied(named)
    for name in deny:
        assert policy.is_denied(ProcessIdentity(99_998, name, "/usr/bin/other", 1.0))
    denied = {d.casefold() for d in deny}
    for name in allow:
        if name.casefold() not in denied and not denied & {"unlisted-binary", "/opt/x/unlisted-binary"}:
            assert not policy.is_denied(ProcessIdentity(99_997, name, "/opt/x/unlisted-binary", 1.0))


def test_names_match_without_case_by_id_executable_path_or_display_name() -> None:
    policy = AppPolicy.from_mapping({"deny": {"apps": ["Mousepad", "/usr/bin/galculator"]}})
    mousepad = ProcessIdentity(4001, "org.xfce.mousepad", "/usr/bin/mousepad", 1.0)
    assert policy.is_denied(mousepad, display_name="Mousepad")
    assert policy.is_denied(ProcessIdentity(4002, "galculator", "/usr/bin/galculator", 1.0))
    assert not policy.is_denied(ProcessIdentity(4003, "galculator", "/opt/galculator", 1.0))
    # a default written in another case still holds (Eterm, not only eterm)
    assert AppPolicy().is_denied(ProcessIdentity(4004, "Eterm", "/usr/bin/Eterm", 1.0))


@pytest.mark.parametrize("name", ["bin/xterm", " xterm", "xterm ", "./mousepad"])
def test_a_name_that_can_never_match_is_refused(name: str) -> None:
    with pytest.raises(PolicyFileError, match="can never match"):
        AppPolicy.from_mapping({"deny": {"apps": [name]}})


def test_a_process_holding_a_pty_master_is_a_terminal_unless_allowed_by_name() -> None:
    copy = ProcessIdentity(4005, "notaterm", "/tmp/notaterm", 1.0)
    assert not AppPolicy().is_denied(copy)
    assert AppPolicy().is_denied(copy, holds_terminal=True)
    allowed = AppPolicy.from_mapping({"allow": {"apps": ["notaterm"]}})
    assert not allowed.is_denied(copy, holds_terminal=True)
