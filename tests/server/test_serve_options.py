"""`deskhand serve`'s options: each one also a DESKHAND_* variable (the command line wins), flags
spelled as flags, bad values refused as usage errors; and `deskhand --version`."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from deskhand import __version__
from deskhand.cli import build_parser, main
from deskhand.servecli import env_name

#: A value for each serve option, as given on the command line.
VALUES = {
    "--transport": "http",
    "--host": "127.0.0.2",
    "--port": "9999",
    "--token-file": "/run/token",
    "--caps": "js,semantic",
    "--image-responses": "scale",
    "--image-max-edge": "512",
    "--log-level": "debug",
    "--max-sessions": "3",
    "--session-idle-timeout": "5",
    "--launch": "mousepad --disable-server",
    "--trace": "/tmp/trace-dir",
    "--trace-max-mb": "64",
    "--compositor": "kwin",
}
FLAGS = (
    "--semantic-tools",
    "--share-session",
    "--grant-system-keys",
    "--virtual",
    "--trace-redact",
    "--exit-after-session",
    "--wayland",
)


def _serve_options() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve = sub.choices["serve"]
    return [a.option_strings[-1] for a in serve._actions if a.option_strings and a.dest != "help"]


def test_every_serve_option_is_covered_here() -> None:
    # --token is the one without a parser default: DESKHAND_TOKEN is read by the token resolver
    assert set(_serve_options()) == {*VALUES, *FLAGS, "--token"}


@pytest.mark.parametrize("option", sorted(VALUES))
def test_a_variable_sets_the_option(monkeypatch: pytest.MonkeyPatch, option: str) -> None:
    from_argv = build_parser().parse_args(["serve", option, VALUES[option]])
    default = build_parser().parse_args(["serve"])
    monkeypatch.setenv(env_name(option), VALUES[option])
    from_env = build_parser().parse_args(["serve"])
    dest = option.lstrip("-").replace("-", "_")
    assert getattr(from_env, dest) == getattr(from_argv, dest) != getattr(default, dest)


@pytest.mark.parametrize("option", FLAGS)
@pytest.mark.parametrize(("raw", "expected"), [("1", True), ("yes", True), ("ON", True), ("0", False), ("", False)])
def test_a_flag_variable(monkeypatch: pytest.MonkeyPatch, option: str, raw: str, expected: bool) -> None:
    monkeypatch.setenv(env_name(option), raw)
    assert getattr(build_parser().parse_args(["serve"]), option.lstrip("-").replace("-", "_")) is expected


def test_the_command_line_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKHAND_PORT", "1234")
    monkeypatch.setenv("DESKHAND_LOG_LEVEL", "error")
    args = build_parser().parse_args(["serve", "--port", "4321", "--log-level", "info"])
    assert (args.port, args.log_level) == (4321, "info")


def test_variable_names() -> None:
    assert env_name("--session-idle-timeout") == "DESKHAND_SESSION_IDLE_TIMEOUT"
    assert env_name("--virtual") == "DESKHAND_VIRTUAL"


def test_bad_values_are_usage_errors(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DESKHAND_PORT", "eighty")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve"])
    assert "invalid int value: 'eighty'" in capsys.readouterr().err
    monkeypatch.delenv("DESKHAND_PORT")
    monkeypatch.setenv("DESKHAND_SHARE_SESSION", "maybe")
    assert main(["serve"]) == 1
    assert "DESKHAND_SHARE_SESSION='maybe' is not a flag value" in capsys.readouterr().err


def test_binding_all_addresses_without_a_token_is_refused_before_serving(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DESKHAND_TOKEN", raising=False)
    assert main(["serve", "--transport", "http", "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert "needs a bearer token you chose" in err
    assert "serving MCP on http" not in err


def test_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "deskhand", "--version"], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout == f"deskhand {__version__}\n"
