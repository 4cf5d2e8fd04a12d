"""The seam between the host and a platform: the Executor protocol and the values it trades.

The host validates arguments, applies the deny policy and holds the session queue; then it calls
exactly one Executor method per native call. An executor (Linux, macOS, fake) proves the target's
identity before each event, uses the core for every decision the contract fixes, and raises
``deskhand.core.errors.DeskhandError`` subclasses with the contract's codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from deskhand.core import platform, pointer, scroll, textmatch
from deskhand.core.axtree.observer import ViewKey
from deskhand.core.effects import Outcome

#: The core's vocabularies, under the names the seam has always used.
Platform = platform.Platform
MouseButton = pointer.Button
Direction = scroll.Direction
SelectionType = textmatch.SelectionMode
PasteFormat = Literal["text", "md", "html"]


@dataclass(frozen=True, slots=True)
class ProcessIdentity:
    """Who a running app is: proven only when every field is known; compared exactly."""

    pid: int
    app_id: str
    executable: str
    start_time: float  # seconds since the epoch (boot time + start ticks), exact

    @property
    def proven(self) -> bool:
        return self.pid > 0 and bool(self.app_id) and self.executable.startswith("/") and self.start_time > 0


@dataclass(frozen=True, slots=True)
class AppEntry:
    """One row of ``list_apps``: running apps first, then installed ones."""

    id: str
    display_name: str
    is_running: bool
    pid: int | None = None
    last_used_date: str | None = None
    use_count: int | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"id": self.id, "displayName": self.display_name, "isRunning": self.is_running}
        if self.last_used_date is not None:
            out["lastUsedDate"] = self.last_used_date
        if self.use_count is not None:
            out["useCount"] = self.use_count
        return out


@dataclass(frozen=True, slots=True)
class RunningApp:
    """A selector resolved to exactly one running app."""

    identity: ProcessIdentity
    display_name: str
    #: The process holds a pseudo-terminal master: it runs a shell for someone (a terminal emulator
    #: under any name); the deny policy treats it as a terminal.
    holds_terminal: bool = False
    #: The host session the call comes from: what it observed of this process (snapshots,
    #: handles, diffs, the key window keys go to) is its own (0: the first session).
    session: int = 0

    @property
    def pid(self) -> int:
        return self.identity.pid

    @property
    def view(self) -> ViewKey:
        """Whose observation state a call on this app reads and writes: this session's view of this process."""
        return ViewKey(self.identity.app_id, self.identity.pid, self.session)


@dataclass(frozen=True, slots=True)
class Image:
    data: bytes
    mime_type: str  # "image/jpeg"
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class AppState:
    """What ``get_app_state`` observed: the native state text (no envelope) and the window image."""

    text: str
    image: Image | None
    window_title: str = ""


@dataclass(frozen=True, slots=True)
class ActionResult:
    """The outcome of an action: its structured fields and what was seen of its effect
    (``core.effects``; the actor fills a default from the route when unset). The model-facing
    text is the host's: the contract's fixed receipt, then the outcome's summary."""

    structured: dict[str, object] = field(default_factory=dict)
    outcome: Outcome | None = None


@dataclass(frozen=True, slots=True)
class WindowEntry:
    """One top-level window of ``list_windows`` (the exact-window workflow, sdk-contract.md 2.4).

    ``bounds`` is the frame in screen coordinates; ``z_index`` is higher in front; ``is_key``
    says the window is its app's key window, the one ``get_app_state`` observes and acts on.
    """

    window_id: int
    pid: int
    app: str
    title: str
    bounds: tuple[float, float, float, float]
    z_index: int
    is_on_screen: bool
    is_key: bool

    def to_json(self) -> dict[str, object]:
        x, y, w, h = self.bounds
        return {
            "window_id": self.window_id,
            "pid": self.pid,
            "app": self.app,
            "title": self.title,
            "bounds": {"x": x, "y": y, "width": w, "height": h},
            "z_index": self.z_index,
            "is_on_screen": self.is_on_screen,
            "is_key": self.is_key,
        }


#: An element reference as the host passes it: an opaque ``gN:id`` handle.
Handle = str


class Executor(Protocol):
    """One platform's implementation of the native calls. Every method is synchronous and
    bounded in time; the host runs it off the event loop."""

    platform: Platform

    def list_apps(self) -> list[AppEntry]: ...

    def list_windows(self, pid: int | None = None) -> list[WindowEntry]:
        """Top-level windows (of ``pid`` when given), bottom to top; discovery, not authorization."""
        ...

    def resolve(self, selector: str) -> RunningApp:
        """Exactly one running app, or ``target_not_running`` / ``ambiguous_target``."""
        ...

    def get_app_state(
        self,
        app: RunningApp,
        *,
        disable_diff: bool = False,
        wait_for_change_s: float = 0.0,
        image_only: bool = False,
        text_only: bool = False,
    ) -> AppState:
        """Observe ``app``; with ``wait_for_change_s``, first wait (bounded) for it to change
        since its last observation, where the backend can tell (a deskhand addition).

        ``image_only``: the caller uses only the screenshot (``getScreenshot``). The capture is
        always new; the tree may be the one read last where the backend proves the app did not
        change since that read (Linux: no AT-SPI event from it since), a deskhand addition.
        ``text_only``: the caller uses only the text (``getAXState``); a backend may then take no
        screenshot (``AppState.image`` None) while coordinates keep their meaning (a deskhand
        addition).
        """
        ...

    def click(
        self,
        app: RunningApp,
        *,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
        button: MouseButton = "left",
        count: int = 1,
    ) -> ActionResult: ...

    def drag(
        self,
        app: RunningApp,
        start: tuple[float, float],
        end: tuple[float, float],
        *,
        button: MouseButton = "left",
    ) -> ActionResult: ...

    def scroll(
        self,
        app: RunningApp,
        *,
        direction: Direction,
        pages: float,
        element: Handle | None = None,
        point: tuple[float, float] | None = None,
    ) -> ActionResult: ...

    def press_key(self, app: RunningApp, key: str) -> ActionResult: ...

    def type_text(self, app: RunningApp, text: str) -> ActionResult: ...

    def paste(self, app: RunningApp, text: str, fmt: PasteFormat = "text") -> ActionResult: ...

    def select_text(
        self,
        app: RunningApp,
        element: Handle,
        text: str,
        *,
        prefix: str | None = None,
        suffix: str | None = None,
        selection_type: SelectionType = "text",
    ) -> ActionResult: ...

    def set_value(self, app: RunningApp, element: Handle, value: str) -> ActionResult: ...

    def perform_secondary_action(self, app: RunningApp, element: Handle, action: str) -> ActionResult: ...

    def close(self) -> None: ...
