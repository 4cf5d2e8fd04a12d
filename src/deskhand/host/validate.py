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
- ``scroll pages must be a number greater than 0 and at most 10.`` (:data:`~deskhand.core.scroll.MAX_PAGES`)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal, cast

from deskhand.backends.base import Direction, MouseButton, PasteFormat, SelectionType
from deskhand.core.axtree.handles import HANDLE_PATTERN
from deskhand.core.errors import ArgumentError, GrantRequiredError
from deskhand.core.keypolicy import needs_grant
from deskhand.core.keys import check_press_budget, parse_keys
from deskhand.core.platform import Platform
from deskhand.core.pointer import TOOL_BUTTON_NAMES, button_from_tool
from deskhand.core.scroll import MAX_PAGES, TOOL_DIRECTION_NAMES, check_pages, parse_direction
from deskhand.core.textmatch import SELECTION_MODES
from deskhand.host.schemas import PASTE_FORMATS

Point = tuple[float, float]


#: The longest an observation may wait for the app to change (a deskhand addition).
MAX_WAIT_FOR_CHANGE_MS: Final = 10_000


@dataclass(frozen=True, slots=True)
class ListApps:
    tool: Literal["list_apps"] = "list_apps"


@dataclass(frozen=True, slots=True)
class ListWindows:
    pid: int | None = None
    tool: Literal["list_windows"] = "list_windows"


@dataclass(frozen=True, slots=True)
class GetAppState:
    app: str
    disable_diff: bool = False
    #: Wait up to this long for the app to change since its last observation, then observe.
    wait_for_change_s: float = 0.0
    #: Only the screenshot is wanted (``Executor.get_app_state``'s ``image_only``).
    image_only: bool = False
    #: Only the text is wanted (``Executor.get_app_state``'s ``text_only``).
    text_only: bool = False
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
    | ListWindows
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


class Args:
    """One tool's argument object, read key by key with the tool's error texts.

    ``allowed`` is every key the tool accepts: its schema's properties plus its extra aliases.
    """

    def __init__(self, tool: str, args: object, allowed: frozenset[str]) -> None:
        if not isinstance(args, dict):
            raise ArgumentError(f"{tool} requires an object of arguments.")
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
        exact = not isinstance(value, str) or value in TOOL_BUTTON_NAMES  # the schema's enum: no case folding
        try:
            if exact:
                return button_from_tool(value)
        except ArgumentError:
            pass
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


def parse_get_app_state(a: Args) -> GetAppState:
    app = a.app()
    value = a.boolean(a.alias("disableDiff", "disable_diff"))
    wait_ms = a.number("waitForChangeMs") or 0.0
    if wait_ms > MAX_WAIT_FOR_CHANGE_MS:
        raise a.fail(f"waitForChangeMs must be at most {MAX_WAIT_FOR_CHANGE_MS}.")
    if "imageOnly" in a.args and "textOnly" in a.args:
        raise a.fail("got both imageOnly and textOnly; pass only one.")
    image_only, text_only = bool(a.boolean("imageOnly")), bool(a.boolean("textOnly"))
    return GetAppState(app, bool(value), wait_ms / 1000, image_only, text_only)


def parse_click(a: Args) -> Click:
    app = a.app()
    element, point = a.target()
    count = a.args.get("click_count", 1)
    if isinstance(count, float) and count.is_integer():
        count = int(count)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 3:
        raise a.fail("click_count must be an integer from 1 to 3.")
    return Click(app, element, point, a.button(), count)


def parse_secondary_action(a: Args) -> SecondaryAction:
    return SecondaryAction(a.app(), _element(a), a.required("action"))


def parse_set_value(a: Args) -> SetValue:
    return SetValue(a.app(), _element(a), a.required("value"))


def _element(a: Args) -> str:
    element = a.handle()
    if element is None:
        raise a.fail("requires element_index.")
    return element


def parse_select_text(a: Args) -> SelectText:
    app, element, text = a.app(), _element(a), a.required("text")
    mode = a.string(a.alias("selection", "selection_type")) or "text"
    if mode not in SELECTION_MODES:
        raise a.fail("selection must be text, cursor_before, or cursor_after.")
    return SelectText(app, element, text, a.string("prefix"), a.string("suffix"), mode)


def parse_scroll(a: Args) -> Scroll:
    app = a.app()
    direction = a.required("direction")
    if direction not in TOOL_DIRECTION_NAMES:  # the schema's enum: no case folding
        raise a.fail("direction must be up, down, left, or right.")
    pages = a.args.get(a.alias("pages", "amount"), 1)
    try:
        if pages is None:  # an explicit null is not "absent" here
            raise ArgumentError(_PAGES)
        checked = check_pages(pages)
    except ArgumentError:
        raise a.fail(_PAGES) from None
    element, point = a.target()
    return Scroll(app, parse_direction(direction), checked, element, point)


_PAGES: Final = f"pages must be a number greater than 0 and at most {MAX_PAGES:g}."


def parse_drag(a: Args) -> Drag:
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


def _nested_point(a: Args, key: str) -> Point:
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


def parse_press_key(a: Args) -> PressKey:
    return PressKey(a.app(), a.required("key"))


def parse_type_text(a: Args) -> TypeText:
    return TypeText(a.app(), a.required("text"))


def parse_paste(a: Args) -> Paste:
    app, text = a.app(), a.required("text")
    fmt = a.required("format")
    if fmt not in PASTE_FORMATS:
        raise a.fail("format must be text, md, or html.")
    return Paste(app, text, cast("PasteFormat", fmt))


def parse_list_apps(a: Args) -> ListApps:
    return ListApps()


def parse_list_windows(a: Args) -> ListWindows:
    value = a.args.get("pid")
    if value is None:
        return ListWindows()
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 0xFFFFFFFF:
        raise a.fail("pid must be an integer from 1 to 4294967295.")
    return ListWindows(value)


def check_press_key(request: PressKey, *, platform: Platform, system_keys_granted: bool) -> None:
    """The key string's grammar and budget, then the system-combination check against the grant.

    Raises:
        NativeError: ``unknown_key`` for an unparsable key string.
        ArgumentError: more chords than one press may carry.
        GrantRequiredError: a system key combination without the session grant.
    """
    chords = parse_keys(request.key)
    check_press_budget(chords)
    if not system_keys_granted and needs_grant(chords, platform):
        raise GrantRequiredError(request.key)
