"""The one tool registry: the js facade, the kernel, `sequence` and the service all name its tools."""

from __future__ import annotations

import re
from pathlib import Path

from deskhand.backends.base import Executor
from deskhand.host.tools import MUTATING_TOOLS, TOOL_NAMES, TOOLS
from deskhand.kernel.session import INVOCABLE
from deskhand.server.service import SEMANTIC_TOOLS

CUA_JS = Path(__file__).resolve().parents[2] / "src" / "deskhand" / "kernel" / "js" / "cua.js"


def _names(pattern: str) -> set[str]:
    return set(re.findall(pattern, CUA_JS.read_text(encoding="utf-8")))


def test_every_app_method_call_in_cua_js_is_a_registry_action_and_every_action_has_one() -> None:
    acted = _names(r'\bact\("([a-z_]+)"')
    assert acted == set(MUTATING_TOOLS)


def test_every_raw_computer_call_in_cua_js_is_a_registry_action_and_every_action_has_one() -> None:
    raw = _names(r'\bnativeAction\("([a-z_]+)"')
    assert raw == set(MUTATING_TOOLS)


def test_every_name_cua_js_invokes_is_in_the_registry_and_the_observations_are_invoked() -> None:
    invoked = _names(r'\binvoke\("([a-z_]+)"')
    assert invoked <= set(TOOL_NAMES)
    assert {n for n in TOOL_NAMES if not TOOLS[n].mutates} <= invoked


def test_the_raw_computer_object_has_one_method_per_tool() -> None:
    body = CUA_JS.read_text(encoding="utf-8").split("const computer = Object.freeze({", 1)[1].split("\n});", 1)[0]
    keys = set(re.findall(r"^  ([a-z_]+): tracked\(", body, re.MULTILINE))
    assert keys == set(TOOL_NAMES)


def test_every_list_derives_from_the_registry() -> None:
    assert set(INVOCABLE) == set(TOOL_NAMES)
    assert SEMANTIC_TOOLS == TOOL_NAMES
    assert TOOL_NAMES[:2] == ("list_apps", "get_app_state")


def test_every_action_row_calls_an_executor_method_of_its_own_name() -> None:
    for name in MUTATING_TOOLS:
        assert TOOLS[name].act is not None
        assert hasattr(Executor, name), name
    for name in ("list_apps", "get_app_state"):
        assert TOOLS[name].act is None
