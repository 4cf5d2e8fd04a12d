"""The one error hierarchy of deskhand, with the contract's codes (native-contract.md section 4).

* DeskhandError(message, code=helper code, dispatched=...)   every failure a caller can see
  + ArgumentError        a caller bug found before dispatch; JS sees it as a TypeError
  + NativeError          a helper code from the native contract (stale_process, bad_index, ...)
  + BackendUnavailable   a missing display, bus, library or permission; the message says how to fix it

``dispatched`` says whether any native call may have had an effect: ``False`` for a refusal
before dispatch (the counters' ``nativeCallsRejectedBeforeDispatch``), ``None`` when unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

#: The 21 official server error codes, errorName -> code.
OFFICIAL_CODES: Final[Mapping[str, int]] = MappingProxyType(
    {
        "senderProcessNotAuthenticated": -10000,
        "couldNotGetRequestData": -10001,
        "couldNotGetRequestTypeName": -10002,
        "couldNotResolveRequestType": -10003,
        "unhandledEvent": -10004,
        "unknownError": -10005,
        "appNotAllowed": -10006,
        "runningApplicationNotFound": -10007,
        "accessibilityError": -10008,
        "permissionsNotGranted": -10009,
        "invalidApp": -10010,
        "noActiveSession": -10011,
        "userStoppedSession": -10012,
        "incompatibleClientVersion": -10013,
        "permissionsPending": -10014,
        "blockedURL": -10015,
        "userIntervened": -10016,
        "couldNotGetSenderPID": -10017,
        "ambiguousApp": -10018,
        "couldNotGetBootstrapPort": -10019,
        "screenLocked": -10020,
    }
)

#: The 9 helper codes that are promoted to an official SkyComputerUseError.
HELPER_TO_OFFICIAL: Final[Mapping[str, str]] = MappingProxyType(
    {
        "not_trusted": "permissionsNotGranted",
        "screen_recording_denied": "permissionsNotGranted",
        "ax_failed": "accessibilityError",
        "process_gone": "runningApplicationNotFound",
        "target_not_running": "runningApplicationNotFound",
        "ambiguous_target": "ambiguousApp",
        "protocol_mismatch": "incompatibleClientVersion",
        "screen_locked": "screenLocked",
        "user_interference": "userIntervened",
    }
)

SKY_ERROR_NAME: Final = "SkyComputerUseError"


@dataclass(frozen=True, slots=True)
class JsError:
    """The JS-visible shape of an error (``nativeError`` in the host result)."""

    name: str
    message: str
    code: int | None = None
    error_name: str | None = None
    native_code: str | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "message": self.message}
        if self.code is not None:
            out["code"] = self.code
        if self.error_name is not None:
            out["errorName"] = self.error_name
        if self.native_code is not None:
            out["nativeCode"] = self.native_code
        if self.name == SKY_ERROR_NAME:
            out["request"] = None
            out["requestType"] = "jsonRPC"
        return out


class DeskhandError(Exception):
    """Root of every deskhand error."""

    code: str = "unknown"
    #: False: refused before any native call; None: the effect is unknown.
    dispatched: bool | None = None

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        dispatched: bool | None = None,
        details: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if dispatched is not None:
            self.dispatched = dispatched
        self.details: Mapping[str, object] = dict(details or {})

    def to_js(self) -> JsError:
        """Map onto the JS-visible error, promoting the 9 mapped helper codes."""
        official = HELPER_TO_OFFICIAL.get(self.code)
        if official is not None:
            return JsError(SKY_ERROR_NAME, self.message, OFFICIAL_CODES[official], official, self.code)
        return JsError("Error", self.message, native_code=self.code)


class ArgumentError(DeskhandError):
    """Invalid input found before dispatch. JS sees a TypeError with this exact message."""

    code = "bad_args"
    dispatched = False

    def to_js(self) -> JsError:
        return JsError("TypeError", self.message)


class NativeError(DeskhandError):
    """A helper code of the native contract, such as ``stale_process`` or ``bad_payload``."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        dispatched: bool | None = None,
        details: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message, code=code, dispatched=dispatched, details=details)


class BackendUnavailable(DeskhandError):
    """A display, bus, library or permission is missing; the message says how to fix it."""

    code = "feature_unavailable"
    dispatched = False


def official_error(error_name: str, message: str) -> JsError:
    """A SkyComputerUseError for an official code, e.g. the host's ``permissionsNotGranted``."""
    return JsError(SKY_ERROR_NAME, message, OFFICIAL_CODES[error_name], error_name)
