"""The fault suite runs on the desktop harness (``tests/desktop_support.py``) and the acting
tests' helpers (``tests/linux/_act_support.py``).

Each test here breaks something on purpose (an app stopped or killed, a dialog that opens behind
the agent's back, the X server gone, the server closing while it owns the clipboard) and checks
the promises from the app's side and from X's.
"""

from __future__ import annotations

import sys
from pathlib import Path

_LINUX = Path(__file__).resolve().parents[1] / "linux"
if str(_LINUX) not in sys.path:
    sys.path.insert(0, str(_LINUX))

# Whichever directory's conftest Python imports as ``conftest`` first, the tests that import
# these names from it (``from conftest import Launcher``) find them.
from desktop_support import EventLog, Launcher, Running  # noqa: E402

__all__ = ["EventLog", "Launcher", "Running"]
