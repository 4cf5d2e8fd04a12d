"""Harness for tests against a real X server and AT-SPI bus (a pytest plugin, loaded by
``tests/conftest.py``, so ``tests/linux`` and ``tests/realapps`` share one session desktop).

Fixtures:
    desktop   the session's VirtualDesktop (skips only when Xvfb cannot run here); also named
              ``x11_desktop``, the ``x11`` server of ``tests/displays.py``
    launch    start an app inside it and wait until it is on the AT-SPI bus (``launch(argv)``,
              ``launch.gtk_fixture()``, ``launch.qt_fixture()``); every app is stopped after the test
    a11y      a fresh connection to the desktop's AT-SPI bus

``Running.events`` reads the event log (JSON lines with monotonic ``t``) that the fixture apps in
``tests/apps/`` write to the path in ``DESKHAND_EVENT_LOG``.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.core.errors import BackendUnavailable
from deskhand.desktop import A11yApp, A11yBus, LaunchedApp, VirtualDesktop, cleanup_stale
from proc_support import descendants

APPS_DIR = Path(__file__).resolve().parent / "apps"
SYSTEM_PYTHON = "/usr/bin/python3"
EVENT_LOG_ENV = "DESKHAND_EVENT_LOG"
POLL_S = 0.01

Event = dict[str, Any]


class EventLog:
    """Reader of a fixture app's event log: one JSON object per line, each with ``t`` and ``type``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> list[Event]:
        """Every complete line so far (a line still being written is left for the next read)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        lines = text.split("\n")[:-1]  # the part after the last newline is incomplete
        return [json.loads(line) for line in lines if line.strip()]

    def of_type(self, type_: str, *, since: float | None = None) -> list[Event]:
        return [e for e in self.read() if e.get("type") == type_ and (since is None or e["t"] >= since)]

    def wait_for(
        self,
        type_: str | None = None,
        predicate: Callable[[Event], bool] | None = None,
        *,
        since: float | None = None,
        timeout_s: float = 10.0,
        **fields: Any,
    ) -> Event:
        """Poll until an event matches ``type_``, every ``fields`` value and ``predicate``.

        ``since`` is a ``time.monotonic()`` value: older events are ignored. Raises TimeoutError
        listing the last events seen.
        """

        def matches(e: Event) -> bool:
            if type_ is not None and e.get("type") != type_:
                return False
            if since is not None and e.get("t", 0.0) < since:
                return False
            if any(e.get(k) != v for k, v in fields.items()):
                return False
            return predicate is None or predicate(e)

        deadline = time.monotonic() + timeout_s
        while True:
            events = self.read()
            found = next((e for e in events if matches(e)), None)
            if found is not None:
                return found
            if time.monotonic() >= deadline:
                tail = "\n".join(json.dumps(e) for e in events[-10:])
                raise TimeoutError(f"no {type_ or 'matching'} event {fields} within {timeout_s} s; last:\n{tail}")
            time.sleep(POLL_S)


@dataclass
class Running:
    """An app launched by the ``launch`` fixture and seen on the AT-SPI bus."""

    app: LaunchedApp
    a11y: A11yApp | None
    events: EventLog
    #: seconds from spawn until it was on the bus
    startup_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def pid(self) -> int:
        """The pid on the accessibility bus (a wrapper script's child, e.g. ``soffice.bin``),
        else the launched one."""
        if self.a11y is not None and self.a11y.pid is not None:
            return self.a11y.pid
        return self.app.pid


class Launcher:
    """Starts apps inside the session desktop and stops them all at the end of the test."""

    def __init__(self, desktop: VirtualDesktop, tmp_path: Path) -> None:
        self.desktop = desktop
        self.tmp_path = tmp_path
        self.running: list[Running] = []

    def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        wait_on_bus: bool = True,
        timeout_s: float = 20.0,
        cwd: str | Path | None = None,
    ) -> Running:
        n = len(self.running)
        events = EventLog(self.tmp_path / f"events-{n}.jsonl")
        app_env = {EVENT_LOG_ENV: str(events.path), **(env or {})}
        t0 = time.monotonic()
        app = self.desktop.launch(argv, env=app_env, log_path=self.tmp_path / f"app-{n}.log", cwd=cwd)
        running = Running(app, None, events)
        self.running.append(running)
        if wait_on_bus:
            running.a11y = self.wait_ready(app, timeout_s)
            running.startup_s = time.monotonic() - t0
        return running

    def wait_ready(self, app: LaunchedApp, timeout_s: float) -> A11yApp:
        """Wait until the app (or a descendant) is on the bus and has a mapped window (on the bus
        comes before mapped). A process that leaves again is not it: LibreOffice restarts its
        ``soffice.bin`` once after creating a fresh profile."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.wait_on_bus(app, max(0.1, deadline - time.monotonic()))
            assert found.pid is not None
            try:
                self.desktop.wait_for_window(found.pid, min(2.0, max(0.1, deadline - time.monotonic())))
                return found
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise

    def wait_on_bus(self, app: LaunchedApp, timeout_s: float) -> A11yApp:
        """Poll the registry for the app's pid or one of its descendants (a wrapper script
        starts the real binary as its child); fail early with its log when it exits."""
        deadline = time.monotonic() + timeout_s
        with self.desktop.a11y() as bus:
            while True:
                family = descendants(app.pid)
                found = next((a for a in bus.apps() if a.pid in family), None)
                if found is not None:
                    return found
                if not app.running() and len(family) == 1:
                    log = app.log_path.read_text(errors="replace")[-2000:]
                    raise RuntimeError(
                        f"{app.argv} exited with {app.popen.returncode} before it was on the bus:\n{log}"
                    )
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"{app.argv} (pid {app.pid}) not on the AT-SPI bus within {timeout_s} s")
                time.sleep(POLL_S)

    def gtk_fixture(self, **kw: Any) -> Running:
        """The GTK 3 fixture app, under Debian's python3 (python3-gi)."""
        script = APPS_DIR / "gtk_fixture.py"
        if not script.exists() or not Path(SYSTEM_PYTHON).exists():
            pytest.skip(f"{script.name} or {SYSTEM_PYTHON} is missing")
        return self([SYSTEM_PYTHON, str(script)], **kw)

    def qt_fixture(self, **kw: Any) -> Running:
        """The Qt 6 fixture app, under the venv's python (PySide6)."""
        script = APPS_DIR / "qt_fixture.py"
        if not script.exists():
            pytest.skip(f"{script.name} is missing")
        return self([sys.executable, str(script)], **kw)

    def close(self) -> None:
        for running in self.running:
            running.app.stop()
        self.running.clear()


def _xvfb_unavailable() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"the virtual desktop needs Linux, not {sys.platform}"
    if shutil.which("Xvfb") is None:
        return "Xvfb is not installed (apt-get install xvfb, or run `make test`, which installs it)"
    return None


@pytest.fixture(scope="session")
def x11_desktop() -> Iterator[VirtualDesktop]:
    """One private X11 desktop for the whole session; torn down even when tests fail."""
    reason = _xvfb_unavailable()
    if reason is not None:
        pytest.skip(reason)
    cleanup_stale()  # desktops left by a crashed earlier run
    vd = VirtualDesktop()
    try:
        vd.start()
    except BackendUnavailable as exc:
        if "Xvfb did not start" in exc.message:
            pytest.skip(f"Xvfb cannot run here: {exc.message}")
        raise
    try:
        yield vd
    finally:
        vd.stop()


@pytest.fixture(scope="session")
def desktop(x11_desktop: VirtualDesktop) -> VirtualDesktop:
    """The session's X11 desktop (``tests/linux`` overrides it with the desktop of its ``display``)."""
    return x11_desktop


@pytest.fixture
def launch(desktop: VirtualDesktop, tmp_path: Path) -> Iterator[Launcher]:
    launcher = Launcher(desktop, tmp_path)
    try:
        yield launcher
    finally:
        launcher.close()


@pytest.fixture
def a11y(desktop: VirtualDesktop) -> Iterator[A11yBus]:
    with desktop.a11y() as bus:
        yield bus


@pytest.fixture
def ex(desktop: VirtualDesktop) -> Iterator[LinuxExecutor]:
    """A Linux executor on the session desktop, closed after the test."""
    executor = LinuxExecutor(display=desktop.env["DISPLAY"], a11y_address=desktop.env["AT_SPI_BUS_ADDRESS"])
    try:
        yield executor
    finally:
        executor.close()


@pytest.fixture
def executor(ex: LinuxExecutor) -> LinuxExecutor:
    """The same executor under the name the observation tests use."""
    return ex
