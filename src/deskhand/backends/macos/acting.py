"""Acting on a macOS app: CGEvent pointer, wheel and keys posted to the pid, AX actions, paste, selectText.

UNTESTED HERE: ``MacActor`` drives ``_ax``, ``_quartz_input``, ``_pasteboard`` and ``_tis`` (pyobjc,
ctypes) and runs only on a Mac; every decision comes from the core (event lists, click pairs,
scroll deltas, chords, text matches, the paste state machine) and from the unit-tested
``_events`` / ``_windows`` / ``_mapping`` plans. Before each burst the gate re-proves the identity
and binds the window; coordinates go through the executor's screenshot transform (6.2).
Index clicks run the core's tier runner (``core.clicktiers``: press-repeat, the pre-click hover,
the rules that end a click) over ``_clicks.AXElement`` and ``_Bursts``. Simplified against the contract
(next steps): ``AXElement`` supplies no list-selection, descendant or hit-test primitive yet, so
tiers 1, 3 and 4 find nothing and an element without a press action gets the synthetic click;
type_text does not fall back to paste.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Mapping
from typing import Any, Final, Protocol

from deskhand.backends.base import (
    ActionResult,
    Direction,
    Handle,
    MouseButton,
    PasteFormat,
    ProcessIdentity,
    RunningApp,
    SelectionType,
)
from deskhand.backends.macos import _ax, _axerrors, _events, _keylayout, _quartz_input, _tis
from deskhand.backends.macos._clicks import AXElement
from deskhand.backends.macos._windows import CGWindow, bind_at_point
from deskhand.core import clicktiers, textchunks, textmatch
from deskhand.core import keys as corekeys
from deskhand.core import pointer as corepointer
from deskhand.core import scroll as corescroll
from deskhand.core.axtree.model import Element
from deskhand.core.axtree.text import match_secondary_action
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Point
from deskhand.core.paste import PastePayload, PasteTransaction
from deskhand.core.scroll import PAGE_SCROLL_ACTIONS

SELECTION_READBACK_S: Final = 0.2
TEXT_ROLES: Final = frozenset({"AXTextField", "AXTextArea", "AXTextView", "AXComboBox", "AXSearchField"})


class MacObserved(Protocol):
    """What the actor needs from the observation side (``MacExecutor``'s public helpers)."""

    def verify_identity(self, app: RunningApp) -> ProcessIdentity: ...
    def windows(self, app: RunningApp) -> list[CGWindow]: ...
    def key_window(self, app: RunningApp, windows: list[CGWindow] | None = None) -> CGWindow | None: ...
    def element(self, app: RunningApp, handle: Handle) -> Element: ...
    def to_global(self, app: RunningApp, x: float, y: float, key: CGWindow | None) -> Point: ...
    def mark_mutation(self, app: RunningApp) -> None: ...


def _refused(code: str, message: str) -> NativeError:
    return NativeError(code, message, dispatched=False)


class MacActor:
    def __init__(self, executor: MacObserved) -> None:
        self._x = executor
        self._numbers = corepointer.event_numbers()
        self._lock = threading.RLock()

    # -- gates --------------------------------------------------------------------------------
    def _bind(self, app: RunningApp, at: Point | None = None) -> CGWindow:
        """Re-prove identity, then the window: the one containing ``at``, else the key window."""
        self._x.verify_identity(app)
        windows = self._x.windows(app)
        if at is not None:
            return bind_at_point(windows, app.pid, at)
        key = self._x.key_window(app, windows)
        if key is None:
            raise _refused("stale_window", "The app has no key window; observe the app again.")
        return key

    def _points(self, app: RunningApp, *pixels: tuple[float, float]) -> list[Point]:
        key = self._x.key_window(app)
        return [self._x.to_global(app, x, y, key) for x, y in pixels]

    def _post_pointer(self, app: RunningApp, window: CGWindow, events: tuple[corepointer.PointerEvent, ...]) -> None:
        origin = Point(window.frame.x, window.frame.y)
        plans = _events.mouse_plans(events, window.id, origin)
        self._x.verify_identity(app)
        _quartz_input.post_mouse(app.pid, plans)
        self._x.mark_mutation(app)

    # -- pointer ------------------------------------------------------------------------------
    def click(
        self, app: RunningApp, *, element: Handle | None = None, point: tuple[float, float] | None = None,
        button: MouseButton = "left", count: int = 1,
    ) -> ActionResult:  # fmt: skip
        corepointer.check_click_count(count)
        with self._lock:
            if element is not None:
                return self._click_element(app, element, button, count)
            if point is None:
                raise _refused("bad_payload", "click needs an element or a point.")
            return self._synthetic(app, self._points(app, point)[0], button, count, "coordinates")

    def _click_element(self, app: RunningApp, handle: Handle, button: MouseButton, count: int) -> ActionResult:
        el = self._x.element(app, handle)
        done = clicktiers.click_element(
            AXElement(lambda: self._x.verify_identity(app)),
            _Bursts(self, app),
            el.ref,
            el.frame,
            button=button,
            count=count,
        )
        if done.route == "synthetic" and done.point is not None:
            at = done.point
            return ActionResult({"route": "synthetic", "point": [at.x, at.y], "button": button, "count": count})
        self._x.mark_mutation(app)
        return ActionResult({"route": "ax_action", "action": done.action})

    def _synthetic(self, app: RunningApp, at: Point, button: MouseButton, count: int, route: str) -> ActionResult:
        clicktiers.synthetic_click(_Bursts(self, app), at, button, count)
        return ActionResult({"route": route, "point": [at.x, at.y], "button": button, "count": count})

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        with self._lock:
            a, b = self._points(app, start, end)
            window = self._bind(app, a)  # bound at the origin for the whole gesture (6.4)
            events = corepointer.drag_events(a, b, button, self._numbers)
            self._post_pointer(app, window, events)
            return ActionResult({"from": [a.x, a.y], "to": [b.x, b.y], "events": len(events)})

    def scroll(
        self, app: RunningApp, *, direction: Direction, pages: float, element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult:  # fmt: skip
        with self._lock:
            if element is not None:
                el = self._x.element(app, element)
                if el.frame is None:
                    raise _refused("no_action", "The element has no frame to scroll.")
                plan = corescroll.plan_indexed(direction, pages, el.frame)
                window = self._bind(app, plan.point)
            elif point is not None:
                at = self._points(app, point)[0]
                window = self._bind(app, at)
                plan = corescroll.plan_at_point(direction, pages, at, window.frame)
            else:
                raise _refused("bad_payload", "scroll needs an element or a point.")
            wheel = _events.wheel_plan(plan, window.id, Point(window.frame.x, window.frame.y))
            self._x.verify_identity(app)
            _quartz_input.post_wheel(app.pid, wheel)
            self._x.mark_mutation(app)
            return ActionResult({"route": "wheel_pixels", "delta": [plan.delta.dx, plan.delta.dy]})

    # -- keyboard -----------------------------------------------------------------------------
    def _key_plans(self, key: str) -> tuple[_events.KeyPlan, ...]:
        chords = corekeys.parse_keys(key)
        corekeys.check_press_budget(chords)
        reverse = _tis.current_reverse_map()
        baseline = _events.baseline_flags(_quartz_input.session_flags())
        return _events.key_bursts(chords, lambda ch: _keylayout.lookup(reverse, ch), baseline)

    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        with self._lock:
            plans = self._key_plans(key)  # every event allocated before the gate and the post
            self._bind(app)
            _quartz_input.post_keys(app.pid, plans)
            self._x.mark_mutation(app)
            return ActionResult({"events": len(plans)})

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        if not text:
            return ActionResult({"route": "none"})
        with self._lock:
            self._bind(app)
            for i, chunk in enumerate(textchunks.unicode_chunks(text)):
                if i:
                    time.sleep(textchunks.CHUNK_PAUSE_S)
                self._x.verify_identity(app)
                _quartz_input.post_unicode(app.pid, chunk)
            self._x.mark_mutation(app)
            return ActionResult({"route": "unicode_events"})

    # -- paste --------------------------------------------------------------------------------
    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        from deskhand.backends.macos._pasteboard import MacClipboard, RunLoopClock  # noqa: PLC0415

        with self._lock:
            self._bind(app)
            payload = PastePayload.build(text, fmt)
            target = _AXPasteTarget(self, app)
            receipt = PasteTransaction(payload, MacClipboard(), target, clock=RunLoopClock()).run()
            self._x.mark_mutation(app)
            error = receipt.error()
            if error is not None:
                if not receipt.paste_posted:
                    error.dispatched = False
                raise error
            return ActionResult({**receipt.summary(), "receipt": receipt.to_json()})

    def post_paste_chord(self, app: RunningApp) -> None:
        plans = self._key_plans("super+v")
        self._bind(app)
        _quartz_input.post_keys(app.pid, plans)

    # -- text, values, actions ----------------------------------------------------------------
    def select_text(
        self, app: RunningApp, element: Handle, text: str, *, prefix: str | None = None, suffix: str | None = None,
        selection_type: SelectionType = "text",
    ) -> ActionResult:  # fmt: skip
        if not text:
            raise _refused("bad_payload", textmatch.EMPTY_TEXT_MESSAGE)
        with self._lock:
            ref = self._x.element(app, element).ref
            source = _ax.attribute(ref, "AXValue")
            if not _ax.is_settable(ref, "AXSelectedTextRange") or not isinstance(source, str):
                raise _refused("not_selectable", "The element has no settable text selection or no text value.")
            found = textmatch.select_range(source, text, prefix=prefix or "", suffix=suffix or "", mode=selection_type)
            self._x.verify_identity(app)
            if _ax.attribute(ref, "AXValue") != source:
                raise _refused("stale_element", "Text changed before selection; observe again.")
            status = _ax.set_range(ref, "AXSelectedTextRange", found.location, found.length)
            if status != _axerrors.SUCCESS:  # set the in-app focus once and retry; never activate the app
                _ax.set_attribute(ref, "AXFocused", True)
                _axerrors.check(_ax.set_range(ref, "AXSelectedTextRange", found.location, found.length),
                                "set AXSelectedTextRange", dispatched=None)  # fmt: skip
            verified = _read_back(ref, (found.location, found.length))
            return ActionResult(
                {"location": found.location, "length": found.length, "verified": verified, "path": "ax"},
            )

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        with self._lock:
            ref = self._x.element(app, element).ref
            if not _ax.is_settable(ref, "AXValue"):
                raise _refused("not_settable", "The element's value cannot be set.")
            before = _ax.attribute(ref, "AXValue")
            self._x.verify_identity(app)
            _axerrors.check(_ax.set_attribute(ref, "AXValue", value), "set AXValue", dispatched=None)
            self._x.mark_mutation(app)
            return ActionResult({"before": before, "after": _ax.attribute(ref, "AXValue")})

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        with self._lock:
            ref = self._x.element(app, element).ref
            raw = _ax.read(ref)
            names = raw.actions if raw else ()
            index = match_secondary_action(action, names)
            if index is None:
                raise _refused("invalid_action", f"{action} is not a valid secondary action for {element}")
            chosen = names[index]
            self._x.verify_identity(app)
            target, performed = self._page_button(app, ref, chosen) or (ref, chosen)
            _axerrors.check(_ax.perform(target, performed), performed, dispatched=None)
            self._x.mark_mutation(app)
            return ActionResult({"action": chosen})

    def _page_button(self, app: RunningApp, ref: Any, raw: str) -> tuple[Any, str] | None:
        """A page-scroll action goes to the scroll bar's page button (6.8); None when it has none."""
        page = PAGE_SCROLL_ACTIONS.get(raw)
        bar = _ax.attribute(ref, page.scroll_bar_attribute) if page else None
        children = _ax.attribute(bar, "AXChildren") if bar is not None else None
        for child in children if isinstance(children, list) else []:
            role, subrole = _ax.attribute(child, "AXRole"), _ax.attribute(child, "AXSubrole")
            if page and role == "AXButton" and subrole == page.button_subrole:
                if _ax.pid_of(child) != app.pid:
                    raise _refused("stale_element", "The scroll bar button belongs to another process.")
                return child, "AXPress"
        return None


class _Bursts:
    """``core.clicktiers.PointerPrimitives``: the window is bound at the hover's point (6.3 step 1)."""

    def __init__(self, actor: MacActor, app: RunningApp) -> None:
        self._actor, self._app = actor, app
        self._window: CGWindow | None = None

    def hover(self, at: Point) -> None:
        self._window = self._actor._bind(self._app, at)
        self._actor._post_pointer(self._app, self._window, (corepointer.hover_event(at, self._actor._numbers),))

    def click(self, at: Point, button: MouseButton, count: int) -> None:
        window = self._window or self._actor._bind(self._app, at)
        events = corepointer.click_events(at, button, count, self._actor._numbers)
        self._actor._post_pointer(self._app, window, events)


def _read_back(ref: Any, wanted: tuple[int, int]) -> bool:
    deadline = time.monotonic() + SELECTION_READBACK_S
    while True:
        if _ax.attribute(ref, "AXSelectedTextRange") == wanted:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


class _AXPasteTarget:
    """``core.paste.PasteTarget``: the focused element's AXSelectedTextRange/AXNumberOfCharacters and Cmd+V."""

    KEYS: Final = {"range": "AXSelectedTextRange", "characters": "AXNumberOfCharacters"}

    def __init__(self, actor: MacActor, app: RunningApp) -> None:
        self._actor, self._app = actor, app
        focused = _ax.attribute(_ax.application(app.pid), "AXFocusedUIElement")
        self._ref = focused if focused is not None and _ax.pid_of(focused) == app.pid else None

    def baseline(self) -> Mapping[str, object]:
        return dict(self.read(self.KEYS.keys()) or {})

    def subscribe(self) -> bool:
        return False  # AXObserver notifications are a next step; the baseline re-reads are the signals

    def event_count(self) -> int:
        return 0

    def read(self, keys: Collection[str]) -> Mapping[str, object] | None:
        if self._ref is None:
            return None
        out: dict[str, object] = {}
        for key in keys:
            value = _ax.attribute(self._ref, self.KEYS[key])
            if value is not None:
                out[key] = value
        return out

    def send_paste_keys(self) -> None:
        self._actor.post_paste_chord(self._app)

    def close(self) -> None:
        return None
