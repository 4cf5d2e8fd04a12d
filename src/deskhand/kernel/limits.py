"""The `js` limits and the reset text, shared by the dispatcher's validation and the kernel session.

native-contract.md 1.2-1.3: a cell holds up to 256 KiB of code, makes up to 256 native calls,
and runs for 30 s by default and at most 60 s.
"""

from __future__ import annotations

from typing import Final

MAX_CODE_BYTES: Final = 256 * 1024
MAX_NATIVE_CALLS: Final = 256
DEFAULT_TIMEOUT_MS: Final = 30_000
MAX_TIMEOUT_MS: Final = 60_000

#: What ``js_reset`` answers, with or without a running kernel.
RESET_DONE: Final = "Computer Use JavaScript reset. Select an app again to continue."
