"""The texts a ``js`` cell ends with when it fails (native-contract.md 1.2, 1.3, 5.4 and 5.5)."""

from __future__ import annotations

from typing import Final

from deskhand.kernel.limits import MAX_NATIVE_CALLS, MAX_TIMEOUT_MS

CALL_LIMIT: Final = (
    f"Computer Use JavaScript exceeded its action limit: a cell makes at most {MAX_NATIVE_CALLS} native calls. "
    "Bindings were reset; observe the app, then split the work over several js calls."
)
ALREADY_RUNNING: Final = "A Computer Use JavaScript cell is already running."
INVALID_RUN: Final = f"Invalid Computer Use JavaScript code or timeout (maximum {MAX_TIMEOUT_MS / 1000:g} seconds)."
TIMED_OUT: Final = "Computer Use JavaScript timed out. Bindings were reset; observe the app before continuing."
CANCELLED: Final = "Computer Use JavaScript cancelled. Bindings were reset; observe the app before continuing."
CANCELLED_EARLIER: Final = (
    "The previous Computer Use JavaScript cell was cancelled. Bindings were reset; observe the app before continuing."
)
RESET_ACTIVE: Final = "Computer Use JavaScript reset. Bindings were discarded."
RESET_QUEUED: Final = "Computer Use JavaScript was reset before this queued cell started."
INVALID_OPERATION: Final = "Computer Use JavaScript exceeded its action limit or requested an invalid operation."
INVALID_CONTENT: Final = "Computer Use JavaScript emitted invalid content."
OUTPUT_LIMIT: Final = "Computer Use JavaScript exceeded the output limit."
MEMORY_LIMIT: Final = "Computer Use JavaScript exceeded its memory budget."
OUT_OF_MEMORY: Final = (
    "Computer Use JavaScript ran out of memory. The worker and its bindings were reset; "
    "observe the app before continuing."
)
UNRESPONSIVE: Final = "Computer Use JavaScript left an unresponsive background task."
INVALID_PROTOCOL: Final = "Computer Use JavaScript kernel sent invalid protocol data."
IDLE_SUFFIX: Final = " Bindings were reset. Select the app again."
#: Appended to "x is not defined" (a ReferenceError) in a worker that replaced a discarded one
#: ({why}: how that one ended).
BINDINGS_GONE: Final = (
    " The bindings made before {why} are gone: this cell ran in a fresh worker. Select the app again (cua.getApp)."
)
