"""The macOS backend against the real system: AX trust, identity, windows, capture. Needs a Mac.

Skipped off Darwin, without pyobjc, and when this process lacks the Accessibility permission.
"""

from __future__ import annotations

import os
import sys

import pytest

if sys.platform != "darwin":
    pytest.skip("needs macOS (AX + Quartz through pyobjc)", allow_module_level=True)
pytest.importorskip("HIServices", reason="install deskhand[macos]")

from deskhand.backends.macos import _apps, _ax, _quartz_screen
from deskhand.backends.macos.executor import MacExecutor

pytestmark = pytest.mark.skipif(not _ax.is_trusted(), reason="grant Accessibility to the process running pytest")


def test_finder_is_listed_with_a_proven_identity() -> None:
    finder = next(p for p in _apps.running() if p.identity.app_id == "com.apple.finder")
    assert finder.identity.proven
    assert _apps.identity_of(finder.identity.pid) == finder.identity


def test_window_list_parses() -> None:
    assert all(w.id > 0 for w in _quartz_screen.window_infos(on_screen_only=True))


def test_finder_state_text() -> None:
    executor = MacExecutor()
    try:
        state = executor.get_app_state(executor.resolve("com.apple.finder"))
        assert state.text.startswith("App=com.apple.finder (pid ")
    finally:
        executor.close()


def test_own_process_is_not_a_target() -> None:
    assert all(p.identity.pid != os.getpid() for p in _apps.running())
