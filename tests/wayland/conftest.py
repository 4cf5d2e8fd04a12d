"""Fixtures for tests against a real headless sway (``VirtualDesktop(wayland=True)``).

wl_desktop   one Wayland desktop for the module (skips only when sway is not installed)
wl_launch    start an app natively on Wayland and wait until it is on the AT-SPI bus and sway
             shows its window; every app is stopped after the test
wl_client    a Wayland client with the seat's globals bound; ``wl_devices`` its one virtual
             pointer and keyboard (the session's devices, never one per action)
ipc          a connection to sway's IPC
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._devices import Devices
from deskhand.backends.linux.wayland._ipc import SwayIPC, View
from deskhand.desktop import A11yApp, LaunchedApp, VirtualDesktop
from desktop_support import POLL_S, Launcher, Running

WL_SIZE = (1280, 800, 24)


def sway_missing() -> str | None:
    if shutil.which("sway") is None:
        return "sway is not installed (apt-get install sway, or `make deps`, which installs it)"
    return None


@pytest.fixture(scope="module")
def wl_desktop() -> Iterator[VirtualDesktop]:
    reason = sway_missing()
    if reason is not None:
        pytest.skip(reason)
    vd = VirtualDesktop(wayland=True, size=WL_SIZE)
    vd.start()
    try:
        yield vd
    finally:
        vd.stop()


def wait_view(desktop: VirtualDesktop, pid: int, timeout_s: float = 10.0) -> View:
    """Poll sway's tree until ``pid`` has a view (an app is on the AT-SPI bus before it maps)."""
    deadline = time.monotonic() + timeout_s
    with SwayIPC(env=desktop.env) as ipc:
        while True:
            found = next((v for v in ipc.views() if v.pid == pid), None)
            if found is not None:
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(f"pid {pid} has no sway view within {timeout_s} s")
            time.sleep(POLL_S)


class WaylandLauncher(Launcher):
    """The X11 launcher, with sway's tree instead of the X client list as the mapped-window check."""

    def wait_ready(self, app: LaunchedApp, timeout_s: float) -> A11yApp:
        found = self.wait_on_bus(app, timeout_s)
        assert found.pid is not None
        wait_view(self.desktop, found.pid, timeout_s)
        return found


@pytest.fixture
def wl_launch(wl_desktop: VirtualDesktop, tmp_path: Path) -> Iterator[WaylandLauncher]:
    launcher = WaylandLauncher(wl_desktop, tmp_path)
    try:
        yield launcher
    finally:
        launcher.close()


@pytest.fixture(scope="module")
def wl_client(wl_desktop: VirtualDesktop) -> Iterator[Client]:
    with Client(wl_desktop.env) as client:
        yield client


@pytest.fixture(scope="module")
def wl_devices(wl_client: Client) -> Iterator[Devices]:
    devices = Devices(wl_client)
    try:
        yield devices
    finally:
        devices.close()


@pytest.fixture
def ipc(wl_desktop: VirtualDesktop) -> Iterator[SwayIPC]:
    with SwayIPC(env=wl_desktop.env) as conn:
        yield conn


__all__ = ["Running", "WaylandLauncher", "sway_missing", "wait_view"]
