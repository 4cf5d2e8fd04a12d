"""Tool listing over MCP (native-contract.md 1.1-1.5): names per face, platform, schemas, annotations.

Mirrors `platformRouting.test.ts` ("ListTools advertises js, js_reset") and the schema half of
`toolCalls.test.ts`, through the SDK's client against ``build_server``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from deskhand.backends.fake import FakeExecutor
from deskhand.host import AppPolicy, Host
from deskhand.server.service import Service

pytestmark = pytest.mark.anyio

Connect = Callable[[Service], AbstractAsyncContextManager[Client]]

SEMANTIC = [
    "list_apps",
    "get_app_state",
    "list_windows",
    "click",
    "perform_secondary_action",
    "set_value",
    "select_text",
    "scroll",
    "drag",
    "press_key",
    "type_text",
    "paste",
]
MUTATING = SEMANTIC[3:]


async def _listing(connect: Connect, service: Service) -> types.ListToolsResult:
    async with connect(service) as client:
        return await client.list_tools()


def _subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    """Every object-typed schema nested in ``schema`` (properties, items and anyOf variants)."""
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield schema
        for value in schema.values():
            yield from _subschemas(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _subschemas(value)


async def test_default_face_lists_js_and_js_reset_on_linux(connect: Connect, service: Service) -> None:
    listing = await _listing(connect, service)
    assert [t.name for t in listing.tools] == ["js", "js_reset"]
    assert listing.meta is not None
    assert listing.meta["platform"] == "linux"


@pytest.mark.parametrize("platform", ["linux", "macos"])
async def test_platform_comes_from_the_running_backend(connect: Connect, platform: str) -> None:
    host = Host(FakeExecutor([], platform=platform), policy=AppPolicy())  # type: ignore[arg-type]
    listing = await _listing(connect, Service(host, lambda _host: pytest.fail("no kernel for a listing")))
    assert listing.meta is not None
    assert listing.meta["platform"] == platform


async def test_advertise_semantic_adds_the_11_tools_and_sequence(connect: Connect, semantic_service: Service) -> None:
    listing = await _listing(connect, semantic_service)
    assert [t.name for t in listing.tools] == ["js", "js_reset", *SEMANTIC, "sequence"]
    assert listing.meta is not None
    assert listing.meta["platform"] == "linux"


async def test_every_schema_is_closed_and_has_no_root_anyof(connect: Connect, semantic_service: Service) -> None:
    listing = await _listing(connect, semantic_service)
    for tool in listing.tools:
        schema = tool.input_schema
        assert schema["type"] == "object", tool.name
        assert schema["additionalProperties"] is False, tool.name
        assert not {"anyOf", "oneOf", "allOf"} & set(schema), tool.name
        for nested in _subschemas(schema):
            assert nested.get("additionalProperties") is False, (tool.name, nested)


async def test_js_schema_as_section_1_2(connect: Connect, service: Service) -> None:
    tools = {t.name: t for t in (await _listing(connect, service)).tools}
    js = tools["js"].input_schema
    assert js["required"] == ["code"]
    assert set(js["properties"]) == {"code", "title", "timeout_ms"}
    assert js["properties"]["code"]["type"] == "string"
    assert js["properties"]["title"]["type"] == "string"
    timeout = js["properties"]["timeout_ms"]
    assert (timeout["type"], timeout["minimum"], timeout["maximum"], timeout["default"]) == ("integer", 1, 60000, 30000)
    assert tools["js_reset"].input_schema["properties"] == {}
    assert "required" not in tools["js_reset"].input_schema


async def test_annotations_as_section_1(connect: Connect, semantic_service: Service) -> None:
    tools = {t.name: t.annotations for t in (await _listing(connect, semantic_service)).tools}
    assert all(a is not None for a in tools.values())
    js, reset = tools["js"], tools["js_reset"]
    assert js is not None
    assert reset is not None
    assert (js.read_only_hint, js.destructive_hint, js.idempotent_hint, js.open_world_hint) == (
        False,
        True,
        False,
        False,
    )
    assert (reset.read_only_hint, reset.destructive_hint, reset.idempotent_hint, reset.open_world_hint) == (
        False,
        False,
        True,
        False,
    )
    for name in SEMANTIC:
        a = tools[name]
        assert a is not None
        read_only = name in ("list_apps", "get_app_state", "list_windows")
        assert a.read_only_hint is read_only, name
        assert a.idempotent_hint is read_only, name
        assert a.destructive_hint is False, name
        assert a.open_world_hint is False, name
    sequence = tools["sequence"]
    assert sequence is not None
    assert sequence.read_only_hint is False
    assert sequence.idempotent_hint is False


async def test_semantic_schemas_as_section_1_4(connect: Connect, semantic_service: Service) -> None:
    tools = {t.name: t.input_schema for t in (await _listing(connect, semantic_service)).tools}
    assert tools["list_apps"]["properties"] == {}
    assert tools["list_windows"]["properties"]["pid"]["minimum"] == 1
    assert "required" not in tools["list_windows"]
    for name in [n for n in SEMANTIC[1:] if n != "list_windows"]:
        assert "app" in tools[name]["required"], name
        assert tools[name]["properties"]["app"]["type"] == "string", name
    click = tools["click"]["properties"]
    assert (click["click_count"]["minimum"], click["click_count"]["maximum"]) == (1, 3)
    assert click["mouse_button"]["enum"] == ["left", "middle", "right", "back", "forward", "l", "m", "r"]
    assert click["element_index"]["pattern"] == r"^g(0|[1-9]\d*):(0|[1-9]\d*)$"
    for axis in ("x", "y"):
        assert click[axis]["minimum"] == 0
        assert "screenshot" in click[axis]["description"]
    pages = tools["scroll"]["properties"]["pages"]
    assert (pages["exclusiveMinimum"], pages["maximum"]) == (0, 10)
    assert "amount" not in tools["scroll"]["properties"]
    assert tools["paste"]["required"] == ["app", "text", "format"]
    assert tools["paste"]["properties"]["format"]["enum"] == ["text", "md", "html"]


async def test_sequence_schema_as_section_1_5(connect: Connect, semantic_service: Service) -> None:
    tools = {t.name: t.input_schema for t in (await _listing(connect, semantic_service)).tools}
    sequence = tools["sequence"]
    assert sequence["required"] == ["app", "steps"]
    steps = sequence["properties"]["steps"]
    assert (steps["minItems"], steps["maxItems"]) == (1, 256)
    variants = steps["items"]["anyOf"]
    assert [v["properties"]["tool"]["const"] for v in variants] == MUTATING
    for variant in variants:
        name = variant["properties"]["tool"]["const"]
        assert variant["additionalProperties"] is False
        assert "app" not in variant["properties"]
        assert set(variant["properties"]) == {"tool", *tools[name]["properties"]} - {"app"}
        assert variant["required"] == ["tool", *(r for r in tools[name]["required"] if r != "app")]


async def test_no_kernel_advertises_the_semantic_face(connect: Connect, host: Host) -> None:
    listing = await _listing(connect, Service(host, None))
    assert [t.name for t in listing.tools] == [*SEMANTIC, "sequence"]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("list_apps", {}),
        ("get_app_state", {"app": "Mousepad"}),
        ("click", {"app": "Mousepad", "x": 10, "y": 20}),
        ("perform_secondary_action", {"app": "Mousepad", "element_index": "g1:2", "action": "Show menu"}),
        ("set_value", {"app": "Mousepad", "element_index": "g1:2", "value": ""}),
        ("select_text", {"app": "Mousepad", "element_index": "g1:2", "text": "word"}),
        ("scroll", {"app": "Mousepad", "direction": "d", "x": 5, "y": 5}),
        ("drag", {"app": "Mousepad", "from": {"x": 1, "y": 2}, "to": {"x": 3, "y": 4}}),
        ("press_key", {"app": "Mousepad", "key": "ctrl+a"}),
        ("type_text", {"app": "Mousepad", "text": "hello"}),
        ("paste", {"app": "Mousepad", "text": "**hi**", "format": "md"}),
        ("sequence", {"app": "Mousepad", "steps": [{"tool": "type_text", "text": "x"}]}),
    ],
)
async def test_unadvertised_tools_are_accepted_when_called_directly(
    connect: Connect, service: Service, executor: FakeExecutor, name: str, args: dict[str, object]
) -> None:
    async with connect(service) as client:
        assert name not in [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool(name, args)
    assert not result.is_error, result.content
    dispatched = "get_app_state" if name == "sequence" else name
    assert dispatched in executor.methods()


async def test_listing_creates_no_kernel_and_makes_no_native_call(
    connect: Connect, semantic_service: Service, executor: FakeExecutor, kernels: Any
) -> None:
    await _listing(connect, semantic_service)
    assert executor.calls == []
    assert kernels.made == []
