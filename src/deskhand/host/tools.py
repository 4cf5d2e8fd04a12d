"""The one registry of the 12 semantic tools: one row per tool (native-contract.md 1.4).

A row holds the tool's name, description, JSON schema, extra accepted keys, whether it mutates,
its argument parser (:mod:`deskhand.host.validate`) and, for an action, its one executor call.
Every other list derives from :data:`TOOLS`: the advertised specs and annotations, the host's
parse and dispatch, the js kernel's invocable names, `sequence`'s batchable tools and the
service's semantic tools. Adding a tool is one row here plus its executor method.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, Generic, TypeVar

from deskhand.backends.base import ActionResult, Executor, RunningApp
from deskhand.core.errors import ArgumentError
from deskhand.core.platform import Platform
from deskhand.core.scroll import MAX_PAGES, TOOL_DIRECTION_NAMES
from deskhand.core.textmatch import SELECTION_MODES
from deskhand.host import validate as v
from deskhand.host.schemas import (
    APP,
    BUTTON,
    HANDLE,
    PASTE_FORMATS,
    POINT,
    Schema,
    coordinate,
    object_schema,
    tool_annotations,
)

R = TypeVar("R", bound=v.Request)


@dataclass(frozen=True)  # no slots: a subscripted generic (Tool[Click](...)) sets __orig_class__
class Tool(Generic[R]):
    """One semantic tool."""

    name: str
    description: str
    schema: Schema
    mutates: bool
    parse: Callable[[v.Args], R]
    #: The one executor call of an action; None for the two observations, which the host answers itself.
    act: Callable[[Executor, RunningApp, R], ActionResult] | None = None
    #: Accepted keys that are not in the schema (aliases the contract accepts but does not advertise).
    extra_keys: frozenset[str] = frozenset()

    @property
    def accepted_keys(self) -> frozenset[str]:
        properties = self.schema.get("properties", {})
        return frozenset(properties if isinstance(properties, dict) else ()) | self.extra_keys

    @property
    def annotations(self) -> dict[str, bool]:
        return tool_annotations(mutates=self.mutates)


_ROWS: Final[tuple[Tool[Any], ...]] = (
    Tool[v.ListApps](
        "list_apps",
        "List running and recently used apps that can be targeted.",
        object_schema({}),
        mutates=False,
        parse=v.parse_list_apps,
    ),
    Tool[v.GetAppState](
        "get_app_state",
        "Observe an app: its accessibility tree as text (a diff unless disabled) and a window screenshot.",
        object_schema(
            {
                "app": APP,
                "disableDiff": {"type": "boolean", "description": "Return the full tree instead of a diff."},
                "disable_diff": {"type": "boolean", "description": "Alias of disableDiff."},
                "waitForChangeMs": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": v.MAX_WAIT_FOR_CHANGE_MS,
                    "description": "Wait up to this many ms for the app to change since its last observation.",
                },
                "imageOnly": {
                    "type": "boolean",
                    "description": "Only the screenshot is wanted: the tree may be the last one read if the app "
                    "did not change since.",
                },
                "textOnly": {
                    "type": "boolean",
                    "description": "Only the text is wanted: no screenshot is taken (coordinates keep referring "
                    "to the window as a screenshot would show it now).",
                },
            },
            ("app",),
        ),
        mutates=False,
        parse=v.parse_get_app_state,
    ),
    Tool[v.ListWindows](
        "list_windows",
        "List top-level windows (of one pid when given): window_id, pid, app, title, bounds, z_index.",
        object_schema({"pid": {"type": "integer", "minimum": 1, "maximum": 4294967295, "description": "Owner pid."}}),
        mutates=False,
        parse=v.parse_list_windows,
    ),
    Tool[v.Click](
        "click",
        "Click an element (element_index) or a screenshot point (x, y).",
        object_schema(
            {
                "app": APP,
                "element_index": HANDLE,
                "x": coordinate("X"),
                "y": coordinate("Y"),
                "click_count": {"type": "integer", "minimum": 1, "maximum": 3, "description": "1, 2 or 3; default 1."},
                "mouse_button": BUTTON,
            },
            ("app",),
        ),
        mutates=True,
        parse=v.parse_click,
        act=lambda ex, app, r: ex.click(app, element=r.element, point=r.point, button=r.button, count=r.count),
    ),
    Tool[v.SecondaryAction](
        "perform_secondary_action",
        "Perform a named secondary action of an element.",
        object_schema(
            {"app": APP, "element_index": HANDLE, "action": {"type": "string", "description": "Action name as shown."}},
            ("app", "element_index", "action"),
        ),
        mutates=True,
        parse=v.parse_secondary_action,
        act=lambda ex, app, r: ex.perform_secondary_action(app, r.element, r.action),
    ),
    Tool[v.SetValue](
        "set_value",
        "Set the value of an element.",
        object_schema(
            {
                "app": APP,
                "element_index": HANDLE,
                "value": {"type": "string", "description": "New value; may be empty."},
            },
            ("app", "element_index", "value"),
        ),
        mutates=True,
        parse=v.parse_set_value,
        act=lambda ex, app, r: ex.set_value(app, r.element, r.value),
    ),
    Tool[v.SelectText](
        "select_text",
        "Select a unique occurrence of text in an element, or place the caret before or after it.",
        object_schema(
            {
                "app": APP,
                "element_index": HANDLE,
                "text": {"type": "string", "description": "The exact text to find (case-sensitive, must be unique)."},
                "prefix": {"type": "string", "description": "Text immediately before the match."},
                "suffix": {"type": "string", "description": "Text immediately after the match."},
                "selection": {"type": "string", "enum": list(SELECTION_MODES), "description": "Default text."},
                "selection_type": {
                    "type": "string",
                    "enum": list(SELECTION_MODES),
                    "description": "Alias of selection.",
                },
            },
            ("app", "element_index", "text"),
        ),
        mutates=True,
        parse=v.parse_select_text,
        act=lambda ex, app, r: ex.select_text(
            app, r.element, r.text, prefix=r.prefix, suffix=r.suffix, selection_type=r.selection
        ),
    ),
    Tool[v.Scroll](
        "scroll",
        "Scroll an element or a screenshot point by pages.",
        object_schema(
            {
                "app": APP,
                "direction": {"type": "string", "enum": list(TOOL_DIRECTION_NAMES)},
                "element_index": HANDLE,
                "x": coordinate("X"),
                "y": coordinate("Y"),
                "pages": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": int(MAX_PAGES),
                    "description": "Default 1.",
                },
            },
            ("app", "direction"),
        ),
        mutates=True,
        parse=v.parse_scroll,
        act=lambda ex, app, r: ex.scroll(app, direction=r.direction, pages=r.pages, element=r.element, point=r.point),
        extra_keys=frozenset({"amount"}),  # an alias of pages (1.4), accepted but not advertised
    ),
    Tool[v.Drag](
        "drag",
        "Drag from one screenshot point to another.",
        object_schema(
            {
                "app": APP,
                "from_x": coordinate("Start x"),
                "from_y": coordinate("Start y"),
                "to_x": coordinate("End x"),
                "to_y": coordinate("End y"),
                "from": {**POINT, "description": "Start point (alias of from_x/from_y)."},
                "to": {**POINT, "description": "End point (alias of to_x/to_y)."},
                "mouse_button": BUTTON,
            },
            ("app",),
        ),
        mutates=True,
        parse=v.parse_drag,
        act=lambda ex, app, r: ex.drag(app, r.start, r.end, button=r.button),
    ),
    Tool[v.PressKey](
        "press_key",
        "Press xdotool-style key chords in the app.",
        object_schema(
            {"app": APP, "key": {"type": "string", "description": "xdotool-style keys, e.g. ctrl+a or Return Return."}},
            ("app", "key"),
        ),
        mutates=True,
        parse=v.parse_press_key,
        act=lambda ex, app, r: ex.press_key(app, r.key),
    ),
    Tool[v.TypeText](
        "type_text",
        "Type text into the focused element.",
        object_schema(
            {"app": APP, "text": {"type": "string", "description": "Text to type; empty does nothing."}},
            ("app", "text"),
        ),
        mutates=True,
        parse=v.parse_type_text,
        act=lambda ex, app, r: ex.type_text(app, r.text),
    ),
    Tool[v.Paste](
        "paste",
        "Paste text, Markdown or HTML through the clipboard; the previous clipboard is restored.",
        object_schema(
            {
                "app": APP,
                "text": {"type": "string"},
                "format": {"type": "string", "enum": list(PASTE_FORMATS), "description": "text, md or html."},
            },
            ("app", "text", "format"),
        ),
        mutates=True,
        parse=v.parse_paste,
        act=lambda ex, app, r: ex.paste(app, r.text, r.fmt),
    ),
)

#: name -> row, in the contract's order (the observations first).
TOOLS: Final[Mapping[str, Tool[Any]]] = MappingProxyType({t.name: t for t in _ROWS})
TOOL_NAMES: Final = tuple(TOOLS)
READ_ONLY_TOOLS: Final = tuple(t.name for t in _ROWS if not t.mutates)
#: The tools `sequence` may batch.
MUTATING_TOOLS: Final = tuple(t.name for t in _ROWS if t.mutates)
SCHEMAS: Final[Mapping[str, Schema]] = MappingProxyType({t.name: t.schema for t in _ROWS})


def tool_specs() -> dict[str, tuple[str, Schema, dict[str, bool]]]:
    """name -> (description, input schema, annotations), for the MCP server to advertise."""
    return {t.name: (t.description, t.schema, t.annotations) for t in _ROWS}


def parse_request(
    name: str, args: object, *, platform: Platform = "linux", system_keys_granted: bool = False
) -> v.Request:
    """The typed request for one tool call, or a pre-dispatch error.

    Raises:
        ArgumentError: ``bad_args`` for an unknown tool or any invalid argument.
        NativeError: ``unknown_key`` for an unparsable key string.
        GrantRequiredError: a system key combination without the session grant.
    """
    tool = TOOLS.get(name)
    if tool is None:
        raise ArgumentError(f"Unknown tool: {name}")
    request: v.Request = tool.parse(v.Args(name, args, tool.accepted_keys))
    if isinstance(request, v.PressKey):
        v.check_press_key(request, platform=platform, system_keys_granted=system_keys_granted)
    return request


def act(executor: Executor, app: RunningApp, request: v.Request) -> ActionResult:
    """Exactly one executor method for a mutating request."""
    call = TOOLS[request.tool].act
    if call is None:
        msg = f"{request.tool} is not an action"
        raise TypeError(msg)
    return call(executor, app, request)
