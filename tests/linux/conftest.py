"""The desktop fixtures live in ``tests/desktop_support.py`` (a plugin of ``tests/conftest.py``);
their classes are re-exported here for the tests that import them from ``conftest``.

Here ``desktop`` is the desktop of the module's ``display`` (``tests/displays.py``): the session's
X11 desktop, or for a test marked ``@pytest.mark.displays("x11", "sway", "kwin")`` also the session's
headless sway and KWin, where the fixture apps and Mousepad run natively on Wayland; ``ex`` (alias
``executor``) is that server's executor, per test.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from deskhand.desktop import VirtualDesktop
from desktop_support import EventLog, Launcher, Running
from display_support import MatrixExecutor, executor_on

__all__ = ["EventLog", "Launcher", "Running"]


@pytest.fixture(scope="module")
def desktop(display_desktop: VirtualDesktop) -> VirtualDesktop:
    return display_desktop


@pytest.fixture
def ex(desktop: VirtualDesktop) -> Iterator[MatrixExecutor]:
    """The display server's executor on the desktop, closed after the test."""
    with executor_on(desktop) as executor:
        yield executor
