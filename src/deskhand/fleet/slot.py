"""One pooled desktop on its host: built with the pool's apps, verified, driven, torn down and audited.

A slot is built once and never reused: each lease gets a fresh one. ``verify`` is the check before
hand-out: the desktop answers ``probe`` (X, the AT-SPI registry, the window manager) and every app
of the pool is running and on the accessibility bus. Calls forwarded from a lease run here, on the
slot's own ``Computer``, one at a time.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from deskhand.core.errors import ArgumentError, BackendUnavailable, DeskhandError
from deskhand.desktop import _procs
from deskhand.fleet.audit import Audit, audit
from deskhand.fleet.spec import PoolSpec

if TYPE_CHECKING:
    from deskhand.fleet.mcpserve import McpEndpoint
    from deskhand.sdk import App, Computer

#: ``Computer`` methods a lease forwards (the others take callables or return live objects).
COMPUTER_METHODS: Final = frozenset(
    {"launch", "get_platform", "list_windows", "observe_window", "verify_state", "reconnect", "list_apps", "get_app"}
)
APP_LAUNCH_TIMEOUT_S: Final = 30.0
#: What a forwarded ``get_app`` returns in place of the live ``App``: its resolved name.
APP_KEY: Final = "__deskhand_app__"


def app_methods() -> frozenset[str]:
    from deskhand.sdk import App  # noqa: PLC0415

    return frozenset(n for n in vars(App) if not n.startswith("_") and callable(getattr(App, n)))


class Slot:
    """A desktop of the pool and the ``Computer`` that drives it."""

    def __init__(self, spec: PoolSpec) -> None:
        self.spec = spec
        self.computer: Computer | None = None
        self.id = ""
        self.display: int | None = None
        self.runtime_dir = Path()
        self.app_pids: list[int] = []
        self.built_s = 0.0
        self._apps: dict[str, App] = {}
        self._lock = threading.Lock()
        self._mcp: McpEndpoint | None = None

    def build(self) -> Slot:
        """Start the desktop and the pool's apps; raise (after tearing down) when any fails to come up."""
        from deskhand.sdk import Computer  # noqa: PLC0415

        t0 = time.monotonic()
        width, height = self.spec.screen
        computer = Computer.virtual(size=f"{width}x{height}x24")
        self.computer = computer
        desktop = computer.desktop
        if desktop is None:
            raise BackendUnavailable("fleet: Computer.virtual() gave no desktop")
        self.id, self.display, self.runtime_dir = desktop.id, desktop.display, desktop.runtime_dir
        try:
            self.app_pids = [computer.launch(list(argv), timeout_s=APP_LAUNCH_TIMEOUT_S) for argv in self.spec.apps]
            self.verify()
        except BaseException:
            self.close()
            raise
        self.built_s = time.monotonic() - t0
        return self

    def verify(self) -> None:
        """Raise BackendUnavailable unless the desktop is ready and every pool app is on the AT-SPI bus."""
        from deskhand.desktop.probe import probe  # noqa: PLC0415

        desktop = self.computer.desktop if self.computer is not None else None
        if desktop is None or not desktop.running:
            raise BackendUnavailable("fleet: the desktop is not running")
        readiness = probe(desktop.env)
        if not readiness.ready:
            failed = [name for name, ok in readiness.as_dict().items() if not ok]
            raise BackendUnavailable(f"fleet: desktop {self.id} is not ready: {', '.join(failed)} failed")
        if gone := [pid for pid in self.app_pids if not _procs.alive(pid)]:
            # before the bus: the registry lists an app that was killed until it sees its name go
            raise BackendUnavailable(f"fleet: desktop {self.id}: apps {gone} are not running")
        with desktop.a11y() as bus:
            missing = [pid for pid in self.app_pids if bus.find_pid(pid) is None]
        if missing:
            raise BackendUnavailable(f"fleet: desktop {self.id}: apps {missing} are not on the accessibility bus")

    def call(self, app: str | None, method: str, args: Sequence[object], kwargs: Mapping[str, object]) -> object:
        """Run one ``Computer`` (``app`` None) or bound ``App`` method; a bound app comes back as its name."""
        if self.computer is None:
            raise DeskhandError("fleet: the desktop is closed", code="closed", dispatched=False)
        with self._lock:
            if app is None:
                if method not in COMPUTER_METHODS:
                    raise ArgumentError(f"Computer.{method} is not forwarded to a pooled desktop")
                result = getattr(self.computer, method)(*args, **kwargs)
                if method == "get_app":
                    self._apps[result.app] = result
                    return {APP_KEY: result.app}
                return result
            bound = self._apps.get(app)
            if bound is None:
                raise ArgumentError(f"app {app!r} is not bound on this desktop: call get_app first")
            if method not in app_methods():
                raise ArgumentError(f"App.{method} is not a method of App")
            return getattr(bound, method)(*args, **kwargs)

    def mcp(self) -> tuple[str, str]:
        """The desktop's MCP endpoint (started on first use): its URL and bearer token."""
        from deskhand.fleet.mcpserve import McpEndpoint  # noqa: PLC0415

        desktop = self.computer.desktop if self.computer is not None else None
        if desktop is None:
            raise DeskhandError("fleet: the desktop is closed", code="closed", dispatched=False)
        with self._lock:
            if self._mcp is None:
                self._mcp = McpEndpoint(desktop.app_env())
            return self._mcp.url, self._mcp.token

    def close(self) -> Audit:
        """Tear the desktop down (its apps, its endpoint) and audit what survived."""
        t0 = time.monotonic()
        with self._lock:
            endpoint, self._mcp = self._mcp, None
            computer, self.computer = self.computer, None
            self._apps.clear()
        notes: list[str] = []
        try:
            if endpoint is not None:
                endpoint.close()
        finally:
            if computer is not None:
                try:
                    computer.close()
                except Exception as exc:  # the audit below says what survived
                    notes.append(f"close: {exc}")
        result = audit(self.id, self.display, self.runtime_dir, teardown_s=time.monotonic() - t0)
        return dataclasses.replace(result, notes=tuple(notes)) if notes else result
