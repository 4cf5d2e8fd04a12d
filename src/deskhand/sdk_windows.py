"""The exact-window workflow of seed 2 for the Python SDK (sdk-contract.md 2.4 and 4).

A window is addressed by ``(pid, window_id)`` as ``list_windows`` reports it. Every call goes
through the host's gates for that pid (resolve, deny policy, proven identity), and each
:class:`Window` method first checks, before dispatch, that the window still exists, still
belongs to the pid and is the window deskhand observes and maps coordinates into (the app's key
window); otherwise it raises ``window_not_found`` / ``window_not_key`` with nothing sent.
Coordinates are pixels of that window's screenshot from :meth:`Window.observe`, origin top-left;
the backend refuses them (``target_window_changed``) if another window became the key window
after that observation, so an event never lands in a different window.

``verify_state`` and ``act_and_verify`` observe, compare the state text with expected strings,
and report ``{effect, compared}``: ``confirmed`` when the expectations hold after the action and
did not all hold before it; ``refused`` when the action was refused before dispatch;
``unverifiable`` otherwise.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from deskhand.core.errors import ArgumentError, DeskhandError, NativeError
from deskhand.host.result import ImageBlock, ToolResult


class Computer(Protocol):
    """What a window needs of ``deskhand.sdk.Computer``: its checked call and observed windows."""

    _observed_windows: dict[int, int]

    def _call(self, tool: str, args: dict[str, object]) -> ToolResult: ...


MAX_PID = 0xFFFFFFFF
MAX_TIMEOUT_MS = 10_000
MAX_STABLE_SAMPLES = 5
ActionOutcome = dict[str, object]


def check_pid(pid: object) -> int:
    if isinstance(pid, bool) or not isinstance(pid, int) or not 1 <= pid <= MAX_PID:
        raise ArgumentError("pid must be an integer from 1 to 4294967295")
    return pid


def check_window_id(window_id: object) -> int:
    if isinstance(window_id, bool) or not isinstance(window_id, int) or window_id < 1:
        raise ArgumentError("window_id must be a positive integer")
    return window_id


def _coordinate(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ArgumentError(f"{name} must be a finite number (window-local coordinates)")
    return float(value)


def _keys(keys: object, minimum: int) -> str:
    if isinstance(keys, str) or not isinstance(keys, Sequence) or len(keys) < minimum:
        raise ArgumentError(f"hotkey keys must be a list of at least {minimum} key names, e.g. ['ctrl', 'c']")
    names = list(keys)
    if not all(isinstance(k, str) and k.strip() and "+" not in k.strip() for k in names):
        raise ArgumentError("hotkey keys must be non-empty key names without '+'")
    return "+".join(k.strip() for k in names)


def hotkey_chord(keys: object, *, minimum: int = 1) -> str:
    """``['ctrl', 'shift', 's']`` -> ``ctrl+shift+s`` (the ``press_key`` chord)."""
    return _keys(keys, minimum)


def list_windows(computer: Computer, pid: int | None = None) -> list[dict[str, object]]:
    args: dict[str, object] = {} if pid is None else {"pid": check_pid(pid)}
    windows = computer._call("list_windows", args).structured.get("windows")
    return [dict(w) for w in windows] if isinstance(windows, list) else []


def find_window(computer: Computer, pid: int, window_id: int) -> dict[str, object]:
    """The window's record, or ``window_not_found`` (not dispatched)."""
    pid, window_id = check_pid(pid), check_window_id(window_id)
    for w in list_windows(computer, pid):
        if str(w.get("window_id")) == str(window_id):
            return w
    raise NativeError("window_not_found", f"Window {window_id} of pid {pid} does not exist.", dispatched=False)


def _state_dict(pid: int, window_id: int, result: ToolResult, include_screenshot: bool) -> dict[str, object]:
    text = "\n".join(b.text for b in result.content if not isinstance(b, ImageBlock))
    image = next((b for b in result.content if isinstance(b, ImageBlock)), None)
    out: dict[str, object] = {"pid": pid, "windowId": window_id, "mode": state_mode(text), "text": text}
    if include_screenshot and image is not None:
        out["screenshot"] = {"mimeType": image.mime_type, "data": image.data}
    out["screenshotSha256"] = hashlib.sha256(image.data).hexdigest() if image is not None else None
    return out


def state_mode(text: str) -> str:
    if "There has been no change in the accessibility tree" in text:
        return "no_change"
    if "The following is a diff from the previous accessibility tree" in text:
        return "diff"
    return "full"


class Window:
    """One exact window: every method targets ``(pid, window_id)`` or raises before dispatch."""

    def __init__(self, computer: Computer, pid: int, window_id: int) -> None:
        self._computer = computer
        self.pid = check_pid(pid)
        self.window_id = check_window_id(window_id)

    def __repr__(self) -> str:
        return f"Window(pid={self.pid}, window_id={self.window_id})"

    @property
    def _app(self) -> str:
        return str(self.pid)

    def _check(self) -> dict[str, object]:
        record = find_window(self._computer, self.pid, self.window_id)
        if record.get("is_key") is not True:
            raise NativeError(
                "window_not_key",
                f"Window {self.window_id} of pid {self.pid} is not its app's key window; deskhand observes and "
                "acts on the key window only. List the windows again and pick the key one.",
                dispatched=False,
            )
        return record

    def observe(self, *, include_screenshot: bool = False, disable_diff: bool = False) -> dict[str, object]:
        """The window's state text (its tree where it has one) and, when asked, its screenshot."""
        self._check()
        self._computer._observed_windows.pop(self.pid, None)
        result = self._computer._call("get_app_state", {"app": self._app, "disableDiff": disable_diff or None})
        # The observation is of the key window; confirm it still is this one (no other window's pixels).
        self._check()
        self._computer._observed_windows[self.pid] = self.window_id
        return _state_dict(self.pid, self.window_id, result, include_screenshot)

    def _act(self, tool: str, *, coordinates: bool, **args: object) -> ActionOutcome:
        self._check()
        if coordinates and self._computer._observed_windows.get(self.pid) != self.window_id:
            raise NativeError(
                "app_screenshot_required",
                f"Observe window {self.window_id} (observe_window) before using its coordinates.",
                dispatched=False,
            )
        sent = {"app": self._app, **{k: v for k, v in args.items() if v is not None}}
        result = self._computer._call(tool, sent).structured.get("result")
        return dict(result) if isinstance(result, dict) else {"effect": "unverifiable"}

    def click(self, x: float, y: float, *, button: str = "left", count: int = 1) -> ActionOutcome:
        point = {"x": _coordinate(x, "x"), "y": _coordinate(y, "y")}
        return self._act("click", coordinates=True, **point, mouse_button=button, click_count=count)

    def double_click(self, x: float, y: float) -> ActionOutcome:
        return self.click(x, y, count=2)

    def right_click(self, x: float, y: float) -> ActionOutcome:
        return self.click(x, y, button="right")

    def drag(self, from_x: float, from_y: float, to_x: float, to_y: float) -> ActionOutcome:
        coords = {
            k: _coordinate(v, k) for k, v in {"from_x": from_x, "from_y": from_y, "to_x": to_x, "to_y": to_y}.items()
        }
        return self._act("drag", coordinates=True, **coords)

    def scroll(self, x: float, y: float, direction: str, *, pages: float | None = None) -> ActionOutcome:
        point = {"x": _coordinate(x, "x"), "y": _coordinate(y, "y")}
        return self._act("scroll", coordinates=True, **point, direction=direction, pages=pages)

    def press_key(self, key: str) -> ActionOutcome:
        if not isinstance(key, str) or not key.strip():
            raise ArgumentError("key is required")
        return self._act("press_key", coordinates=False, key=key)

    def hotkey(self, keys: Sequence[str]) -> ActionOutcome:
        return self._act("press_key", coordinates=False, key=hotkey_chord(keys, minimum=2))

    def type_text(self, text: str) -> ActionOutcome:
        if not isinstance(text, str):
            raise ArgumentError("text must be a string")
        return self._act("type_text", coordinates=False, text=text)


def _check_expect(expect: object) -> list[str]:
    if isinstance(expect, str) or not isinstance(expect, Sequence) or not expect:
        raise ArgumentError("expect must be a non-empty list of strings")
    if not all(isinstance(e, str) and e for e in expect):
        raise ArgumentError("expect must be a non-empty list of non-empty strings")
    return list(expect)


def verify_state(
    window: Window, expect: Sequence[str], *, timeout_ms: int = 2000, stable_samples: int = 1
) -> dict[str, object]:
    """Observe until every expected string is in the state text for ``stable_samples`` observations in a row."""
    wanted = _check_expect(expect)
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or not 0 <= timeout_ms <= MAX_TIMEOUT_MS:
        raise ArgumentError("timeout_ms must be an integer from 0 to 10000")
    if isinstance(stable_samples, bool) or not isinstance(stable_samples, int):
        raise ArgumentError("stable_samples must be an integer from 1 to 5")
    if not 1 <= stable_samples <= MAX_STABLE_SAMPLES:
        raise ArgumentError("stable_samples must be an integer from 1 to 5")
    deadline = time.monotonic() + timeout_ms / 1000
    run = samples = 0
    while True:
        text = str(window.observe(disable_diff=True)["text"])
        samples += 1
        missing = [e for e in wanted if e not in text]
        run = run + 1 if not missing else 0
        if run >= stable_samples or time.monotonic() >= deadline:
            break
    satisfied = run >= stable_samples
    compared = {"expect": wanted, "found": [e for e in wanted if e not in missing], "missing": missing}
    return {
        "status": "satisfied" if satisfied else "unsatisfied",
        "stable": satisfied,
        "effect": "confirmed" if satisfied else "unverifiable",
        "compared": {**compared, "samples": samples},
    }


def act_and_verify(
    window: Window,
    act: Callable[[Window], ActionOutcome],
    expect: Sequence[str],
    *,
    timeout_ms: int = 2000,
    stable_samples: int = 1,
) -> dict[str, object]:
    """Observe, act once, settle, observe until the expectations hold; never repeats the action.

    A refusal before dispatch is reported as ``effect: refused`` with its code; any other error
    propagates (the action's effect is unknown and must be observed, not retried).
    """
    wanted = _check_expect(expect)
    before = window.observe(disable_diff=True)
    held_before = [e for e in wanted if e in str(before["text"])]
    try:
        action = act(window)
    except DeskhandError as err:
        if not err.not_dispatched:
            raise
        return {"effect": "refused", "code": err.code, "message": str(err), "compared": {"expect": wanted}}
    verified = verify_state(window, wanted, timeout_ms=timeout_ms, stable_samples=stable_samples)
    after = window.observe(disable_diff=True)
    compared = dict(verified["compared"])  # type: ignore[call-overload]
    compared["held_before"] = held_before
    compared["screenshot_changed"] = before["screenshotSha256"] != after["screenshotSha256"]
    already = len(held_before) == len(wanted)
    effect = "confirmed" if verified["status"] == "satisfied" and not already else "unverifiable"
    return {"effect": effect, "status": verified["status"], "action": action, "compared": compared}
