"""An in-memory Executor for unit tests of the host, the kernel and the server (no display needed).

Apps are scripted with :class:`FakeApp`. Every method call is recorded in ``calls`` with its
arguments; a test can make the next call of a method fail with a given error (``fail``) or block
until released (``block``), and can read which calls are in flight. Like a real backend, every
method that takes a ``RunningApp`` first re-checks its identity (``stale_process`` after
:meth:`FakeExecutor.restart`, ``process_gone`` once the app stopped running).

    fake = FakeExecutor([FakeApp("Mousepad", "org.xfce.mousepad", pid=4242)])
    gate = fake.block("click")            # the next click waits in its worker thread
    ...; gate.entered.wait(); gate.release()
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Final

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
from deskhand.core.errors import ArgumentError, DeskhandError, NativeError

#: A 1x1 JPEG is not needed by any test; these bytes only have to be recognisable.
FAKE_JPEG: Final = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"
GATE_TIMEOUT_S: Final = 10.0
STALE_PROCESS_TEXT: Final = "The target application changed process identity before the action."


@dataclass(slots=True)
class FakeApp:
    """One scripted app. ``proven=False`` gives an identity without a start time."""

    display_name: str
    app_id: str
    pid: int
    executable: str = ""
    start_time: float = 1_700_000_000.25
    running: bool = True
    proven: bool = True
    state_text: str = ""
    image: Image | None = field(default_factory=lambda: Image(FAKE_JPEG, "image/jpeg", 640, 400))
    #: Its top-level windows' ids, bottom to top (the last is the key window); default ``[pid * 10]``.
    window_ids: list[int] | None = None

    def identity(self) -> ProcessIdentity:
        exe = self.executable or f"/usr/bin/{self.app_id.rsplit('.', 1)[-1].lower()}"
        return ProcessIdentity(self.pid, self.app_id, exe, self.start_time if self.proven else 0.0)

    def running_app(self) -> RunningApp:
        return RunningApp(self.identity(), self.display_name)


@dataclass(frozen=True, slots=True)
class FakeCall:
    method: str
    args: dict[str, object]


class Gate:
    """Blocks one call until :meth:`release`; ``entered`` is set once the call is waiting."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self._released = threading.Event()

    def release(self) -> None:
        self._released.set()

    def wait(self) -> None:
        self.entered.set()
        if not self._released.wait(GATE_TIMEOUT_S):
            msg = "fake executor: a blocked call was never released"
            raise NativeError("fake_gate_timeout", msg)


class FakeExecutor:
    """The Executor protocol over scripted apps, recording every call."""

    def __init__(self, apps: list[FakeApp] | None = None, *, platform: Platform = "linux") -> None:
        self.platform: Platform = platform
        self.apps: list[FakeApp] = list(apps or [])
        self.calls: list[FakeCall] = []
        self.closed = False
        self._failures: dict[str, deque[DeskhandError | Exception]] = defaultdict(deque)
        self._gates: dict[str, deque[Gate]] = defaultdict(deque)
        self._lock = threading.Lock()

    # --- scripting -------------------------------------------------------------------------

    def fail(self, method: str, error: DeskhandError | Exception, *, times: int = 1) -> None:
        """Make the next ``times`` calls of ``method`` raise ``error`` (after being recorded)."""
        self._failures[method].extend([error] * times)

    def block(self, method: str) -> Gate:
        """Make the next call of ``method`` wait until the returned gate is released."""
        gate = Gate()
        self._gates[method].append(gate)
        return gate

    def restart(self, display_name: str, *, pid: int | None = None) -> FakeApp:
        """The app restarts: same name and app id, a new pid (default: old + 1000) and a later start time.

        A ``RunningApp`` resolved before the restart no longer matches: the next call on it
        raises ``stale_process``, while a new ``resolve`` finds the new process.
        """
        app = next(a for a in self.apps if a.display_name == display_name)
        with self._lock:
            app.pid = pid if pid is not None else app.pid + 1000
            app.start_time += 1.0
        return app

    def methods(self) -> list[str]:
        """The recorded method names, in call order."""
        return [c.method for c in self.calls]

    def _record(self, method: str, **args: object) -> None:
        with self._lock:
            self.calls.append(FakeCall(method, args))
            gate = self._gates[method].popleft() if self._gates[method] else None
            error = self._failures[method].popleft() if self._failures[method] else None
        if gate is not None:
            gate.wait()
        if error is not None:
            raise error

    def _verify(self, app: RunningApp) -> FakeApp:
        """The scripted app behind ``app``, if it is still the very process that was resolved."""
        with self._lock:
            same = [a for a in self.apps if (a.app_id, a.display_name) == (app.identity.app_id, app.display_name)]
            current = next((a for a in same if a.running), None)
            if current is None:
                raise NativeError("process_gone", f"The target application (pid {app.pid}) is no longer running.")
            if current.identity() != app.identity:
                raise NativeError("stale_process", STALE_PROCESS_TEXT)
        return current

    # --- Executor --------------------------------------------------------------------------

    def list_apps(self) -> list[AppEntry]:
        self._record("list_apps")
        return [AppEntry(a.app_id, a.display_name, a.running, a.pid if a.running else None) for a in self.apps]

    def list_windows(self, pid: int | None = None) -> list[WindowEntry]:
        self._record("list_windows", pid=pid)
        out = []
        for a in self.apps:
            if not a.running or (pid is not None and a.pid != pid):
                continue
            ids = a.window_ids if a.window_ids is not None else [a.pid * 10]
            for z, wid in enumerate(ids):
                bounds = (0.0, 0.0, 640.0, 400.0)
                out.append(WindowEntry(wid, a.pid, a.app_id, a.display_name, bounds, z, True, wid == ids[-1]))
        return out

    def resolve(self, selector: str) -> RunningApp:
        self._record("resolve", selector=selector)
        wanted = selector.strip()
        matches = [a for a in self.apps if a.running and _matches(a, wanted)]
        if not matches:
            raise NativeError("target_not_running", f"No running app matches '{wanted}'.")
        if len(matches) > 1:
            raise NativeError("ambiguous_target", f"'{wanted}' matches {len(matches)} running apps.")
        return matches[0].running_app()

    def get_app_state(
        self,
        app: RunningApp,
        *,
        disable_diff: bool = False,
        wait_for_change_s: float = 0.0,
        image_only: bool = False,
        text_only: bool = False,
    ) -> AppState:
        del image_only, text_only  # the fake reads its tree and draws its image every time
        self._record("get_app_state", app=app.display_name, disable_diff=disable_diff)
        scripted = self._verify(app)
        text = scripted.state_text or f"App={scripted.app_id} (pid {scripted.pid})\nWindow: {scripted.display_name}"
        return AppState(text, scripted.image, scripted.display_name)

    def click(
        self,
        app: RunningApp,
        *,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
        button: MouseButton = "left",
        count: int = 1,
    ) -> ActionResult:
        self._record("click", app=app.display_name, element=element, point=point, button=button, count=count)
        self._verify(app)
        return ActionResult()

    def drag(
        self, app: RunningApp, start: tuple[float, float], end: tuple[float, float], *, button: MouseButton = "left"
    ) -> ActionResult:
        self._record("drag", app=app.display_name, start=start, end=end, button=button)
        self._verify(app)
        return ActionResult()

    def scroll(
        self,
        app: RunningApp,
        *,
        direction: Direction,
        pages: float,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult:
        self._record("scroll", app=app.display_name, direction=direction, pages=pages, element=element, point=point)
        self._verify(app)
        return ActionResult()

    def press_key(self, app: RunningApp, key: str) -> ActionResult:
        self._record("press_key", app=app.display_name, key=key)
        self._verify(app)
        return ActionResult()

    def type_text(self, app: RunningApp, text: str) -> ActionResult:
        self._record("type_text", app=app.display_name, text=text)
        self._verify(app)
        return ActionResult()

    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult:
        self._record("paste", app=app.display_name, text=text, fmt=fmt)
        self._verify(app)
        return ActionResult({"status": "completed"})

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
        self._record(
            "select_text",
            app=app.display_name,
            element=element,
            text=text,
            prefix=prefix,
            suffix=suffix,
            selection_type=selection_type,
        )
        self._verify(app)
        return ActionResult()

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult:
        self._record("set_value", app=app.display_name, element=element, value=value)
        self._verify(app)
        return ActionResult()

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult:
        self._record("perform_secondary_action", app=app.display_name, element=element, action=action)
        self._verify(app)
        return ActionResult()

    def close(self) -> None:
        self.closed = True


def _matches(app: FakeApp, selector: str) -> bool:
    if selector.isdigit() and not selector.isascii():
        raise ArgumentError(f'"{selector}" is not a pid: a pid is written with the digits 0-9.')
    if selector.isdigit():
        return app.pid == int(selector)
    return selector.casefold() == app.display_name.casefold() or selector in {app.app_id, app.identity().executable}
