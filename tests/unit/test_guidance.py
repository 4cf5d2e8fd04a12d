"""The bundled Skill: shipped in the package, selected from the listing's platform, served over MCP."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path

import pytest
from mcp import Client

from deskhand import guidance
from deskhand.backends.fake import FakeExecutor
from deskhand.host import AppPolicy, Host
from deskhand.server.mcp import build_server
from deskhand.server.service import Service

ROOT = Path(__file__).resolve().parents[2]
CUA_JS = ROOT / "src" / "deskhand" / "kernel" / "js" / "cua.js"


def test_every_document_is_a_package_resource_and_in_the_wheel_package_data() -> None:
    files = resources.files("deskhand.guidance")
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"][
        "deskhand"
    ]
    for filename in guidance.DOCUMENTS.values():
        assert files.joinpath(filename).is_file(), filename
        assert files.joinpath(filename).read_text(encoding="utf-8").strip()
        assert any(fnmatch.fnmatch(f"guidance/{filename}", g) for g in globs), filename


@pytest.mark.parametrize(("platform", "document"), [("linux", "linux.md"), ("macos", "macos.md")])
def test_the_entry_selects_one_document_per_platform(platform: str, document: str) -> None:
    assert guidance.select(platform) == document
    assert guidance.selected(platform) == guidance.load(document.removesuffix(".md"))


@pytest.mark.parametrize("platform", ["windows", "darwin", "", "Linux"])
def test_a_platform_without_a_document_is_an_error_not_a_guess(platform: str) -> None:
    with pytest.raises(ValueError, match="never guess"):
        guidance.select(platform)


def test_the_entry_body_has_the_contract_sentences() -> None:
    entry = guidance.load("entry")
    for sentence in (
        "Read exactly one resource with `read_file`",
        "Skill base directory",
        "not the CLI or Node host operating system",
        "`linux.md`",
        "`macos.md`",
        "_meta",
    ):
        assert sentence in entry, sentence
    assert "process.platform" not in entry and "computer.observeWindow(" not in entry
    assert "allowedTools" not in entry


def test_every_app_and_window_method_of_cua_js_is_documented_in_linux_md() -> None:
    source = CUA_JS.read_text(encoding="utf-8")
    app_body = source.split("function makeApp(", 1)[1].split("\nasync function getApp(", 1)[0]
    window_body = source.split("function makeWindow(", 1)[1].split("\nasync function getWindow(", 1)[0]
    app_methods = set(re.findall(r"^    ([a-zA-Z]+): tracked\(", app_body, re.MULTILINE))
    window_methods = set(re.findall(r"^    ([a-zA-Z]+): tracked\(", window_body, re.MULTILINE))
    assert {"getAXState", "click", "paste"} <= app_methods and {"drag", "hotkey"} <= window_methods
    linux = guidance.load("linux")
    for name in app_methods:
        assert f"app.{name}(" in linux, name
    for name in window_methods:
        assert f"win.{name}(" in linux, name
    for name in ("listWindows", "getWindow", "observeWindow", "verifyState", "actAndVerify"):
        assert f"cua.{name}(" in linux, name
    assert "the first entry is not necessarily the task window" in linux


@pytest.fixture
async def client(request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    host = Host(FakeExecutor([], platform=request.param), policy=AppPolicy())
    async with Client(build_server(Service(host, None))) as c:
        yield c


@pytest.mark.anyio
@pytest.mark.parametrize("client", ["linux", "macos"], indirect=True)
async def test_mcp_clients_get_the_skill_as_a_prompt_with_the_listed_platforms_document(client: Client) -> None:
    listing = await client.list_tools()
    assert listing.meta is not None
    platform = listing.meta["platform"]
    prompts = await client.list_prompts()
    assert [p.name for p in prompts.prompts] == ["deskhand"]
    prompt = await client.get_prompt("deskhand")
    (message,) = prompt.messages
    text = message.content.text  # type: ignore[union-attr]
    assert text.startswith("---\nname: deskhand")
    assert guidance.selected(platform).strip() in text
    other = guidance.load("macos" if platform == "linux" else "linux").strip()
    assert other not in text


@pytest.mark.anyio
@pytest.mark.parametrize("client", ["linux"], indirect=True)
async def test_mcp_clients_read_each_document_as_a_resource(client: Client) -> None:
    listed = await client.list_resources()
    uris = sorted(str(r.uri) for r in listed.resources)
    assert uris == [f"deskhand://guidance/{f}" for f in ("SKILL.md", "linux.md", "macos.md")]
    for name, filename in guidance.DOCUMENTS.items():
        read = await client.read_resource(f"deskhand://guidance/{filename}")
        assert read.contents[0].text == guidance.load(name)  # type: ignore[union-attr]
