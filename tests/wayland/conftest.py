"""Fixtures for tests against a real headless sway (``VirtualDesktop(wayland=True)``).

wl_desktop   one Wayland desktop for the module, on sway or, in a module that lists
             ``WL_COMPOSITORS``, on each compositor it names (skips when one is not installed)
wl_launch    start an app natively on Wayland and wait until it is on the AT-SPI bus and sway
             shows its window; every app is stopped after the test
wl_client    a Wayland client with the seat's globals bound; ``wl_devices`` its one virtual
             pointer and keyboard (the session's devices, never one per action)
ipc          a connection to sway's IPC
wl_ex        a ``WaylandExecutor`` on the desktop, closed after the test
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _wl_support import WaylandLauncher, compositor_missing

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland.sway.ipc import SwayIPC
from deskhand.backends.linux.wayland.wlroots.devices import Devices
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.desktop import VirtualDesktop

WL_SIZE = (1280, 800, 24)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A module that names ``WL_COMPOSITORS`` runs on each of them (one desktop per module and
    compositor); the others on sway."""
    if "wl_compositor" in metafunc.fixturenames:
        names = getattr(metafunc.module, "WL_COMPOSITORS", ("sway",))
        metafunc.parametrize("wl_compositor", names, scope="module")


@pytest.fixture(scope="module")
def wl_compositor() -> str:
    """The compositor of the module's desktop (parametrised by ``pytest_generate_tests``)."""
    return "sway"


@pytest.fixture(scope="module")
def wl_desktop(wl_compositor: str) -> Iterator[VirtualDesktop]:
    reason = compositor_missing(wl_compositor)
    if reason is not None:
        pytest.skip(reason)
    vd = VirtualDesktop(compositor=wl_compositor, size=WL_SIZE)
    vd.start()
    try:
        yield vd
    finally:
        vd.stop()


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


@pytest.fixture
def wl_ex(wl_desktop: VirtualDesktop) -> Iterator[WaylandExecutor]:
    executor = WaylandExecutor(wl_desktop.env)
    try:
        yield executor
    finally:
        executor.close()
