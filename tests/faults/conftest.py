"""The fault suite runs on the same harness as ``tests/linux`` (its fixtures and ``_act_support``).

Each test here breaks something on purpose (an app stopped or killed, a dialog that opens behind
the agent's back, the X server gone) and checks the promises from the app's side and from X's.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_LINUX = Path(__file__).resolve().parents[1] / "linux"
if str(_LINUX) not in sys.path:
    sys.path.insert(0, str(_LINUX))

_spec = importlib.util.spec_from_file_location("_linux_harness", _LINUX / "conftest.py")
assert _spec is not None and _spec.loader is not None
_harness = importlib.util.module_from_spec(_spec)
sys.modules["_linux_harness"] = _harness
_spec.loader.exec_module(_harness)

desktop = _harness.desktop
launch = _harness.launch
a11y = _harness.a11y
ex = _harness.ex
executor = _harness.executor
