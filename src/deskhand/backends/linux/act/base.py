"""The Executor's action calls, written once for every display server's actor.

``Actor`` holds what the X11 and Wayland actors share: the nine action calls with the Executor's
signatures, each run through ``_act`` (the session's lock, the barrier between actions,
``act.barrier``, the settle mark, the outcome), with what each call sends
(``core.barrier.Sent``); scroll and the accessibility actions go to the shared ``act.scroll`` and
``act.values``. A subclass supplies the display server's parts: ``acting`` (its session),
``barrier`` (on that session), ``click_element``, ``click_point``, ``drag_points`` and ``keys``
(its keyboard and paste).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any, Final, Protocol

from deskhand.backends.base import ActionResult, Direction, Handle, MouseButton, PasteFormat, RunningApp, SelectionType
from deskhand.backends.linux.act import outcomes
from deskhand.backends.linux.act.barrier import Barrier, sent_by
from deskhand.backends.linux.act.scroll import Scrolling
from deskhand.backends.linux.act.values import Values
from deskhand.backends.linux.atspi.element import Ref
from deskhand.core import barrier
from deskhand.core import pointer as corepointer
from deskhand.core.barrier import Sent
from deskhand.core.errors import DeskhandError, NativeError

__all__ = ("Acting", "Actor", "Keys")

#: Refusals before dispatch that can follow earlier calls of a cell (a window they opened): their
#: text names those calls.
REFUSALS_AFTER: Final = frozenset({"stale_window", "target_window_changed"})


class Acting(Protocol):
    """The session an actor acts on, as ``Actor._act`` uses it."""

    @property
    def lock(self) -> AbstractContextManager[Any]: ...
    def mark_mutation(self, app: RunningApp) -> None: ...


class Keys(Protocol):
    """A display server's keyboard and paste, as the actor calls them."""

    def press_key(self, app: RunningApp, key: str) -> ActionResult: ...
    def type_text(self, app: RunningApp, text: str) -> ActionResult: ...
    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult: ...


class Actor(ABC):
    """The action calls (module docstring); ``scrolling``, ``values``, ``barrier`` and ``keys`` are
    set by the subclass."""

    scrolling: Scrolling
    values: Values
    barrier: Barrier

    @property
    @abstractmethod
    def keys(self) -> Keys: ...

    @property
    @abstractmethod
    def acting(self) -> Acting:
        """The session the actions run on (its lock, its settle mark)."""

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
        session = self.acting
        with session.lock:
            settled = self.barrier.hold(app, next_is_input=keys)
            try:
                result = action()
            except DeskhandError as err:
                if err.dispatched is not False:
                    self.barrier.sent(app, sends, what)
                    session.mark_mutation(app)
                elif err.code in REFUSALS_AFTER:
                    err.message = barrier.refused_after(err.message, self.barrier.calls, what)
                    err.args = (err.message,)
                raise
            except BaseException:
                self.barrier.sent(app, sends, what)
                session.mark_mutation(app)
                raise
            self.barrier.sent(app, sent_by(result, sends, typed=self.barrier.typed), what)
            session.mark_mutation(app)
            if not settled:
                result = replace(result, structured={**result.structured, "unsettled": barrier.UNSETTLED})
            return outcomes.with_outcome(result)

    @abstractmethod
    def click_element(self, app: RunningApp, element: Handle, button: MouseButton, count: int) -> ActionResult: ...
    @abstractmethod
    def click_point(
        self, app: RunningApp, at: tuple[float, float], button: MouseButton, count: int
    ) -> ActionResult: ...
    @abstractmethod
    def drag_points(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], button: MouseButton
    ) -> ActionResult: ...

    def _clicked(self, result: ActionResult, *, target: Ref | None = None) -> ActionResult:
        """After a click or an action that may move the focus (the X11 typist waits for it)."""
        del target
        return result

    def clicked_target(self) -> Ref | None:
        """The element the last click by handle went to, when the focus should follow it."""
        return None

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
                app, lambda: self.click_element(app, element, button, count), f"click({element})", sends="a11y_action"
            )
            return self._clicked(clicked, target=self.clicked_target())
        if point is None:
            raise NativeError("bad_payload", "click needs an element or a point.", dispatched=False)
        at = point
        return self._clicked(
            self._act(app, lambda: self.click_point(app, at, button, count), f"click({at})", keys=True)
        )

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        return self._act(app, lambda: self.drag_points(app, start, end, button), "drag", keys=True)

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
        return self._act(app, lambda: self.keys.press_key(app, key), f"press_key({key!r})", sends="keys", keys=True)

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        return self._act(app, lambda: self.keys.type_text(app, text), f"type_text ({len(text)} characters)", keys=True)

    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        return self._act(app, lambda: self.keys.paste(app, text, fmt), f"paste ({len(text)} characters)", keys=True)

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
