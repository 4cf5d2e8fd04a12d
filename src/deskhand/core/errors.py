"""The one error hierarchy of deskhand, with the contract's codes (native-contract.md section 4).

* DeskhandError(message, code=helper code, dispatched=...)   every failure a caller can see
  + ArgumentError        a caller bug found before dispatch (bad_args); JS sees it as a TypeError
  + NativeError          a helper code from the native contract (stale_process, bad_index, ...)
    + AppDeniedError     the deny policy refused the resolved app (app_denied), before dispatch
    + GrantRequiredError a system key combination without the session grant (grant_flag_required)
  + BackendUnavailable   a missing display, bus, library or permission; the message says how to fix it

``dispatched`` says whether any native call may have had an effect: ``False`` for a refusal
before dispatch (the contract's NATIVE_CALL_NOT_DISPATCHED flag, counted as
``nativeCallsRejectedBeforeDispatch``), ``None`` when unknown, ``True`` when an event was posted.
Everything that is not a pre-dispatch refusal counts toward ``nativeResultUnknown`` (section 4.2);
nothing is ever replayed.

JS mapping (section 4.1): only the 9 helper codes of ``HELPER_TO_OFFICIAL`` become a
``SkyComputerUseError`` with an official code; every other helper code stays a plain ``Error``
carrying ``nativeCode``; a TypeError stays a TypeError; a plain exception never forges a code.
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

#: The host refusal kinds that carry the not-dispatched flag (section 4.2).
NOT_DISPATCHED_KINDS: Final = frozenset(
    {"app_denied", "bad_args", "tcc_not_granted", "grant_flag_required", "cu_lock_held", "feature_unavailable"}
)

SKY_ERROR_NAME: Final = "SkyComputerUseError"

#: ``recovery`` of a failed cell when every started call was refused before dispatch.
RECOVERY_NOT_DISPATCHED: Final = "No native actions were dispatched. Resolve the reported error before retrying."
#: ``recovery`` of a failed cell otherwise.
RECOVERY_OBSERVE: Final = (
    "Observe the app before retrying. Completed calls were dispatched, but their visual effect still needs "
    "verification."
)


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


def map_helper_code(code: str, message: str) -> JsError:
    """The JS error for a native helper code: one of the 9 mapped codes, or a plain Error with ``nativeCode``."""
    official = HELPER_TO_OFFICIAL.get(code)
    if official is not None:
        return JsError(SKY_ERROR_NAME, message, OFFICIAL_CODES[official], official, code)
    return JsError("Error", message, native_code=code)


class DeskhandError(Exception):
    """Root of every deskhand error."""

    code: str = "unknown"
    #: False: refused before any native call; None: the effect is unknown; True: an event was posted.
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

    @property
    def not_dispatched(self) -> bool:
        """True when the call was refused before any native effect could happen."""
        return self.dispatched is False

    def to_js(self) -> JsError:
        """Map onto the JS-visible error, promoting the 9 mapped helper codes."""
        return map_helper_code(self.code, self.message)


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


class AppDeniedError(NativeError):
    """The deny policy refused the resolved app; nothing was dispatched."""

    dispatched = False

    def __init__(self, display_name: str) -> None:
        super().__init__(
            "app_denied",
            f"Computer Use is not allowed to use the app '{display_name}' for safety reasons.",
            dispatched=False,
        )


class GrantRequiredError(NativeError):
    """A system key combination without the session grant the user gives (never the model)."""

    dispatched = False

    def __init__(self, key: str) -> None:
        super().__init__(
            "grant_flag_required",
            f"press_key '{key}' is a system key combination. It needs the session's system-key grant, "
            "which only the user can give when starting deskhand.",
            dispatched=False,
        )


class BackendUnavailable(DeskhandError):  # noqa: N818 - public name other layers already use
    """A display, bus, library or permission is missing; the message says how to fix it."""

    code = "feature_unavailable"
    dispatched = False


def official_error(error_name: str, message: str) -> JsError:
    """A SkyComputerUseError for an official code, e.g. the host's ``permissionsNotGranted``."""
    return JsError(SKY_ERROR_NAME, message, OFFICIAL_CODES[error_name], error_name)


def to_js_error(exc: BaseException) -> JsError:
    """The JS-visible error for any exception the host catches.

    A DeskhandError maps by its code; a TypeError stays a TypeError; anything else is a plain
    Error whose attributes never forge a code or a nativeCode.
    """
    if isinstance(exc, DeskhandError):
        return exc.to_js()
    if isinstance(exc, TypeError):
        return JsError("TypeError", str(exc))
    return JsError("Error", str(exc) or type(exc).__name__)
