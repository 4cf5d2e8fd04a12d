"""The display servers a desktop test runs on (a pytest plugin, loaded by ``tests/conftest.py``).

A test that asks for the ``display`` fixture runs on X11 (the session desktop of
``desktop_support``) unless it is marked ``@pytest.mark.displays("x11", "sway")``, which runs it
once per server; ``displays(..., sway=pytest.mark.xfail(reason=..., strict=True))`` marks one
server's run. ``display`` is module-scoped, so a module's apps and executors start once per
server and are torn down when the server changes.

display_desktop   the desktop of ``display``: the session's X11 one, or one private headless
                  sway for the whole session (``sway_desktop``, started only when a sway run
                  does), whose apps run natively on Wayland (``GDK_BACKEND=wayland``,
                  ``QT_QPA_PLATFORM=wayland``)
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from deskhand.desktop import VirtualDesktop

DISPLAYS = ("x11", "sway")
#: The sway desktop's screen (the X11 session desktop's is 1920x1080).
SWAY_SIZE = (1920, 1080, 24)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "displays(*servers, **marks): run the test on each display server (x11, sway), marks per server"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that uses ``display`` gets it as a module-scoped parameter (``x11`` alone unless
    marked), so pytest tears a module's apps and executor down when its server changes: a test
    left on the default fixture would get what was cached for the last one."""
    if "display" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("displays")
    if marker is None:
        metafunc.parametrize("display", ["x11"], scope="module")
        return
    servers = marker.args or DISPLAYS
    unknown = set(servers) - set(DISPLAYS) | set(marker.kwargs) - set(servers)
    assert not unknown, f"displays(): no display server {sorted(unknown)}"
    params = [pytest.param(s, marks=marker.kwargs.get(s, ()), id=s) for s in servers]
    metafunc.parametrize("display", params, scope="module")


@pytest.fixture(scope="module")
def display() -> str:
    """The display server (always parametrised by ``pytest_generate_tests``)."""
    return "x11"


def sway_desktop_or_skip() -> Iterator[VirtualDesktop]:
    if shutil.which("sway") is None:
        pytest.skip("sway is not installed (apt-get install sway, or `make deps`, which installs it)")
    vd = VirtualDesktop(wayland=True, size=SWAY_SIZE)
    vd.start()
    try:
        yield vd
    finally:
        vd.stop()


@pytest.fixture(scope="session")
def sway_desktop() -> Iterator[VirtualDesktop]:
    """One private headless sway for the session's sway runs (started only when one runs)."""
    yield from sway_desktop_or_skip()


@pytest.fixture(scope="module")
def display_desktop(display: str, request: pytest.FixtureRequest) -> VirtualDesktop:
    """The desktop of ``display``."""
    vd: VirtualDesktop = request.getfixturevalue("desktop" if display == "x11" else f"{display}_desktop")
    return vd
