"""Static parse of the semantic tools' arguments: the first gate, before anything else runs.

Each tool's arguments become one typed request, or an :class:`ArgumentError` (``bad_args``) with one
of the texts below. ``additionalProperties: false`` holds everywhere (the one accepted extra is
``scroll``'s ``amount``, an alias of ``pages``, as in native-contract.md 1.4). Keys are parsed here
too (``unknown_key``), and the system-combination check runs against the session's grant.

Error texts (the contract fixes only "click x and y must be provided together"; the rest follow its
"<tool> requires ..." style):

- ``<tool> requires an object of arguments.`` / ``<tool> does not accept the argument '<key>'.``
- ``<tool> requires <key>.`` / ``<tool> <key> must be a string.`` / ``... must be a boolean.``
- ``<tool> <key> must be a finite number >= 0.`` / ``click click_count must be an integer from 1 to 3.``
- ``<tool> element_index must be an element handle like g1:23 from get_app_state.``
- ``<tool> got both <a> and <b>; pass only one.``
- ``<tool> requires element_index or both x and y.`` / ``<tool> takes element_index or x and y, not both.``
- ``scroll pages must be a number greater than 0 and at most 10.``
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Literal, cast

from deskhand.backends.base import Direction, MouseButton, PasteFormat, SelectionType
from deskhand.core.axtree.handles import HANDLE_PATTERN
from deskhand.core.errors import ArgumentError, GrantRequiredError
from deskhand.core.keypolicy import needs_grant
from deskhand.core.keys import check_press_budget, parse_keys
from deskhand.host.schemas import DIRECTIONS, MOUSE_BUTTONS, PASTE_FORMATS, SCHEMAS, SELECTION_MODES

#: ASCII digits only, as the schema's ``\d`` means in JSON Schema (ECMA-262); Python's ``\d`` is Unicode.
_BUTTON_ALIASES: Final[Mapping[str, MouseButton]] = {"l": "left", "m": "middle", "r": "right"}
_LEGACY_BUTTONS: Final[Mapping[int, MouseButton]] = {1: "left", 2: "middle", 3: "right", 4: "back", 5: "forward"}
_DIRECTION_ALIASES: Final[Mapping[str, Direction]] = {"u": "up", "d": "down", "l": "left", "r": "right"}
_EXTRA_KEYS: Final[Mapping[str, frozenset[str]]] = {"scroll": frozenset({"amount"})}

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class ListApps:
    tool: Literal["list_apps"] = "list_apps"


@dataclass(frozen=True, slots=True)
class GetAppState:
    app: str
    disable_diff: bool = False
    tool: Literal["get_app_state"] = "get_app_state"


@dataclass(frozen=True, slots=True)
class Click:
    app: str
    element: str | None
    point: Point | None
    button: MouseButton = "left"
    count: int = 1
    tool: Literal["click"] = "click"


@dataclass(frozen=True, slots=True)
class SecondaryAction:
    app: str
    element: str
    action: str
    tool: Literal["perform_secondary_action"] = "perform_secondary_action"


@dataclass(frozen=True, slots=True)
class SetValue:
    app: str
    element: str
    value: str
    tool: Literal["set_value"] = "set_value"


@dataclass(frozen=True, slots=True)
class SelectText:
    app: str
    element: str
    text: str
    prefix: str | None = None
    suffix: str | None = None
    selection: SelectionType = "text"
    tool: Literal["select_text"] = "select_text"


@dataclass(frozen=True, slots=True)
class Scroll:
    app: str
    direction: Direction
    pages: float
    element: str | None
    point: Point | None
    tool: Literal["scroll"] = "scroll"


@dataclass(frozen=True, slots=True)
class Drag:
    app: str
    start: Point
    end: Point
    button: MouseButton = "left"
    tool: Literal["drag"] = "drag"


@dataclass(frozen=True, slots=True)
class PressKey:
    app: str
    key: str
    tool: Literal["press_key"] = "press_key"


@dataclass(frozen=True, slots=True)
class TypeText:
    app: str
    text: str
    tool: Literal["type_text"] = "type_text"


@dataclass(frozen=True, slots=True)
class Paste:
    app: str
    text: str
    fmt: PasteFormat
    tool: Literal["paste"] = "paste"


Request = (
    ListApps
    | GetAppState
    | Click
    | SecondaryAction
    | SetValue
    | SelectText
    | Scroll
    | Drag
    | PressKey
    | TypeText
    | Paste
)
Targeted = GetAppState | Click | SecondaryAction | SetValue | SelectText | Scroll | Drag | PressKey | TypeText | Paste


class _Args:
    """One tool's argument object, read key by key with the tool's error texts."""

    def __init__(self, tool: str, args: object) -> None:
        if not isinstance(args, dict):
            raise ArgumentError(f"{tool} requires an object of arguments.")
        allowed = set(cast("dict[str, object]", SCHEMAS[tool]["properties"])) | _EXTRA_KEYS.get(tool, frozenset())
        for key in args:
            if key not in allowed:
                raise ArgumentError(f"{tool} does not accept the argument '{key}'.")
        self.tool = tool
        self.args: dict[str, object] = args

    def fail(self, message: str) -> ArgumentError:
        return ArgumentError(f"{self.tool} {message}")

    def string(self, key: str) -> str | None:
        return None if self.args.get(key) is None else self.required(key)

    def required(self, key: str) -> str:
        value = self.args.get(key)
        if value is None:
            raise self.fail(f"requires {key}.")
        if not isinstance(value, str):
            raise self.fail(f"{key} must be a string.")
        return value

    def app(self) -> str:
        value = self.required("app").strip()
        if not value:
            raise self.fail("requires app.")
        return value

    def boolean(self, key: str) -> bool | None:
        value = self.args.get(key)
        if value is None or isinstance(value, bool):
            return value
        raise self.fail(f"{key} must be a boolean.")

    def number(self, key: str) -> float | None:
        value = self.args.get(key)
        if value is None:
            return None
        number = _coordinate(value)
        if number is None:
            raise self.fail(f"{key} must be a finite number >= 0.")
        return number

    def handle(self) -> str | None:
        """element_index; an empty string counts as absent."""
        value = self.args.get("element_index")
        if value is None or value == "":
            return None
        if not isinstance(value, str) or not HANDLE_PATTERN.fullmatch(value):
            raise self.fail("element_index must be an element handle like g1:23 from get_app_state.")
        return value

    def alias(self, key: str, alias: str) -> str:
        """The key that is present, refusing both."""
        if self.args.get(key) is not None and self.args.get(alias) is not None:
            raise self.fail(f"got both {key} and {alias}; pass only one.")
        return alias if self.args.get(alias) is not None else key

    def button(self) -> MouseButton:
        value = self.args.get("mouse_button")
        if value is None:
            return "left"
        if isinstance(value, int) and not isinstance(value, bool) and value in _LEGACY_BUTTONS:
            return _LEGACY_BUTTONS[value]
        if isinstance(value, str) and value in MOUSE_BUTTONS:
            return _BUTTON_ALIASES.get(value, cast("MouseButton", value))
        raise self.fail("mouse_button must be left, middle, right, back, forward, l, m, r, or 1-5.")

    def target(self) -> tuple[str | None, Point | None]:
        """element_index or both x and y, never both forms and never neither."""
        element = self.handle()
        x, y = self.number("x"), self.number("y")
        if (x is None) != (y is None):
            raise self.fail("x and y must be provided together")
        if element is not None and x is not None:
            raise self.fail("takes element_index or x and y, not both.")
        if element is None and x is None:
            raise self.fail("requires element_index or both x and y.")
        return element, (None if x is None or y is None else (x, y))


def _get_app_state(a: _Args) -> GetAppState:
    app = a.app()
    value = a.boolean(a.alias("disableDiff", "disable_diff"))
    return GetAppState(app, bool(value))


def _click(a: _Args) -> Click:
    app = a.app()
    element, point = a.target()
    count = a.args.get("click_count", 1)
    if isinstance(count, float) and count.is_integer():
        count = int(count)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 3:
        raise a.fail("click_count must be an integer from 1 to 3.")
    return Click(app, element, point, a.button(), count)


def _secondary(a: _Args) -> SecondaryAction:
    return SecondaryAction(a.app(), _element(a), a.required("action"))


def _set_value(a: _Args) -> SetValue:
    return SetValue(a.app(), _element(a), a.required("value"))


def _element(a: _Args) -> str:
    element = a.handle()
    if element is None:
        raise a.fail("requires element_index.")
    return element


def _select_text(a: _Args) -> SelectText:
    app, element, text = a.app(), _element(a), a.required("text")
    mode = a.string(a.alias("selection", "selection_type")) or "text"
    if mode not in SELECTION_MODES:
        raise a.fail("selection must be text, cursor_before, or cursor_after.")
    return SelectText(app, element, text, a.string("prefix"), a.string("suffix"), cast("SelectionType", mode))


def _scroll(a: _Args) -> Scroll:
    app = a.app()
    direction = a.required("direction")
    if direction not in DIRECTIONS:
        raise a.fail("direction must be up, down, left, or right.")
    pages_key = a.alias("pages", "amount")
    pages = a.args.get(pages_key, 1)
    if isinstance(pages, bool) or not isinstance(pages, int | float) or not 0 < pages <= 10:
        raise a.fail("pages must be a number greater than 0 and at most 10.")
    element, point = a.target()
    return Scroll(app, _DIRECTION_ALIASES.get(direction, cast("Direction", direction)), float(pages), element, point)


def _drag(a: _Args) -> Drag:
    app = a.app()
    flat = [a.number(k) for k in ("from_x", "from_y", "to_x", "to_y")]
    nested = [a.args.get(k) for k in ("from", "to")]
    if any(v is not None for v in flat) and any(v is not None for v in nested):
        raise a.fail("takes from_x/from_y/to_x/to_y or from and to, not both.")
    if any(v is not None for v in nested):
        start, end = (_nested_point(a, k) for k in ("from", "to"))
    else:
        if any(v is None for v in flat):
            raise a.fail("requires from_x, from_y, to_x and to_y (or from and to).")
        fx, fy, tx, ty = (cast("float", v) for v in flat)
        start, end = (fx, fy), (tx, ty)
    return Drag(app, start, end, a.button())


def _nested_point(a: _Args, key: str) -> Point:
    value = a.args.get(key)
    if isinstance(value, dict) and set(value) == {"x", "y"}:
        x, y = _coordinate(value["x"]), _coordinate(value["y"])
        if x is not None and y is not None:
            return (x, y)
    raise a.fail(f"{key} must be an object with numbers x and y >= 0.")


def _coordinate(value: object) -> float | None:
    """A finite number >= 0 (booleans are not numbers), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # a JSON integer beyond float range is not a finite coordinate
        return None
    if not math.isfinite(number) or number < 0:
        return None
    return number


def _press_key(a: _Args) -> PressKey:
    return PressKey(a.app(), a.required("key"))


def _type_text(a: _Args) -> TypeText:
    return TypeText(a.app(), a.required("text"))


def _paste(a: _Args) -> Paste:
    app, text = a.app(), a.required("text")
    fmt = a.required("format")
    if fmt not in PASTE_FORMATS:
        raise a.fail("format must be text, md, or html.")
    return Paste(app, text, cast("PasteFormat", fmt))


def _list_apps(a: _Args) -> ListApps:
    return ListApps()


_PARSERS: Final[Mapping[str, Callable[[_Args], Request]]] = {
    "list_apps": _list_apps,
    "get_app_state": _get_app_state,
    "click": _click,
    "perform_secondary_action": _secondary,
    "set_value": _set_value,
    "select_text": _select_text,
    "scroll": _scroll,
    "drag": _drag,
    "press_key": _press_key,
    "type_text": _type_text,
    "paste": _paste,
}


def parse_request(name: str, args: object, *, platform: str = "linux", system_keys_granted: bool = False) -> Request:
    """The typed request for one tool call, or a pre-dispatch error.

    Raises:
        ArgumentError: ``bad_args`` for an unknown tool or any invalid argument.
        NativeError: ``unknown_key`` for an unparsable key string.
        GrantRequiredError: a system key combination without the session grant.
    """
    parser = _PARSERS.get(name)
    if parser is None:
        raise ArgumentError(f"Unknown tool: {name}")
    request: Request = parser(_Args(name, args))
    if isinstance(request, PressKey):
        chords = parse_keys(request.key)
        check_press_budget(chords)
        keypolicy_platform = {"macos": "darwin", "windows": "win32"}.get(platform, platform)
        if not system_keys_granted and needs_grant(chords, keypolicy_platform):
            raise GrantRequiredError(request.key)
    return request
