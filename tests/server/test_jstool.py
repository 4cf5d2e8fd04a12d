"""The js / js_reset dispatcher validation (native-contract.md 1.2, 1.3)."""

from __future__ import annotations

import pytest

from deskhand.server.jstool import (
    JS_BAD_ARGS,
    JS_NOT_OBJECT,
    JS_RESET_BAD_ARGS,
    JsArgumentError,
    parse_js,
    parse_js_reset,
)


def test_defaults_timeout_to_30000() -> None:
    req = parse_js({"code": "1"})
    assert (req.code, req.title, req.timeout_ms) == ("1", None, 30000)


@pytest.mark.parametrize("args", [None, [], "code", 5])
def test_non_object_is_refused(args: object) -> None:
    with pytest.raises(JsArgumentError, match=r"^js requires an object with code\.$"):
        parse_js(args)
    assert JS_NOT_OBJECT == "js requires an object with code."


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"code": 1},
        {"code": "x", "extra": 1},
        {"code": "x", "title": 3},
        {"code": "x", "timeout_ms": 0},
        {"code": "x", "timeout_ms": 60001},
        {"code": "x", "timeout_ms": 1.5},
        {"code": "x", "timeout_ms": True},
        {"code": "é" * (128 * 1024 + 1)},  # 256 KiB + 2 bytes in UTF-8
    ],
)
def test_bad_args_text(args: dict[str, object]) -> None:
    with pytest.raises(JsArgumentError) as err:
        parse_js(args)
    assert str(err.value) == JS_BAD_ARGS
    assert JS_BAD_ARGS == "js requires code (up to 256 KiB), an optional title, and timeout_ms between 1 and 60000."


def test_code_limit_counts_utf8_bytes() -> None:
    assert parse_js({"code": "é" * (128 * 1024)}).code  # exactly 256 KiB
    assert parse_js({"code": "x", "timeout_ms": 60000}).timeout_ms == 60000


@pytest.mark.parametrize("args", [None, [], {"x": 1}])
def test_js_reset_takes_an_empty_object(args: object) -> None:
    with pytest.raises(JsArgumentError, match=r"^js_reset takes an empty object\.$"):
        parse_js_reset(args)
    parse_js_reset({})
    assert JS_RESET_BAD_ARGS == "js_reset takes an empty object."
