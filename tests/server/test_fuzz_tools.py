"""Property-based fuzzing of the tool surface: random and malformed names and arguments.

Thousands of calls go straight through ``Service.call`` (one event loop in a blocking portal, a
fresh executor per example) and a few hundred through the SDK's in-memory MCP client. For every
call: no exception escapes, no call hangs (each is bounded by ``anyio.fail_after``), and whenever the
static validator rejects the arguments, or the result is a not-dispatched refusal, the fake
executor recorded no native call (a denied app is resolved, and nothing more) and no js kernel was
created.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.host import AppPolicy, Host
from deskhand.host.result import TextBlock, ToolResult
from deskhand.host.tools import SCHEMAS, parse_request
from deskhand.server import jstool
from deskhand.server.mcp import build_server
from deskhand.server.sequence import parse_sequence
from deskhand.server.service import Service

CALL_TIMEOUT_S = 5.0
SEMANTIC = tuple(SCHEMAS)
KNOWN = (*SEMANTIC, "js", "js_reset", "sequence")
APPS = ("Mousepad", "mousepad", "org.xfce.mousepad", "4242", " 4242 ", "XTerm", "xterm", "5151", "Shell", "", " ")
HUGE = ("x" * (256 * 1024 + 1), "é" * (128 * 1024 + 1), "ctrl+" * 5000 + "a", " ".join(["Tab"] * 3000))

#: Values that pass validation for each argument name, mixed with junk so that calls get accepted too.
PLAUSIBLE: dict[str, list[Any]] = {
    "app": ["Mousepad", "Mousepad", "org.xfce.mousepad", " 4242", "XTerm", "Shell", "nope"],
    "element_index": ["g1:2", "g0:0", ""],
    "action": ["Show menu"],
    "value": ["", "v"],
    "text": ["hello", ""],
    "prefix": ["a"],
    "suffix": ["b"],
    "selection": ["text", "cursor_before", "cursor_after"],
    "selection_type": ["cursor_after"],
    "disableDiff": [True, False],
    "disable_diff": [True],
    "click_count": [1, 2, 3],
    "mouse_button": ["left", "r", 3],
    "direction": ["down", "u", "left"],
    "pages": [0.5, 1, 10],
    "amount": [2],
    "key": ["ctrl+a", "Return Return", "Tab", "shift+Home"],
    "format": ["text", "md", "html"],
    "from": [{"x": 1, "y": 2}],
    "to": [{"x": 3.5, "y": 0}],
    **{k: [0, 10.5, 640] for k in ("x", "y", "from_x", "from_y", "to_x", "to_y")},
}

# --- strategies ----------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1, 3, 4, 10, 10.000001, 60_000, 60_001, 1e308, -0.0, math.nan, math.inf, -math.inf]),
    st.text(max_size=40),
    st.sampled_from(
        ["g1:2", "g0:0", "g01:2", "g1:-1", "17", "left", "md", "down", "ctrl+a", "Return", "\x00", "\ud800"]
    ),
    st.sampled_from(HUGE),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


def _value(key: str) -> st.SearchStrategy[Any]:
    """Mostly a plausible value (three draws in four), else any JSON value."""
    plausible = st.sampled_from(PLAUSIBLE.get(key, [None]))
    return st.one_of(plausible, plausible, plausible, json_values)


@st.composite
def schema_shaped(draw: st.DrawFn, tool: str) -> dict[str, Any]:
    """An argument object near the tool's schema: some of its keys, junk values, sometimes extra keys."""
    keys = sorted(SCHEMAS[tool]["properties"])  # type: ignore[call-overload]
    if tool == "scroll":
        keys.append("amount")
    required = list(SCHEMAS[tool].get("required", []))  # type: ignore[call-overload]
    optional = draw(st.lists(st.sampled_from(keys), unique=True)) if keys else []
    chosen = [k for k in keys if k in optional or (k in required and draw(st.integers(0, 9)))]
    args: dict[str, Any] = {k: draw(_value(k)) for k in chosen}
    if draw(st.integers(0, 9)) == 0:
        args[draw(st.text(max_size=12))] = draw(json_values)
    return args


@st.composite
def js_shaped(draw: st.DrawFn) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if draw(st.booleans()):
        args["code"] = draw(st.text(max_size=20) | st.sampled_from(HUGE) | json_values)
    if draw(st.booleans()):
        args["timeout_ms"] = draw(json_values)
    if draw(st.booleans()):
        args["title"] = draw(json_values)
    if draw(st.integers(0, 4)) == 0:
        args[draw(st.text(max_size=8))] = draw(json_values)
    return args


@st.composite
def sequence_shaped(draw: st.DrawFn) -> dict[str, Any]:
    mutating = [t for t in SEMANTIC if t not in ("list_apps", "get_app_state", "list_windows")]
    step = st.sampled_from(mutating).flatmap(lambda t: schema_shaped(t).map(lambda a: {"tool": t, **a}))
    steps = draw(st.lists(step | json_values, max_size=5) | json_values)
    args: dict[str, Any] = {"steps": steps}
    if draw(st.integers(0, 5)):
        args["app"] = draw(st.sampled_from(APPS) | json_values)
    if draw(st.integers(0, 5)) == 0:
        args[draw(st.text(max_size=8))] = draw(json_values)
    return args


def _shaped(name: str) -> st.SearchStrategy[Any]:
    if name == "js":
        return js_shaped()
    if name == "sequence":
        return sequence_shaped()
    if name == "js_reset":
        return st.dictionaries(st.text(max_size=8), json_values, max_size=2)
    return schema_shaped(name)


names = st.one_of(
    st.sampled_from(KNOWN),
    st.text(max_size=30),
    st.sampled_from(KNOWN).map(str.upper),
    st.sampled_from(KNOWN).map(lambda n: f" {n}"),
    st.sampled_from(KNOWN).map(lambda n: n + "\x00"),
)
calls = st.one_of(
    st.tuples(names, json_values),
    st.sampled_from(KNOWN).flatmap(lambda n: st.tuples(st.just(n), _shaped(n))),
)
object_calls = st.one_of(
    st.tuples(names, st.dictionaries(st.text(max_size=12), json_values, max_size=5)),
    st.sampled_from(KNOWN).flatmap(lambda n: st.tuples(st.just(n), _shaped(n))),
)

# --- the system under test -----------------------------------------------------------------------


class IdleKernel:
    async def run(self, code: str, *, timeout_ms: int) -> ToolResult:
        return ToolResult((TextBlock(f"{len(code)} {timeout_ms}"),))

    async def reset(self) -> None:
        return None

    async def close(self) -> None:
        return None


class Rig:
    """A fresh executor, host and service; counts kernel creations."""

    def __init__(self) -> None:
        self.executor = FakeExecutor(
            [
                FakeApp("Mousepad", "org.xfce.mousepad", pid=4242),
                FakeApp("XTerm", "xterm", pid=5151),
                FakeApp("Shell", "com.example.Shell", pid=6161, executable="/usr/bin/kitty"),
            ]
        )
        self.host = Host(self.executor, policy=AppPolicy())
        self.kernels_made = 0
        self.service = Service(self.host, self._kernel, advertise_semantic=True)

    def _kernel(self, _host: object) -> IdleKernel:
        self.kernels_made += 1
        return IdleKernel()


def statically_rejected(rig: Rig, name: str, args: object) -> bool:
    """Whether the validators alone (no executor, no kernel) refuse this call."""
    try:
        if name == "js":
            jstool.parse_js(args)
        elif name == "js_reset":
            jstool.parse_js_reset(args)
        elif name == "sequence":
            schemas = {n: spec[1] for n, spec in rig.host.tool_specs().items()}
            parse_sequence(args, schemas, rig.host.validate)
        else:
            parse_request(name, args)
    except Exception:
        return True
    return False


def check_invariants(rig: Rig, name: str, args: object, result: ToolResult) -> None:
    assert isinstance(result, ToolResult)
    event("refused before dispatch" if result.not_dispatched else "error" if result.is_error else "accepted")
    if result.is_error:
        assert result.text.strip(), "an error result must say why"
    if statically_rejected(rig, name, args):
        assert result.is_error
        assert result.not_dispatched
        assert rig.executor.calls == [], (name, args, rig.executor.methods())
        assert rig.kernels_made == 0
    if result.not_dispatched:
        assert result.is_error
        methods = rig.executor.methods()
        if result.structured.get("code") == "app_denied":
            assert set(methods) == {"resolve"}
        else:
            assert methods == [], (name, args, methods)
    if name != "js":
        assert rig.kernels_made == 0


async def _call(service: Service, name: str, args: object) -> ToolResult:
    with anyio.fail_after(CALL_TIMEOUT_S):
        return await service.call(name, args)


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal("asyncio") as portal:
        yield portal


@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(call=calls)
def test_service_call_never_crashes_hangs_or_dispatches_invalid_input(
    portal: BlockingPortal, call: tuple[str, Any]
) -> None:
    name, args = call
    rig = Rig()
    result = portal.call(_call, rig.service, name, args)
    check_invariants(rig, name, args, result)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tool=st.sampled_from(SEMANTIC), data=st.data())
def test_semantic_tools_near_their_schemas(portal: BlockingPortal, tool: str, data: st.DataObject) -> None:
    args = data.draw(schema_shaped(tool))
    rig = Rig()
    result = portal.call(_call, rig.service, tool, args)
    check_invariants(rig, tool, args, result)
    if not result.is_error and tool not in ("list_apps", "get_app_state", "list_windows"):
        # An accepted action reached exactly one executor method, for an allowed app.
        assert rig.executor.methods() == ["resolve", tool]
        assert rig.executor.calls[0].args["selector"].strip().lower() in {"mousepad", "org.xfce.mousepad", "4242"}


def test_mcp_client_calls_never_crash_hang_or_dispatch_invalid_input(portal: BlockingPortal) -> None:
    rig = Rig()
    with portal.wrap_async_context_manager(Client(build_server(rig.service))) as client:

        async def mcp_call(name: str, args: dict[str, Any]) -> types.CallToolResult:
            with anyio.fail_after(CALL_TIMEOUT_S):
                return await client.call_tool(name, args)

        @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
        @given(call=object_calls)
        def one_call(call: tuple[str, dict[str, Any]]) -> None:
            name, args = call
            rig.executor.calls.clear()
            kernels_before = rig.kernels_made
            if not rig.service.knows(name):  # an unknown tool is a protocol error, nothing dispatched
                with pytest.raises(MCPError, match="Unknown tool"):
                    portal.call(mcp_call, name, args)
                assert rig.executor.calls == []
                assert rig.kernels_made == kernels_before
                return
            result = portal.call(mcp_call, name, args)
            assert isinstance(result, types.CallToolResult)
            assert all(isinstance(b, types.TextContent | types.ImageContent) for b in result.content)
            if statically_rejected(rig, name, args):
                assert result.is_error
                assert rig.executor.calls == [], (name, args, rig.executor.methods())
                assert rig.kernels_made == kernels_before

        one_call()
