"""The README's recipes are the tested ones: every JSON and TOML snippet parses, each client's
recipe is there in the shape its documentation gives, every `deskhand serve` command line in a
snippet is one the parser accepts, and the apt line is the one `doctor` prints."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest

from deskhand.cli import build_parser
from deskhand.desktop.doctor import APT_LINE
from deskhand.servecli import env_name

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"^[ \t]*```(\w*)\n(.*?)^[ \t]*```", re.MULTILINE | re.DOTALL)


def _blocks(kind: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    return [textwrap.dedent(body) for lang, body in FENCE.findall(text) if lang == kind]


def _serve_argv(command: str, args: list[str]) -> list[str] | None:
    return args if Path(command).name == "deskhand" else None


def _check_serve(args: list[str]) -> None:
    assert args[0] == "serve", args
    parsed = build_parser().parse_args(args)  # exits (a test failure) on an unknown option
    assert parsed.command == "serve"


def test_every_json_snippet_parses() -> None:
    blocks = _blocks("json")
    assert len(blocks) >= 5
    for body in blocks:
        json.loads(body)


def test_every_toml_snippet_parses() -> None:
    blocks = _blocks("toml")
    assert len(blocks) >= 4
    for body in blocks:
        tomllib.loads(body)


def _servers(doc: dict[str, Any]) -> dict[str, Any]:
    return doc.get("mcpServers") or doc.get("servers") or doc.get("mcp_servers") or {}


def test_stdio_recipes_run_deskhand_serve_with_valid_options() -> None:
    seen = 0
    docs: list[dict[str, Any]] = [json.loads(b) for b in _blocks("json")] + [tomllib.loads(b) for b in _blocks("toml")]
    for doc in docs:
        for server in _servers(doc).values():
            if "command" in server:
                argv = _serve_argv(server["command"], server.get("args", []))
                assert argv is not None, server
                _check_serve(argv)
                seen += 1
    for body in _blocks("sh"):
        for line in body.splitlines():
            words = shlex.split(line, comments=True)
            if "--" in words and words[words.index("--") + 1 :][:2] == ["deskhand", "serve"]:
                _check_serve(words[words.index("--") + 2 :])
                seen += 1
    assert seen >= 6


def test_each_client_has_its_recipe() -> None:
    text = README.read_text(encoding="utf-8")
    shells = "\n".join(_blocks("sh"))
    # Claude Code: user scope, the command after `--`, HTTP with the bearer header
    assert "claude mcp add -s user deskhand -- deskhand serve --virtual" in shells
    assert re.search(
        r'claude mcp add -s user --transport http --header "Authorization: Bearer \$DESKHAND_TOKEN" deskhand http://',
        shells,
    )
    toml = [t["mcp_servers"]["deskhand"] for t in map(tomllib.loads, _blocks("toml")) if "mcp_servers" in t]
    # Codex: the private desktop, the forwarded desktop variables, HTTP by token variable name
    assert any(t.get("args") == ["serve", "--virtual"] for t in toml)
    forwarded = next(t["env_vars"] for t in toml if "env_vars" in t)
    assert {"DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR"} <= set(
        forwarded
    )
    assert any(t.get("bearer_token_env_var") == "DESKHAND_TOKEN" and t["url"].endswith("/mcp") for t in toml)
    docs = [json.loads(b) for b in _blocks("json")]
    # Qwen Code: mcpServers with httpUrl + headers for HTTP
    assert any(
        "httpUrl" in s and "Authorization" in s["headers"] for d in docs for s in d.get("mcpServers", {}).values()
    )
    # VS Code: the `servers` key, typed entries
    vscode = [s for d in docs for s in d.get("servers", {}).values()]
    assert {s["type"] for s in vscode} == {"stdio", "http"}
    # a generic mcpServers block with env
    assert any("env" in s and "DISPLAY" in s["env"] for d in docs for s in d.get("mcpServers", {}).values())
    assert "Claude Desktop" not in text.split("**Any client with an `mcpServers` file**")[0]


def test_install_lines() -> None:
    text = README.read_text(encoding="utf-8")
    assert APT_LINE in text
    assert "pipx install ./deskhand" in text
    assert "uvx --from ./deskhand deskhand serve --virtual" in text


@pytest.mark.parametrize("variable", ["DESKHAND_IMAGE_RESPONSES", "DESKHAND_TOKEN"])
def test_variables_named_in_the_readme_exist(variable: str) -> None:
    names = {env_name(a.option_strings[-1]) for a in _serve_actions() if a.option_strings}
    assert variable in names | {"DESKHAND_TOKEN"}
    assert variable in README.read_text(encoding="utf-8")


def _serve_actions() -> list[Any]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices["serve"]._actions)
