"""Property-based tests of the host's static parse (native-contract.md 1.4), for every semantic tool.

* Random argument values either parse into the tool's request or raise a typed pre-dispatch
  error (``bad_args``, ``unknown_key``, ``grant_flag_required``, all flagged not dispatched); no
  other exception ever escapes the validator.
* Arguments generated from the published JSON schemas (``host/schemas.py``), plus the call-time
  rules that the schemas cannot state without a root-level ``anyOf`` (listed in ``CALL_TIME``),
  always parse.
* ``additionalProperties: false`` holds for every tool: any extra key is refused with its text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deskhand.core.errors import DeskhandError
from deskhand.core.keys import KEY_ALIASES, MODIFIER_ALIASES
from deskhand.host import validate as v
from deskhand.host.schemas import Schema
from deskhand.host.tools import SCHEMAS, TOOL_NAMES, parse_request

PRE_DISPATCH_CODES = {"bad_args", "unknown_key", "grant_flag_required"}
#: Keys the validator accepts beyond the schema (contract 1.4: `amount` is an alias of scroll's `pages`).
EXTRA_KEYS: Mapping[str, set[str]] = {"scroll": {"amount"}}

# --- strategies for arbitrary JSON-ish values -------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(),
    st.text(max_size=30),
    st.sampled_from(["g1:2", "g0:0", "g01:2", "17", "left", "md", "down", "ctrl+a", "Return", "", " ", "\ud800"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=6,
)


def _random_args(tool: str) -> st.SearchStrategy[object]:
    """Dicts over the tool's own keys (and a few foreign ones) with arbitrary values, or non-dicts."""
    props = sorted(cast("dict[str, Schema]", SCHEMAS[tool]["properties"]))
    keys = st.sampled_from([*props, *sorted(EXTRA_KEYS.get(tool, ())), "tool", "APP", "x", "from", "amount"])
    return st.one_of(st.dictionaries(keys, json_values, max_size=8), json_values)


# --- strategies from the schemas -------------------------------------------------------------------

_MODIFIER_TOKENS = sorted({t for aliases in MODIFIER_ALIASES.values() for t in aliases})
_KEY_TOKENS = sorted({t for aliases in KEY_ALIASES.values() for t in aliases})
_chord = st.builds(
    lambda mods, key: "+".join([*mods, key]),
    st.lists(st.sampled_from(_MODIFIER_TOKENS), max_size=3),
    st.one_of(
        st.sampled_from(_KEY_TOKENS),
        st.sampled_from([t.upper() for t in _KEY_TOKENS]),
        st.characters(categories=("L", "N", "P", "S"), exclude_characters="+"),
    ),
)
#: `key` is a plain string in the schema; its grammar (xdotool chords, contract 6.5) is a call-time rule.
_keys = st.lists(_chord, min_size=1, max_size=6).map(" ".join)


def _number(schema: Schema) -> st.SearchStrategy[float | int]:
    low = cast("float", schema.get("minimum", schema.get("exclusiveMinimum", -1e12)))
    high = cast("float", schema.get("maximum", 1e12))
    exclusive = "exclusiveMinimum" in schema
    floats = st.floats(low, high, exclude_min=exclusive, allow_nan=False, allow_infinity=False)
    ints = st.integers(math.floor(low) + (1 if exclusive else 0), math.floor(high))
    return st.one_of(floats, ints)


def _from_schema(key: str, schema: Schema) -> st.SearchStrategy[Any]:
    """A value valid for one property schema (JSON-schema semantics, ASCII `\\d` as in ECMA-262)."""
    if "enum" in schema:
        return st.sampled_from(cast("list[object]", schema["enum"]))
    kind = schema["type"]
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(cast("int", schema["minimum"]), cast("int", schema["maximum"]))
    if kind == "number":
        return _number(schema)
    if kind == "object":
        props = cast("dict[str, Schema]", schema["properties"])
        return st.fixed_dictionaries({k: _from_schema(k, s) for k, s in props.items()})
    assert kind == "string", (key, schema)
    if "pattern" in schema:
        return st.from_regex(re.compile(cast("str", schema["pattern"]), re.ASCII), fullmatch=True)
    if key == "key":
        return _keys
    if key == "app":  # a selector: blank is refused at call time ("<tool> requires app.")
        return st.text(min_size=1, max_size=20).filter(str.strip)
    return st.text(max_size=20)


#: The either/or rules enforced at call time, per tool: groups of keys of which the request uses
#: exactly one (``one``) or at most one (``at_most_one``); a tuple is a set of keys used together.
CALL_TIME: Mapping[str, dict[str, list[tuple[str, ...]]]] = {
    "get_app_state": {
        "at_most_one": [("disableDiff",), ("disable_diff",)],
        "at_most_one_of_only": [("imageOnly",), ("textOnly",)],
    },
    "click": {"one": [("element_index",), ("x", "y")]},
    "scroll": {"one": [("element_index",), ("x", "y")], "at_most_one": [("pages",), ("amount",)]},
    "drag": {"one": [("from_x", "from_y", "to_x", "to_y"), ("from", "to")]},
    "select_text": {"at_most_one": [("selection",), ("selection_type",)]},
}


@st.composite
def valid_args(draw: st.DrawFn, tool: str) -> dict[str, object]:
    schema = SCHEMAS[tool]
    props = dict(cast("dict[str, Schema]", schema["properties"]))
    if tool == "scroll":
        props["amount"] = props["pages"]
    required = set(cast("list[str]", schema.get("required", [])))
    rules = CALL_TIME.get(tool, {})
    grouped = {k for groups in rules.values() for group in groups for k in group}
    chosen = set(required)
    for group_kind, groups in rules.items():
        options: list[tuple[str, ...]] = list(groups) if group_kind == "one" else [(), *groups]
        chosen |= set(draw(st.sampled_from(options)))
    free = sorted(set(props) - required - grouped)
    chosen |= set(draw(st.lists(st.sampled_from(free), unique=True))) if free else set()
    return {k: draw(_from_schema(k, props[k])) for k in sorted(chosen)}


def _parse(tool: str, args: object, *, granted: bool) -> v.Request:
    return parse_request(tool, args, platform="linux", system_keys_granted=granted)


# --- properties ----------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", TOOL_NAMES)
@given(data=st.data(), granted=st.booleans())
def test_random_arguments_parse_or_raise_the_typed_pre_dispatch_error(
    tool: str, data: st.DataObject, granted: bool
) -> None:
    args = data.draw(_random_args(tool), label="args")
    try:
        request = _parse(tool, args, granted=granted)
    except DeskhandError as err:  # any other exception type fails the test
        assert err.not_dispatched
        assert err.code in PRE_DISPATCH_CODES
        assert err.message
    else:
        assert request.tool == tool


@pytest.mark.parametrize("tool", TOOL_NAMES)
@given(data=st.data())
def test_schema_valid_arguments_always_parse(tool: str, data: st.DataObject) -> None:
    args = data.draw(valid_args(tool), label="args")
    request = _parse(tool, args, granted=True)
    assert request.tool == tool
    if not isinstance(request, v.ListApps | v.ListWindows):
        assert request.app == cast("str", args["app"]).strip()


@given(data=st.data())
def test_without_the_grant_a_valid_key_parses_or_needs_the_grant(data: st.DataObject) -> None:
    args = data.draw(valid_args("press_key"), label="args")
    try:
        request = _parse("press_key", args, granted=False)
    except DeskhandError as err:
        assert err.code == "grant_flag_required" and err.not_dispatched
    else:
        assert isinstance(request, v.PressKey) and request.key == args["key"]


_property_names = st.text(min_size=1, max_size=12)


@pytest.mark.parametrize("tool", TOOL_NAMES)
@given(data=st.data(), extra=_property_names, value=json_values)
def test_any_extra_key_is_refused(tool: str, data: st.DataObject, extra: str, value: object) -> None:
    allowed = set(cast("dict[str, Schema]", SCHEMAS[tool]["properties"])) | EXTRA_KEYS.get(tool, set())
    if extra in allowed:
        return
    args = {**data.draw(valid_args(tool), label="args"), extra: value}
    with pytest.raises(DeskhandError) as caught:
        _parse(tool, args, granted=True)
    assert caught.value.code == "bad_args" and caught.value.not_dispatched
    assert caught.value.message == f"{tool} does not accept the argument '{extra}'."


@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_every_schema_forbids_additional_properties(tool: str) -> None:
    schema = SCHEMAS[tool]
    assert schema["additionalProperties"] is False
    for prop in cast("dict[str, Schema]", schema["properties"]).values():
        if prop.get("type") == "object":
            assert prop["additionalProperties"] is False


_unicode_digit = st.characters(categories=["Nd"]).filter(lambda c: not c.isascii())


@given(_unicode_digit, st.integers(1, 99), st.booleans())
def test_element_handles_are_ascii_digits_only(digit: str, n: int, in_generation: bool) -> None:
    """The schema's ``\\d`` means 0-9 (ECMA-262); other Unicode decimal digits are not a handle."""
    handle = f"g{n}{digit}:1" if in_generation else f"g{n}:{digit}"
    with pytest.raises(DeskhandError) as caught:
        _parse("set_value", {"app": "M", "element_index": handle, "value": ""}, granted=False)
    assert caught.value.code == "bad_args"
