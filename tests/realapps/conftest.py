"""The real-app matrix: fixtures over the session desktop of ``tests/desktop_support.py``.

apps      module-scoped launchers of the matrix apps (``apps.soffice("calc")``, ...); every
          app a module started is stopped when the module ends
ex        a Linux executor on the desktop (from ``desktop_support``), per test
mex       a module-scoped executor, for tests sharing one app instance
display   the display server a test runs on: ``x11`` (Xvfb + openbox, the session desktop) unless
          the test is marked ``@pytest.mark.displays("x11", "sway")``, which runs it once per
          server (module-scoped, so each server's apps start once per module); on ``sway`` the
          desktop is a private headless sway, apps run natively on Wayland (the desktop's
          ``GDK_BACKEND=wayland``, ``QT_QPA_PLATFORM=wayland``) and ``mex`` is a WaylandExecutor.
          ``displays(..., sway=pytest.mark.xfail(...))`` marks one server's run (see ``_display``).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from _apps import Apps, require_accessibility
from _display import DISPLAYS, KNOWN_DISPLAYS, MatrixExecutor, sway_desktop_or_skip, wayland_desktop_or_skip

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.backends.linux.wayland_executor import WaylandExecutor
from deskhand.desktop import VirtualDesktop
from desktop_support import Launcher


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "displays(*servers, **marks): run the test on each display server (x11, sway, kwin, gnome), marks"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test on the matrix's desktop gets the module-scoped ``display`` parameter (``x11``
    alone unless marked), so pytest tears a module's apps and executor down when its server
    changes: a test left on the default fixture would get the executor cached for the last one."""
    if "display" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("displays")
    if marker is None:
        metafunc.parametrize("display", ["x11"], scope="module")
        return
    servers = marker.args or DISPLAYS
    unknown = set(servers) - set(KNOWN_DISPLAYS) | set(marker.kwargs) - set(servers)
    assert not unknown, f"displays(): no display server {sorted(unknown)}"
    params = [pytest.param(s, marks=marker.kwargs.get(s, ()), id=s) for s in servers]
    metafunc.parametrize("display", params, scope="module")


@pytest.fixture(scope="module")
def display() -> str:
    """The display server (always parametrised by ``pytest_generate_tests``)."""
    return "x11"


@pytest.fixture(scope="session")
def sway_desktop() -> Iterator[VirtualDesktop]:
    """One private headless sway for the session's sway runs (started only when one runs)."""
    yield from sway_desktop_or_skip()


@pytest.fixture(scope="session")
def kwin_desktop() -> Iterator[VirtualDesktop]:
    """One private headless KWin for the session's kwin runs (skipped when KWin is missing)."""
    yield from wayland_desktop_or_skip("kwin")


@pytest.fixture(scope="session")
def gnome_desktop() -> Iterator[VirtualDesktop]:
    """One private headless GNOME Shell for the session's gnome runs (skipped when it is missing)."""
    yield from wayland_desktop_or_skip("gnome")


@pytest.fixture(scope="session", autouse=True)
def _no_stale_office_pipes() -> Iterator[None]:
    """LibreOffice makes its single-instance pipe in /tmp whatever ``TMPDIR`` says, and an
    instance that is killed (every test's app is, at its module's end) leaves it behind: after
    the run, the pipes that appeared during it and that nothing listens on any more go."""
    before = set(_office_pipes())
    yield
    for path in set(_office_pipes()) - before:
        with socket.socket(socket.AF_UNIX) as probe:
            try:
                probe.connect(str(path))
            except ConnectionRefusedError:
                path.unlink(missing_ok=True)
            except OSError:
                pass


def _office_pipes() -> list[Path]:
    return list(Path("/tmp").glob(f"OSL_PIPE_{os.getuid()}_*"))


@pytest.fixture(scope="session")
def a11y_desktop(desktop: VirtualDesktop) -> VirtualDesktop:
    """The session desktop, checked to have ``org.a11y.Status.IsEnabled`` on."""
    require_accessibility(desktop)
    return desktop


@pytest.fixture(scope="module")
def matrix_desktop(display: str, request: pytest.FixtureRequest) -> VirtualDesktop:
    """The desktop of ``display``, checked to have accessibility on."""
    vd: VirtualDesktop = request.getfixturevalue("a11y_desktop" if display == "x11" else f"{display}_desktop")
    require_accessibility(vd)
    return vd


@pytest.fixture(scope="module")
def apps(matrix_desktop: VirtualDesktop, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Apps]:
    tmp = tmp_path_factory.mktemp("apps")
    launcher = Launcher(matrix_desktop, tmp)
    try:
        yield Apps(launcher, tmp)
    finally:
        launcher.close()


@pytest.fixture(scope="module")
def mex(matrix_desktop: VirtualDesktop) -> Iterator[MatrixExecutor]:
    env = matrix_desktop.env
    executor: MatrixExecutor
    if matrix_desktop.wayland:
        executor = WaylandExecutor(env)
    else:
        executor = LinuxExecutor(display=env["DISPLAY"], a11y_address=env["AT_SPI_BUS_ADDRESS"])
    try:
        yield executor
    finally:
        executor.close()
