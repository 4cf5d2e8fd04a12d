"""Fixtures for tests against a real headless compositor (``VirtualDesktop(compositor=...)``).

wl_desktop   one Wayland desktop for the module, on each compositor of ``_wl_support.COMPOSITORS``
             (the fixture's parameter: every test runs on sway and on KWin; skipped only when
             the compositor is not installed)
wl_launch    start an app natively on Wayland and wait until it is on the AT-SPI bus and the
             compositor shows its window; every app is stopped after the test
wl_comp      the compositor seam on the desktop (``wayland.compositor.Compositor``), one per
             desktop; ``wl_devices`` its input (the session's one pointer and keyboard)
wl_client    a Wayland client with the seat's globals bound (for the clipboard)
wl_ex        a ``WaylandExecutor`` on the desktop, closed after the test
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _wl_support import COMPOSITORS, WaylandLauncher, close_comp, comp_of, compositor_missing

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland.compositor import Compositor, Input
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.desktop import VirtualDesktop

WL_SIZE = (1280, 800, 24)


@pytest.fixture(scope="module", params=COMPOSITORS)
def wl_desktop(request: pytest.FixtureRequest) -> Iterator[VirtualDesktop]:
    reason = compositor_missing(request.param)
    if reason is not None:
        pytest.skip(reason)
    vd = VirtualDesktop(compositor=request.param, size=WL_SIZE)
    vd.start()
    try:
        yield vd
    finally:
        close_comp(vd)
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
def wl_comp(wl_desktop: VirtualDesktop) -> Compositor:
    return comp_of(wl_desktop)


@pytest.fixture(scope="module")
def wl_devices(wl_comp: Compositor) -> Input:
    return wl_comp.input


@pytest.fixture
def wl_ex(wl_desktop: VirtualDesktop) -> Iterator[WaylandExecutor]:
    executor = WaylandExecutor(wl_desktop.env)
    try:
        yield executor
    finally:
        executor.close()
