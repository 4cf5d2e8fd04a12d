"""The real-app matrix: fixtures over the session desktop of ``tests/desktop_support.py``.

apps      module-scoped launchers of the matrix apps (``apps.soffice("calc")``, ...); every
          app a module started is stopped when the module ends
ex        a Linux executor on the desktop (from ``desktop_support``), per test
mex       a module-scoped Linux executor, for tests sharing one app instance
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _apps import Apps, require_accessibility

from deskhand.backends.linux.executor import LinuxExecutor
from deskhand.desktop import VirtualDesktop
from desktop_support import Launcher


@pytest.fixture(scope="session")
def a11y_desktop(desktop: VirtualDesktop) -> VirtualDesktop:
    """The session desktop, checked to have ``org.a11y.Status.IsEnabled`` on."""
    require_accessibility(desktop)
    return desktop


@pytest.fixture(scope="module")
def apps(a11y_desktop: VirtualDesktop, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Apps]:
    tmp = tmp_path_factory.mktemp("apps")
    launcher = Launcher(a11y_desktop, tmp)
    try:
        yield Apps(launcher, tmp)
    finally:
        launcher.close()


@pytest.fixture(scope="module")
def mex(a11y_desktop: VirtualDesktop) -> Iterator[LinuxExecutor]:
    executor = LinuxExecutor(display=a11y_desktop.env["DISPLAY"], a11y_address=a11y_desktop.env["AT_SPI_BUS_ADDRESS"])
    try:
        yield executor
    finally:
        executor.close()
