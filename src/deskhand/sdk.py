"""The Python SDK: ``Computer`` and ``App``, the same operations as the `js` facade for scripts.

Every call goes through the same service and host gates as the MCP tools (validation, deny
policy, identity proof, the session queue), and failures raise typed ``DeskhandError``s.

    with Computer.virtual() as computer:
        computer.launch(["mousepad"])
        app = computer.get_app("Mousepad")
        app.type_text("hello")
        print(app.get_ax_state())
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio.from_thread

from deskhand.core.axtree.indexmap import IndexMap
from deskhand.core.errors import ArgumentError, DeskhandError, NativeError, from_result
from deskhand.core.pointer import button_from_js
from deskhand.core.scroll import check_js_pages, parse_direction
from deskhand.host.result import ImageBlock, ToolResult
from deskhand.sdk_windows import Window, act_and_verify, check_pid, find_window, hotkey_chord, state_mode, verify_state

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

    from deskhand.desktop import VirtualDesktop
    from deskhand.server.service import Service

Target = int | str | Sequence[float]
#: What an action did (``core.effects``): ``effect``, ``route``, ``evidence`` and what was measured.
ActionOutcome = dict[str, object]


def _raise_for(result: ToolResult, method: str) -> ToolResult:
    if result.is_error:
        raise from_result(result, method)
    return result


def _point(value: object, what: str = "coordinate") -> tuple[float, float]:
    message = f"{what} must include finite x and y coordinates"
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) < 2:
        raise ArgumentError(message)
    x, y = value[0], value[1]
    for v in (x, y):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ArgumentError(message)
    return float(x), float(y)


class App:
    """One bound app. Mirrors the JS App object with snake_case names."""

    def __init__(self, computer: Computer, app: str) -> None:
        self._computer = computer
        self.app = app
        self._indices = IndexMap()

    def __repr__(self) -> str:
        return f"App({self.app!r})"

    def _call(self, tool: str, **args: object) -> ToolResult:
        return self._computer._call(tool, {"app": self.app, **{k: v for k, v in args.items() if v is not None}})

    def _target(self, target: Target) -> dict[str, object]:
        if isinstance(target, int | str) and not isinstance(target, bool):
            return {"element_index": self._indices.resolve(target)}
        x, y = _point(target)
        return {"x": x, "y": y}

    def _observe(self, **args: object) -> ToolResult:
        try:
            result = self._call("get_app_state", **args)
        except DeskhandError:
            self._indices.clear()
            raise
        self._indices.remember(result.text)
        return result

    def get_ax_state(self, *, disable_diffing: bool | None = None, wait_for_change_ms: float | None = None) -> str:
        """The framed state text: a full tree, or a diff after the first observation. With
        ``wait_for_change_ms``, it first waits (bounded) for the app to change since its last
        observation; a notice in the text says whether it did."""
        return self._observe(disableDiff=disable_diffing, waitForChangeMs=wait_for_change_ms, textOnly=True).text

    def get_screenshot(self) -> bytes:
        """The JPEG of the app's window. Integer indices are cleared first, as in the facade."""
        self._indices.clear()
        result = self._call("get_app_state", imageOnly=True)
        for block in result.content:
            if isinstance(block, ImageBlock):
                return block.data
        raise NativeError("capture_failed", f"Screenshot unavailable for {self.app}.")

    def get_ax_state_and_screenshot(self, *, disable_diffing: bool | None = None) -> tuple[str, bytes | None]:
        result = self._observe(disableDiff=disable_diffing)
        image = next((b.data for b in result.content if isinstance(b, ImageBlock)), None)
        return result.text, image

    def get_state(self, *, disable_diff: bool | None = None, include_screenshot: bool = False) -> dict[str, object]:
        """Seed 2's state: ``{app, window, mode, text}`` and, when asked, ``screenshot``."""
        result = self._observe(disableDiff=disable_diff)
        text = result.text
        window = next((ln[len("Window: ") :] for ln in text.splitlines() if ln.startswith("Window: ")), "")
        state: dict[str, object] = {"app": self.app, "window": window, "mode": state_mode(text), "text": text}
        image = next((b for b in result.content if isinstance(b, ImageBlock)), None)
        if include_screenshot and image is not None:
            state["screenshot"] = {"mimeType": image.mime_type, "data": image.data}
        return state

    def double_click(self, target: Target) -> ActionOutcome:
        return self.click(target, click_count=2)

    def right_click(self, target: Target) -> ActionOutcome:
        return self.click(target, mouse_button="right")

    def hotkey(self, keys: Sequence[str]) -> ActionOutcome:
        """A chord from a key list, e.g. ``['ctrl', 's']`` (sent as ``press_key('ctrl+s')``)."""
        return self._act("press_key", key=hotkey_chord(keys))

    def click(
        self, target: Target, *, mouse_button: int | str | None = None, click_count: int | None = None
    ) -> ActionOutcome:
        button = None if mouse_button is None else button_from_js(mouse_button)
        return self._act("click", **self._target(target), mouse_button=button, click_count=click_count)

    def drag(self, start: Sequence[float], end: Sequence[float]) -> ActionOutcome:
        (fx, fy), (tx, ty) = _point(start, "from"), _point(end, "to")
        return self._act("drag", from_x=fx, from_y=fy, to_x=tx, to_y=ty)

    def scroll(self, target: Target, direction: str, pages: float | None = None) -> ActionOutcome:
        name = parse_direction(direction)
        check_js_pages(pages)  # the facade's rule; the host adds pages <= 10
        return self._act("scroll", **self._target(target), direction=name, pages=pages)

    def press_key(self, key: str) -> ActionOutcome:
        if not isinstance(key, str) or not key.strip():
            raise ArgumentError("key is required")
        return self._act("press_key", key=key)

    def type_text(self, text: str) -> ActionOutcome:
        return self._act("type_text", text=text)

    def paste(self, text: str, *, format: str = "text") -> ActionOutcome:
        return self._act("paste", text=text, format=format)

    def select_text(
        self,
        element: int | str,
        text: str,
        *,
        prefix: str | None = None,
        suffix: str | None = None,
        selection_type: str | None = None,
    ) -> ActionOutcome:
        handle = self._indices.resolve(element)
        return self._act(
            "select_text", element_index=handle, text=text, prefix=prefix, suffix=suffix, selection_type=selection_type
        )

    def set_value(self, element: int | str, value: str) -> ActionOutcome:
        return self._act("set_value", element_index=self._indices.resolve(element), value=value)

    def perform_secondary_action(self, element: int | str, action: str) -> ActionOutcome:
        return self._act("perform_secondary_action", element_index=self._indices.resolve(element), action=action)

    def _act(self, tool: str, **args: object) -> ActionOutcome:
        """One action; its result as the ``js`` App methods give it (``effect``, ``route``, evidence, measures)."""
        result = self._call(tool, **args).structured.get("result")
        return dict(result) if isinstance(result, dict) else {"effect": "unverifiable"}


class Computer(AbstractContextManager["Computer"]):
    """A connection to one desktop: the current display, or a private virtual desktop."""

    def __init__(
        self, service: Service, portal: BlockingPortal, portal_cm: Any, desktop: VirtualDesktop | None
    ) -> None:
        self._service = service
        self._portal = portal
        self._portal_cm = portal_cm
        self.desktop = desktop
        self._closed = False
        #: pid -> the window id its latest ``observe_window`` observed (coordinates refer to it).
        self._observed_windows: dict[int, int] = {}
        #: How to open a fresh service (``reconnect``); None for an injected service.
        self._factory: Callable[[], Service] | None = None
        self.connection_generation = 1

    @classmethod
    def create(cls, *, trace: str | PathLike[str] | None = None, trace_redact: bool = False) -> Computer:
        """Operate the desktop named by the environment (``DISPLAY`` and the session bus).

        ``trace`` records the session into that directory (``deskhand trace view DIR`` shows it);
        ``trace_redact`` replaces typed and pasted text there.
        """
        return cls._open(None, trace=trace, trace_redact=trace_redact)

    @classmethod
    def virtual(
        cls,
        *,
        size: str = "1920x1080x24",
        trace: str | PathLike[str] | None = None,
        trace_redact: bool = False,
        wayland: bool = False,
        compositor: str | None = None,
    ) -> Computer:
        """Start a private virtual desktop (Xvfb, D-Bus, AT-SPI, openbox) torn down on close;
        ``wayland``: a headless Wayland compositor instead, its apps native on Wayland;
        ``compositor`` names it (``sway``, the default; naming one implies ``wayland``)."""
        from deskhand.desktop import VirtualDesktop  # noqa: PLC0415 - only virtual desktops need it

        desktop = VirtualDesktop(size=size, wayland=wayland, compositor=compositor)
        desktop.start()
        try:
            return cls._open(desktop, trace=trace, trace_redact=trace_redact)
        except BaseException:
            desktop.stop()
            raise

    @classmethod
    def _open(
        cls, desktop: VirtualDesktop | None, *, trace: str | PathLike[str] | None = None, trace_redact: bool = False
    ) -> Computer:
        from deskhand.runtime import open_service  # noqa: PLC0415 - avoid importing backends at import time

        portal_cm = anyio.from_thread.start_blocking_portal()
        portal = portal_cm.__enter__()
        try:
            service = open_service(
                env=desktop.env if desktop else None,
                trace=None if trace is None else Path(trace),
                trace_redact=trace_redact,
            )
        except BaseException:
            portal_cm.__exit__(None, None, None)
            raise
        computer = cls(service, portal, portal_cm, desktop)
        computer._factory = lambda: open_service(env=desktop.env if desktop else None)
        return computer

    def _call(self, tool: str, args: dict[str, object]) -> ToolResult:
        if self._closed:
            raise DeskhandError("Computer instance is closed", code="closed", dispatched=False)
        return _raise_for(self._portal.call(self._service.call, tool, args), tool)

    def launch(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, timeout_s: float = 20.0) -> int:
        """Start an app inside the virtual desktop; wait until it is on the AT-SPI bus and has a window; its pid."""
        if self.desktop is None:
            raise DeskhandError(
                "launch needs a virtual desktop (Computer.virtual())", code="bad_args", dispatched=False
            )
        app = self.desktop.launch(list(argv), env=env)
        with self.desktop.a11y() as bus:
            bus.wait_for_pid(app.pid, timeout_s=timeout_s)
        self.desktop.wait_for_window(app.pid, timeout_s=timeout_s)
        return int(app.pid)

    def get_platform(self) -> str:
        """The controlled desktop's platform, read from the tools listing's ``_meta.platform``
        exactly as a remote MCP client reads it; never the host's OS; not cached.

        Raises:
            NativeError: ``driver_platform_unavailable`` when the metadata is missing or invalid.
        """
        if self._closed:
            raise DeskhandError("Computer instance is closed", code="closed", dispatched=False)
        from deskhand.server.mcp import listing_json, platform_of  # noqa: PLC0415 - the server's channel

        return platform_of(listing_json(self._service))

    # --- the exact-window workflow (seed 2; sdk_windows) -------------------------------------

    def list_windows(self, pid: int | None = None) -> list[dict[str, object]]:
        """Top-level windows: ``window_id``, ``pid``, ``app``, ``title``, ``bounds``, ``z_index``, ``is_key``."""
        from deskhand.sdk_windows import list_windows  # noqa: PLC0415 - same module, named like the method

        return list_windows(self, pid)

    def get_window(self, pid: int, window_id: int) -> Window:
        """The exact window, or ``window_not_found`` when ``pid`` has no such window now."""
        find_window(self, pid, window_id)
        return Window(self, pid, window_id)

    def observe_window(
        self, pid: int, window_id: int, *, include_screenshot: bool = False, disable_diff: bool = False
    ) -> dict[str, object]:
        return self.get_window(pid, window_id).observe(include_screenshot=include_screenshot, disable_diff=disable_diff)

    def verify_state(
        self, pid: int, window_id: int, expect: Sequence[str], *, timeout_ms: int = 2000, stable_samples: int = 1
    ) -> dict[str, object]:
        window = self.get_window(pid, window_id)
        return verify_state(window, expect, timeout_ms=timeout_ms, stable_samples=stable_samples)

    def act_and_verify(
        self,
        pid: int,
        window_id: int,
        act: Callable[[Window], ActionOutcome],
        expect: Sequence[str],
        *,
        timeout_ms: int = 2000,
    ) -> dict[str, object]:
        """Act once on the window (``act(window)``), settle, observe and report ``{effect, compared}``."""
        return act_and_verify(self.get_window(pid, window_id), act, expect, timeout_ms=timeout_ms)

    def reconnect(self) -> dict[str, object]:
        """Replace the service with a fresh one (bindings and observations start over)."""
        if self._closed:
            raise DeskhandError("Computer instance is closed", code="closed", dispatched=False)
        if self._factory is None:
            raise NativeError("reconnect_unavailable", "This Computer does not own its service.", dispatched=False)
        old, self._service = self._service, self._factory()
        self._observed_windows.clear()
        self.connection_generation += 1
        self._portal.call(old.close)
        return {"connectionGeneration": self.connection_generation}

    def list_apps(self) -> list[dict[str, object]]:
        result = self._call("list_apps", {})
        apps = result.structured.get("apps")
        if isinstance(apps, list):
            return [dict(a) for a in apps]
        out: list[dict[str, object]] = []
        for line in result.text.splitlines():
            name, sep, app_id = line.rpartition(" — ")
            if sep:
                out.append({"id": app_id, "displayName": name, "isRunning": True})
        return out

    def get_app(self, selector: str | int) -> App:
        """Bind an app: one full observation, then every action targets the resolved app.

        A positive integer is a pid, as the digits string is."""
        if isinstance(selector, int) and not isinstance(selector, bool):
            selector = str(check_pid(selector))
        if not isinstance(selector, str) or not selector.strip():
            raise DeskhandError("getApp requires an explicit app name, bundle ID, or path", code="bad_args")
        result = self._call("get_app_state", {"app": selector, "disableDiff": True})
        resolved = result.structured.get("app")
        app = App(self, resolved if isinstance(resolved, str) and resolved else selector)
        app._indices.remember(result.text)
        return app

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._portal.call(self._service.close)
        finally:
            self._portal_cm.__exit__(None, None, None)
            if self.desktop is not None:
                self.desktop.stop()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def image_data_url(data: bytes, mime_type: str = "image/jpeg") -> str:
    return f"data:{mime_type};base64,{base64.b64encode(data).decode('ascii')}"
