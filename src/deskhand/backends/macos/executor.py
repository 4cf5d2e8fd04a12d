"""``MacExecutor``: the Executor protocol on macOS (observing here, acting in ``acting.py``).

UNTESTED HERE: it drives ``_ax``, ``_apps`` and ``_quartz_screen`` (pyobjc) and runs only on a
Mac with the Accessibility and Screen Recording permissions; the decisions it applies come from
the core and from this package's pure modules, which are unit-tested on Linux.

Observation: verify the identity (bundle id + executable path + launch time, exact), wait out the
settle rule, drop the pid's screenshot transform, read every AX window with batched reads and the
2 s messaging timeout (``_mapping.walk``, bounded by ``observe_timeout_s`` in total), number it
through the core's ``Observer``, then capture the key window (or the best-scoring one) fitted by
``core.screenshot`` and record the transform only when the contract allows it (6.2, 6.11).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Final

from deskhand.backends.base import (
    ActionResult,
    AppEntry,
    AppState,
    Direction,
    Handle,
    Image,
    MouseButton,
    PasteFormat,
    Platform,
    ProcessIdentity,
    RunningApp,
    SelectionType,
    WindowEntry,
)
from deskhand.backends.macos import _apps, _ax, _axerrors, _identity, _mapping, _quartz_screen
from deskhand.backends.macos._windows import CGWindow, capture_window, match_ax_window, of_pid
from deskhand.core import screenshot
from deskhand.core.axtree.model import AppTree, Element, WindowTree
from deskhand.core.axtree.observer import Observer
from deskhand.core.axtree.settle import SettleClock
from deskhand.core.errors import BackendUnavailable, NativeError
from deskhand.core.geometry import Point

if TYPE_CHECKING:
    from deskhand.backends.macos.acting import MacActor

#: The whole AX read of one observation (each call is bounded by the 2 s messaging timeout).
OBSERVE_TIMEOUT_S: Final = 3.0


class MacExecutor:
    """The macOS backend. Not thread-safe per app; the host serializes calls per session."""

    platform: Platform = "macos"

    def __init__(self, *, observe_timeout_s: float = OBSERVE_TIMEOUT_S) -> None:
        if not _ax.is_trusted():
            raise BackendUnavailable(_axerrors.NOT_TRUSTED_MESSAGE)
        self.observer = Observer()
        self.settle = SettleClock()
        self.observe_timeout_s = observe_timeout_s
        self._transforms: dict[int, screenshot.ShotTransform] = {}
        self._actor: MacActor | None = None

    # -- inventory and identity --------------------------------------------------------------
    def list_apps(self) -> list[AppEntry]:
        return _identity.merge(_apps.running(), _apps.recent_apps())

    def resolve(self, selector: str) -> RunningApp:
        return _identity.resolve(selector, _apps.running())

    def list_windows(self, pid: int | None = None) -> list[WindowEntry]:
        """Not on macOS: its guidance is the App workflow; the exact-window workflow is Linux's."""
        raise NativeError("unsupported_platform", "list_windows is supported only by the Linux driver.")

    def verify_identity(self, app: RunningApp) -> ProcessIdentity:
        return _identity.verify(app.identity, _apps.identity_of(app.pid))

    def windows(self, app: RunningApp) -> list[CGWindow]:
        """The app's CG windows, front to back."""
        return of_pid(_quartz_screen.window_infos(), app.pid)

    def key_window(self, app: RunningApp, windows: list[CGWindow] | None = None) -> CGWindow | None:
        """The CG window of the app's AX focused (else main) window; None when AX names none."""
        ax_app = _ax.application(app.pid)
        for attr in ("AXFocusedWindow", "AXMainWindow"):
            win = _ax.attribute(ax_app, attr)
            if win is None:
                continue
            frame = _mapping.frame_of({k: _ax.attribute(win, k) for k in ("AXPosition", "AXSize")})
            title = _ax.attribute(win, "AXTitle")
            found = match_ax_window(frame, title if isinstance(title, str) else None, windows or self.windows(app))
            if found is not None:
                return found
        return None

    def element(self, app: RunningApp, handle: Handle) -> Element:
        """The element behind a ``gN:id`` handle (checks of 3.3 in order; ``element.ref`` is its AXUIElement)."""
        current = _apps.identity_of(app.pid)
        found = self.observer.element(app.view, handle, identity=current or app.identity)
        if current is None:
            raise NativeError("process_gone", f"{app.display_name} (pid {app.pid}) is no longer running.")
        return found

    def transform(self, app: RunningApp) -> screenshot.ShotTransform | None:
        return self._transforms.get(app.pid)

    def to_global(self, app: RunningApp, x: float, y: float, key: CGWindow | None) -> Point:
        """Screenshot pixels → global points (6.2); drops the transform when the contract says so."""
        try:
            return screenshot.to_global(
                self._transforms.get(app.pid),
                x,
                y,
                identity=_apps.identity_of(app.pid),
                key_window_id=key.id if key else None,
            )
        except NativeError as e:
            if e.details.get("drop_transform"):
                self._transforms.pop(app.pid, None)
            raise

    def mark_mutation(self, app: RunningApp) -> None:
        self.settle.mark_mutation(app.view, time.monotonic())

    # -- observation -------------------------------------------------------------------------
    def get_app_state(
        self,
        app: RunningApp,
        *,
        disable_diff: bool = False,
        wait_for_change_s: float = 0.0,
        image_only: bool = False,
        text_only: bool = False,
    ) -> AppState:
        del wait_for_change_s  # not yet on macOS: the observation is taken at once
        del image_only, text_only  # the tree is read and the window captured every time on macOS
        identity = self.verify_identity(app)
        wait = self.settle.take(app.view, time.monotonic())
        if wait > 0:
            time.sleep(wait)  # the contract's settle rule (6.12), not a synchronization sleep
        self._transforms.pop(app.pid, None)
        windows = self.windows(app)
        key = self.key_window(app, windows)
        tree, notices = self._read_tree(app, windows, key)
        obs = self.observer.observe(
            tree, app_key=app.view, identity=identity, key_window_id=key.id if key else None,
            disable_diff=disable_diff,
        )  # fmt: skip
        image = self._shoot(app, windows, key, identity)
        text = obs.text.rstrip()
        if notices:
            text += "\n\n" + "\n".join(notices)
        title = key.title if key and key.title else (tree.windows[0].title if tree.windows else "")
        return AppState(text=text, image=image, window_title=title)

    def _read_tree(self, app: RunningApp, windows: list[CGWindow], key: CGWindow | None) -> tuple[AppTree, list[str]]:
        ax_app = _ax.application(app.pid)
        deadline = time.monotonic() + self.observe_timeout_s
        ax_windows = _ax.attribute(ax_app, "AXWindows")
        trees: list[WindowTree] = []
        focused: Element | None = None
        truncated = timed_out = False
        for win in ax_windows if isinstance(ax_windows, list) else []:
            got = _mapping.walk(win, _ax.read, now=time.monotonic, deadline=deadline)
            truncated, timed_out = truncated or got.truncated, timed_out or got.timed_out
            if got.root is None:
                continue
            cg = match_ax_window(got.root.frame, got.root.title, windows)
            trees.append(
                WindowTree(cg.id if cg else 0, got.root.title or (cg.title if cg else ""), got.root, got.root.frame)
            )
            focused = focused or got.focused
        menu_bar: Element | None = None
        bar = _ax.attribute(ax_app, "AXMenuBar")
        if bar is not None and time.monotonic() < deadline:
            got = _mapping.walk(bar, _ax.read, now=time.monotonic, deadline=deadline)
            menu_bar, truncated = got.root, truncated or got.truncated
        if not trees and timed_out:
            raise NativeError(
                "ax_failed",
                f"{app.display_name} (pid {app.pid}) did not answer accessibility requests within "
                f"{self.observe_timeout_s:g} s; the app may be hung. Nothing was read.",
            )
        trees.sort(key=lambda t: key is None or t.window_id != key.id)  # the key window first
        tree = AppTree(app.identity.app_id, app.display_name, app.pid, trees, focused, menu_bar, truncated, timed_out)
        notices = []
        if timed_out:
            notices.append(
                f"The accessibility tree is incomplete: {app.display_name} stopped answering within "
                f"{self.observe_timeout_s:g} s (the app may be busy or hung)."
            )
        return tree, notices

    def _shoot(
        self, app: RunningApp, windows: list[CGWindow], key: CGWindow | None, identity: ProcessIdentity
    ) -> Image | None:
        frontmost = _apps.frontmost_pid() == app.pid
        target = capture_window(windows, app.pid, key_window_id=key.id if key else None, app_frontmost=frontmost)
        if target is None:
            return None
        fitted = screenshot.fitted_size(target.frame.width, target.frame.height)
        shot = _quartz_screen.capture(target, fitted.width, fitted.height)
        if shot is None:
            return None
        if _apps.identity_of(app.pid) != identity:
            raise NativeError("stale_process", screenshot.STALE_PROCESS_MESSAGE)
        now_key = self.key_window(app)
        if key is not None and (now_key is None or now_key.id != key.id):
            return None
        if screenshot.record_allowed(
            key_window_id=now_key.id if now_key else None, shot_window_id=target.id, identity_proven=identity.proven,
            point_width=target.frame.width, point_height=target.frame.height,
            pixels_per_point=fitted.pixels_per_point, image_width=fitted.width, image_height=fitted.height,
        ):  # fmt: skip
            self._transforms[app.pid] = screenshot.ShotTransform(
                origin_x=target.frame.x, origin_y=target.frame.y, point_width=target.frame.width,
                point_height=target.frame.height, pixels_per_point=fitted.pixels_per_point,
                image_width=fitted.width, image_height=fitted.height, window_id=target.id, identity=identity,
            )  # fmt: skip
        return Image(shot[0], screenshot.MIME_TYPE, fitted.width, fitted.height)

    # -- actions: delegated to the actor -----------------------------------------------------
    @property
    def actor(self) -> MacActor:
        if self._actor is None:
            from deskhand.backends.macos.acting import MacActor  # noqa: PLC0415

            self._actor = MacActor(self)
        return self._actor

    def click(
        self, app: RunningApp, *, element: Handle | None = None, point: tuple[float, float] | None = None,
        button: MouseButton = "left", count: int = 1,
    ) -> ActionResult:  # fmt: skip
        return self.actor.click(app, element=element, point=point, button=button, count=count)

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        return self.actor.drag(app, start, end, button=button)

    def scroll(
        self, app: RunningApp, *, direction: Direction, pages: float, element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult:  # fmt: skip
        return self.actor.scroll(app, direction=direction, pages=pages, element=element, point=point)

    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        return self.actor.press_key(app, key)

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        return self.actor.type_text(app, text)

    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        return self.actor.paste(app, text, fmt)

    def select_text(
        self, app: RunningApp, element: Handle, text: str, *, prefix: str | None = None, suffix: str | None = None,
        selection_type: SelectionType = "text",
    ) -> ActionResult:  # fmt: skip
        return self.actor.select_text(app, element, text, prefix=prefix, suffix=suffix, selection_type=selection_type)

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        return self.actor.set_value(app, element, value)

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        return self.actor.perform_secondary_action(app, element, action)

    def close(self) -> None:
        self._transforms.clear()
