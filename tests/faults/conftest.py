"""The fault suite runs on the desktop harness (``tests/desktop_support.py``) and the acting
tests' helpers (``tests/linux/_act_support.py``).

Each test here breaks something on purpose (an app stopped or killed, a dialog that opens behind
the agent's back, the X server gone, the server closing while it owns the clipboard) and checks
the promises from the app's side and from X's. Most drive the GTK fixture: ``gtk`` launches it,
``canvas`` also binds it with a point on its canvas (``app_support``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_LINUX = Path(__file__).resolve().parents[1] / "linux"
if str(_LINUX) not in sys.path:
    sys.path.insert(0, str(_LINUX))

from app_support import Canvas, on_canvas  # noqa: E402

from deskhand.backends.linux.executor import LinuxExecutor  # noqa: E402

# Whichever directory's conftest Python imports as ``conftest`` first, the tests that import
# these names from it (``from conftest import Launcher``) find them.
from desktop_support import EventLog, Launcher, Running  # noqa: E402

__all__ = ["EventLog", "Launcher", "Running"]


@pytest.fixture
def gtk(launch: Launcher) -> Running:
    """The GTK fixture app on the session desktop, ready (its log said so)."""
    running = launch.gtk_fixture()
    running.events.wait_for("ready")
    return running


@pytest.fixture
def canvas(gtk: Running, ex: LinuxExecutor) -> Canvas:
    """The GTK fixture bound through ``ex``, with a point on its canvas."""
    return on_canvas(ex, gtk)
