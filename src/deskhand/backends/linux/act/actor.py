"""Acting on a Linux app: the Executor's action calls, each run under the session's lock.

``LinuxActor`` is created by ``LinuxExecutor`` (the observation side) and receives the Executor's
action calls with the same signatures (``deskhand.backends.base.Executor``). Every decision the
contract fixes (event lists, click pairs, scroll deltas, text matches, the paste state machine)
comes from ``deskhand.core``; the modules below translate it into X11 and AT-SPI calls, one
concern each, all on one ``act.session.LinuxSession`` (connections, gates, element lookup):

* ``act.pointer``: clicks at a point, synthetic clicks, drags (and the window manager's grabs);
* ``act.clicks``: clicking an element by handle, AT-SPI tiers before a synthetic click;
* ``act.scroll``: scroll-bar values and the wheel, page-scroll actions;
* ``act.keys``: keys, text, temporary keycodes and their leases, paste (``act/paste.py``);
* ``act.values``: text selection, values, secondary actions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

from deskhand.backends.base import ActionResult, Direction, Handle, MouseButton, PasteFormat, RunningApp, SelectionType
from deskhand.backends.linux.act import outcomes
from deskhand.backends.linux.act.barrier import Barrier, sent_by
from deskhand.backends.linux.act.clicks import ElementClicks
from deskhand.backends.linux.act.keys import Typing
from deskhand.backends.linux.act.pointer import Pointer
from deskhand.backends.linux.act.scroll import Scrolling
from deskhand.backends.linux.act.session import LinuxSession, Observed
from deskhand.backends.linux.act.values import Values
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.x11.keymap import Keymap
from deskhand.core import barrier
from deskhand.core import pointer as corepointer
from deskhand.core.barrier import Sent
from deskhand.core.errors import DeskhandError, NativeError

__all__ = ("LinuxActor",)

#: Refusals before dispatch that can follow earlier calls of a cell (a window they opened): their
#: text names those calls.
REFUSALS_AFTER: Final = frozenset({"stale_window", "target_window_changed"})


class LinuxActor:
    """The action half of ``LinuxExecutor``; see the module docstring."""

    def __init__(self, executor: Observed, *, display_name: str | None = None) -> None:
        self.session = LinuxSession(executor, display_name=display_name)
        self.pointer = Pointer(self.session)
        self.typing = Typing(self.session)
        self.barrier = Barrier(self.session, self.typing.focused_text)
        self.clicks = ElementClicks(self.session, self.pointer, self.barrier)
        self.scrolling = Scrolling(self.session)
        self.values = Values(self.session, self.scrolling, self.typing)
        self._closed = False

    @property
    def keymap(self) -> Keymap:
        return self.typing.keymap

    @property
    def a11y(self) -> A11y:
        return self.session.a11y

    def close(self) -> None:
        """Empty any temporary keycodes left and close the connections; a second call does nothing."""
        with self.session.lock:
            if self._closed:
                return
            self._closed = True
            try:
                self.pointer.close()
                self.typing.close()
            finally:  # a failed restore (the X server went away) still closes the rest
                self.session.close()

    def registry_changed(self) -> None:
        """A new AT-SPI registry: register the events again (the focus watch on its reconnect)."""
        with self.session.lock:
            self.typing.focus.close()
            self.session.forget_registrations()

    def _act(
        self,
        app: RunningApp,
        action: Callable[[], ActionResult],
        what: str,
        *,
        sends: Sent = "input",
        keys: bool = False,
    ) -> ActionResult:
        """Run one action (``what``: its description) under the session's lock, once the app
        handled the one before (``act.barrier``; ``keys``: this one is input events, ``sends``: what it
        sends unless its result's route says). A refusal before dispatch names the calls sent
        since the app was last observed (``core.barrier.refused_after``). Unless it was refused
        before dispatch, the app's next capture settles first (native-contract.md 6.12: every
        mutation, not only some), and the result always carries an outcome (``outcomes.default``
        when the module set none)."""
        with self.session.lock:
            settled = self.barrier.hold(app, next_is_input=keys)
            try:
                result = action()
            except DeskhandError as err:
                if err.dispatched is not False:
                    self.barrier.sent(sends, what)
                    self.session.mark_mutation(app)
                elif err.code in REFUSALS_AFTER:
                    err.message = barrier.refused_after(err.message, self.barrier.calls)
                    err.args = (err.message,)
                raise
            except BaseException:
                self.barrier.sent(sends, what)
                self.session.mark_mutation(app)
                raise
            self.barrier.sent(sent_by(result, sends), what)
            self.session.mark_mutation(app)
            if not settled:
                result = replace(result, structured={**result.structured, "unsettled": barrier.UNSETTLED})
            return outcomes.with_outcome(result)

    # -- pointer ------------------------------------------------------------------------------
    def click(
        self,
        app: RunningApp,
        *,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
        button: MouseButton = "left",
        count: int = 1,
    ) -> ActionResult:
        corepointer.check_click_count(count)
        if element is not None:
            clicked = self._act(
                app, lambda: self.clicks.click(app, element, button, count), f"click({element})", sends="a11y_action"
            )
            return self._clicked(clicked, target=self.clicks.clicked)
        if point is None:
            raise NativeError("bad_payload", "click needs an element or a point.", dispatched=False)
        at = point
        return self._clicked(
            self._act(app, lambda: self.pointer.click_point(app, at, button, count), f"click({at})", keys=True)
        )

    def _clicked(self, result: ActionResult, *, target: Ref | None = None) -> ActionResult:
        """The next key waits for the focus this click may move (``act.focus.Focus.input_posted``)."""
        self.typing.focus.input_posted(target=target)
        return result

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        return self._act(app, lambda: self.pointer.drag(app, start, end, button), "drag", keys=True)

    def scroll(
        self,
        app: RunningApp,
        *,
        direction: Direction,
        pages: float,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult:
        return self._act(
            app,
            lambda: self.scrolling.scroll(app, direction=direction, pages=pages, element=element, point=point),
            "scroll",
            keys=element is None,
        )

    # -- keyboard -----------------------------------------------------------------------------
    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        return self._act(app, lambda: self.typing.press_key(app, key), f"press_key({key!r})", sends="keys", keys=True)

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        return self._act(
            app, lambda: self.typing.type_text(app, text), f"type_text ({len(text)} characters)", keys=True
        )

    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        return self._act(app, lambda: self.typing.paste(app, text, fmt), f"paste ({len(text)} characters)", keys=True)

    # -- text, values, actions ----------------------------------------------------------------
    def select_text(
        self,
        app: RunningApp,
        element: Handle,
        text: str,
        *,
        prefix: str | None = None,
        suffix: str | None = None,
        selection_type: SelectionType = "text",
    ) -> ActionResult:
        return self._act(
            app,
            lambda: self.values.select_text(
                app, element, text, prefix=prefix, suffix=suffix, selection_type=selection_type
            ),
            f"select_text({element})",
            sends="a11y_edit",
        )

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        return self._act(
            app, lambda: self.values.set_value(app, element, value), f"set_value({element})", sends="a11y_edit"
        )

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        return self._clicked(
            self._act(
                app,
                lambda: self.values.perform_secondary_action(app, element, action),
                f"perform_secondary_action({element}, {action!r})",
                sends="a11y_action",
            )
        )
