"""Tests that run on more than one display server (a pytest plugin, loaded by ``tests/conftest.py``).

A test marked ``@pytest.mark.displays("x11", "sway")`` runs once per server; ``displays(...,
sway=pytest.mark.xfail(strict=True, reason=...))`` marks one server's run (``on_sway`` in
``display_support`` is the xfail that only the executor's refusal satisfies). A test without the
marker runs on ``x11`` alone. The names are those of :data:`DISPLAYS`; a server's desktop is the
fixture ``<name>_desktop``:

x11_desktop      the session's Xvfb + openbox (``desktop_support``)
sway_desktop     one private headless sway for the session, started only when a sway run needs it
                 (apps on it run natively on Wayland: ``GDK_BACKEND=wayland``, ``QT_QPA_PLATFORM=wayland``)
kwin_desktop     one private headless KWin, and one GNOME Shell, for the session (skipped with
gnome_desktop    what to install when the compositor is missing)

Fixtures:
    display          the module-scoped server name (always parametrised here, so pytest tears a
                     module's per-server fixtures down when the server changes)
    display_desktop  the desktop of ``display`` (module-scoped)
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from deskhand.desktop import VirtualDesktop
from display_support import DISPLAYS, sway_desktop_or_skip, wayland_desktop_or_skip


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "displays(*servers, **marks): run the test on each display server (x11, sway, kwin, gnome), marks per server",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that uses ``display`` (directly or through a fixture) gets it as a module-scoped
    parameter: ``x11`` alone unless marked. A module's tests run server by server, so each
    server's module-scoped desktop, apps and executor start once per module."""
    if "display" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("displays")
    if marker is None:
        metafunc.parametrize("display", ["x11"], scope="module")
        return
    servers = marker.args or DISPLAYS[:2]
    unknown = set(servers) - set(DISPLAYS) | set(marker.kwargs) - set(servers)
    assert not unknown, f"displays(): no display server {sorted(unknown)}"
    params = [pytest.param(s, marks=marker.kwargs.get(s, ()), id=s) for s in servers]
    metafunc.parametrize("display", params, scope="module")


@pytest.fixture(scope="module")
def display() -> str:
    """The display server (always parametrised by ``pytest_generate_tests``)."""
    return "x11"


@pytest.fixture(scope="module")
def display_desktop(display: str, request: pytest.FixtureRequest) -> VirtualDesktop:
    """The desktop of ``display``: the fixture named ``<display>_desktop``."""
    vd: VirtualDesktop = request.getfixturevalue(f"{display}_desktop")
    return vd


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
