"""The desktop fixtures live in ``tests/desktop_support.py`` (a plugin of ``tests/conftest.py``);
their classes are re-exported here for the tests that import them from ``conftest``."""

from __future__ import annotations

from desktop_support import EventLog, Launcher, Running

__all__ = ["EventLog", "Launcher", "Running"]
