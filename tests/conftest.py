"""Shared pytest setup: markers, and no display for unit tests.

Tests under ``tests/linux/``, ``tests/realapps/``, ``tests/faults/``, ``tests/tasks/`` and
``tests/wayland/`` get the ``desktop`` marker automatically (they share the session's virtual
desktop from the ``desktop_support`` plugin; ``tests/wayland`` starts its own Wayland one). Unit
tests run with ``DISPLAY`` and the bus variables removed, so a unit test that needs a display fails
instead of silently using one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ("desktop_support", "displays", "matrix_report")

TESTS_DIR = Path(__file__).resolve().parent
_NO_DISPLAY_DIRS = (TESTS_DIR / "unit",)
_DESKTOP_DIRS = tuple(TESTS_DIR / d for d in ("linux", "realapps", "faults", "tasks", "wayland"))
_DESKTOP_ENV = ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS")


def _under(path: Path, dirs: tuple[Path, ...]) -> bool:
    return any(path.is_relative_to(d) for d in dirs)


#: Tests that drive real apps, desktops and clusters on a loaded machine: one that fails runs once more
#: (pytest-rerunfailures), and the matrix and task reports list it. ``DESKHAND_RERUNS=0`` turns
#: this off (to count how often a test fails).
_RERUN_DIRS = tuple(TESTS_DIR / d for d in ("linux", "realapps", "tasks", "wayland", "faults", "fleet"))
_RERUNS = int(os.environ.get("DESKHAND_RERUNS", "1"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.fspath))
        if _under(path, _DESKTOP_DIRS):
            item.add_marker(pytest.mark.desktop)
        if _RERUNS > 0 and _under(path, _RERUN_DIRS) and item.get_closest_marker("flaky") is None:
            item.add_marker(pytest.mark.flaky(reruns=_RERUNS))


@pytest.fixture(autouse=True)
def _no_display_for_unit_tests(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if _under(Path(str(request.node.fspath)), _NO_DISPLAY_DIRS):
        for name in _DESKTOP_ENV:
            monkeypatch.delenv(name, raising=False)
