"""Acting on a Linux app on X11: the Executor's action calls, each run under the session's lock.

``LinuxActor`` is created by ``LinuxExecutor`` (the observation side) and receives the Executor's
action calls with the same signatures (``deskhand.backends.base.Executor``), written once in
``act.base.Actor``; this class supplies X11's parts and the barrier between actions. Every decision the
contract fixes (event lists, click pairs, scroll deltas, text matches, the paste state machine)
comes from ``deskhand.core``; the modules below translate it into X11 and AT-SPI calls, one
concern each, all on one ``act.session.LinuxSession`` (connections, gates, element lookup):

* ``act.pointer``: clicks at a point, synthetic clicks, drags (and the window manager's grabs);
* ``act.clicks``: clicking an element by handle, AT-SPI tiers before a synthetic click;
* ``act.scroll``: scroll-bar values and the wheel, page-scroll actions;
* ``act.keys``: keys, text and paste (``act/paste.py``), posted through ``act.keystrokes`` (key
  bursts, temporary keycodes and their leases, the pings that confirm them);
* ``act.values``: text selection, values, secondary actions.
"""

from __future__ import annotations

from deskhand.backends.base import ActionResult, Handle, MouseButton, RunningApp
from deskhand.backends.linux.act.barrier import Barrier
from deskhand.backends.linux.act.base import Actor
from deskhand.backends.linux.act.clicks import ElementClicks
from deskhand.backends.linux.act.keys import Typing
from deskhand.backends.linux.act.pointer import Pointer
from deskhand.backends.linux.act.scroll import Scrolling
from deskhand.backends.linux.act.session import LinuxSession, Observed
from deskhand.backends.linux.act.values import Values
from deskhand.backends.linux.atspi.element import A11y, Ref
from deskhand.backends.linux.x11.keymap import Keymap

__all__ = ("LinuxActor",)


class LinuxActor(Actor):
    """The action half of ``LinuxExecutor``; see the module docstring."""

    def __init__(self, executor: Observed, *, display_name: str | None = None) -> None:
        self.session = LinuxSession(executor, display_name=display_name)
        self.pointer = Pointer(self.session)
        self.typing = Typing(self.session)
        self.barrier = Barrier(self.session, self.typing.focus)
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

    @property
    def acting(self) -> LinuxSession:
        return self.session

    # -- the display server's parts (``act.base.Actor``) ----------------------------------
    @property
    def keys(self) -> Typing:
        return self.typing

    def click_element(self, app: RunningApp, element: Handle, button: MouseButton, count: int) -> ActionResult:
        return self.clicks.click(app, element, button, count)

    def click_point(self, app: RunningApp, at: tuple[float, float], button: MouseButton, count: int) -> ActionResult:
        return self.pointer.click_point(app, at, button, count)

    def drag_points(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], button: MouseButton
    ) -> ActionResult:
        return self.pointer.drag(app, start, end, button)

    def clicked_target(self) -> Ref | None:
        return self.clicks.clicked

    def _clicked(self, result: ActionResult, *, target: Ref | None = None) -> ActionResult:
        """The next key waits for the focus this click may move (``act.focus.Focus.input_posted``)."""
        self.typing.focus.input_posted(target=target)
        return result
