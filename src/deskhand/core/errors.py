"""The one error hierarchy of deskhand, with the contract's codes (native-contract.md section 4).

* DeskhandError(message, code=helper code, dispatched=...)   every failure a caller can see
  + ArgumentError        a caller bug found before dispatch (bad_args); JS sees it as a TypeError
  + NativeError          a helper code from the native contract (stale_process, bad_index, ...)
    + AppDeniedError     the deny policy refused the resolved app (app_denied), before dispatch
    + GrantRequiredError a system key combination without the session grant (grant_flag_required)
  + BackendUnavailable   a missing display, bus, library or permission; the message says how to fix it
  + DesktopLost          a pooled desktop, its host or its node died while leased (deskhand.fleet); never retried
  + LeaseTimeout         no pooled desktop became free within the lease's deadline (nothing dispatched)

``dispatched`` says whether any native call may have had an effect: ``False`` for a refusal
before dispatch (the contract's NATIVE_CALL_NOT_DISPATCHED flag, counted as
``nativeCallsRejectedBeforeDispatch``), ``None`` when unknown, ``True`` when an event was posted.
Everything that is not a pre-dispatch refusal counts toward ``nativeResultUnknown`` (section 4.2);
nothing is ever replayed.

Helper codes form the closed :data:`HelperCode` set; :data:`HELPER_CODES` says in one line what each
means. :func:`from_result` turns a failed host result back into the typed error (the SDK's one path).

JS mapping (section 4.1): only the 9 helper codes of ``HELPER_TO_OFFICIAL`` become a
``SkyComputerUseError`` with an official code; every other helper code stays a plain ``Error``
carrying ``nativeCode``; a TypeError stays a TypeError; a plain exception never forges a code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal, Protocol

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

#: Every helper code deskhand raises (native-contract.md 4.3, plus the host's own refusals).
HelperCode = Literal[
    # arguments and grammar
    "bad_args", "bad_payload", "bad_index", "unknown_key",
    # the host's refusals before dispatch
    "app_denied", "grant_flag_required", "cu_lock_held", "feature_unavailable", "tcc_not_granted",
    "identity_unproven", "policy_invalid", "closed",
    # permissions
    "not_trusted", "screen_recording_denied",
    # targets and their identity
    "target_not_running", "ambiguous_target", "process_gone", "stale_process", "stale_window", "stale_snapshot",
    "stale_element", "target_window_offscreen", "target_window_changed", "point_outside_target_window",
    # element actions and text
    "ax_failed", "no_action", "invalid_action", "not_settable", "not_selectable", "text_not_found",
    "ambiguous_text", "text_edit_state_unknown",
    # input, capture and the clipboard
    "input_failed", "capture_failed", "clipboard_snapshot_failed", "clipboard_write_failed",
    "clipboard_restore_failed", "clipboard_changed", "clipboard_read_timeout", "clipboard_target_timeout",
    "paste_failed", "cancelled",
    # the exact-window workflow and the SDK's driver checks (sdk-contract.md 2.1)
    "window_not_found", "window_not_key", "app_screenshot_required", "driver_platform_unavailable",
    "reconnect_unavailable", "unsupported_platform",
    # the fleet's leases (deskhand.fleet)
    "desktop_lost", "lease_timeout",
    # JS mapping only (4.1) and the fake backend
    "protocol_mismatch", "screen_locked", "user_interference", "fake_gate_timeout", "unknown",
]  # fmt: skip

#: One line per helper code: what it means to the caller.
HELPER_CODES: Final[Mapping[HelperCode, str]] = MappingProxyType(
    {
        "bad_args": "an argument is missing, of the wrong type or out of range; nothing ran",
        "bad_payload": "a request the executor cannot carry out as given (no target, empty text); nothing ran",
        "bad_index": "the element handle is not in the latest observation",
        "unknown_key": "the key string does not parse or the layout has no key for it; nothing ran",
        "app_denied": "the deny policy refused the resolved app; nothing ran",
        "grant_flag_required": "a system key combination without the user's session grant; nothing ran",
        "cu_lock_held": "the session queue is held by another caller or was released; nothing ran",
        "feature_unavailable": "this platform or build cannot do it (a missing display, bus or /proc)",
        "tcc_not_granted": "macOS privacy permission is missing; nothing ran",
        "identity_unproven": "the app's process lifetime could not be proven; observe it first",
        "policy_invalid": "the deny-policy file cannot be read",
        "closed": "the SDK Computer was closed",
        "window_not_found": "the pid has no window with that id now; nothing ran",
        "window_not_key": "the window is not its app's key window, the one observed and acted on; nothing ran",
        "app_screenshot_required": "coordinates need an observation of that very window first; nothing ran",
        "driver_platform_unavailable": "the tools listing has no valid _meta.platform",
        "reconnect_unavailable": "this SDK Computer does not own a service it could reopen; nothing ran",
        "unsupported_platform": "the connected platform does not offer this operation; nothing ran",
        "not_trusted": "the process lacks the accessibility permission",
        "screen_recording_denied": "the process lacks the screen-recording permission",
        "target_not_running": "no running app matches the selector",
        "ambiguous_target": "several running apps match the selector",
        "process_gone": "the app's process exited",
        "stale_process": "the app restarted since it was resolved (another pid or start time)",
        "stale_window": "the app's window changed since it was observed",
        "stale_snapshot": "the observation the handle came from is no longer the latest",
        "stale_element": "the element no longer exists in the app",
        "target_window_offscreen": "the app's window is not on screen",
        "target_window_changed": "another window came on top of the target before the event",
        "point_outside_target_window": "the point is outside the app's window",
        "ax_failed": "an accessibility call failed, or a multi-press stopped part-way (effect unknown)",
        "no_action": "the element offers no action for the request",
        "invalid_action": "the element has no secondary action of that name",
        "not_settable": "the element's value cannot be set (or not to that value)",
        "not_selectable": "the element has no text selection to set",
        "text_not_found": "the text is not in the element",
        "ambiguous_text": "the text occurs more than once; add prefix or suffix",
        "text_edit_state_unknown": "the text edit may or may not have happened",
        "input_failed": "an input event could not be created or posted",
        "capture_failed": "the window screenshot could not be taken",
        "clipboard_snapshot_failed": "the user's clipboard could not be saved, so the paste did not start",
        "clipboard_write_failed": "the paste content could not be put on the clipboard",
        "clipboard_restore_failed": "the paste ran but the user's clipboard could not be restored",
        "clipboard_changed": "someone else changed the clipboard during the paste; theirs was kept",
        "clipboard_read_timeout": "no application read the paste content in time",
        "clipboard_target_timeout": "the app did not ask for the paste content in time",
        "paste_failed": "the paste failed unexpectedly",
        "cancelled": "the call was cancelled (before dispatch, or after the keys with unknown effect)",
        "protocol_mismatch": "the native helper speaks another protocol version",
        "screen_locked": "the screen is locked",
        "user_interference": "the user took over input during the action",
        "fake_gate_timeout": "the fake backend's test gate timed out (tests only)",
        "desktop_lost": "a leased desktop, its host or its node died, or the lease was reclaimed; never retried",
        "lease_timeout": "no pooled desktop became free within the lease's deadline; nothing ran",
        "unknown": "an error with no more specific code",
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

    def __init__(self, display_name: str, *, message: str | None = None) -> None:
        text = message or f"Computer Use is not allowed to use the app '{display_name}' for safety reasons."
        super().__init__("app_denied", text, dispatched=False)


class GrantRequiredError(NativeError):
    """A system key combination without the session grant the user gives (never the model)."""

    dispatched = False

    def __init__(self, key: str, *, message: str | None = None) -> None:
        text = message or (
            f"press_key '{key}' is a system key combination. It needs the session's system-key grant, "
            "which only the user can give when starting deskhand."
        )
        super().__init__("grant_flag_required", text, dispatched=False)


class BackendUnavailable(DeskhandError):  # noqa: N818 - public name other layers already use
    """A display, bus, library or permission is missing; the message says how to fix it."""

    code = "feature_unavailable"
    dispatched = False


class DesktopLost(DeskhandError):  # noqa: N818 - what the holder is told: the desktop is lost
    """A leased desktop (deskhand.fleet), its host or its node died, or its lease was reclaimed.

    The call that saw it is never retried (an action's effect is unknown: ``dispatched`` is None);
    the pool replaces the desktop, and the holder leases another for a new episode.
    """

    code = "desktop_lost"


class LeaseTimeout(DeskhandError):  # noqa: N818 - parallels the contract's timeout names
    """No pooled desktop became free within the lease's ``timeout_s``; nothing was dispatched."""

    code = "lease_timeout"
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


class FailedResult(Protocol):
    """What :func:`from_result` reads of a failed host result (``deskhand.host.result.ToolResult``)."""

    @property
    def native_error(self) -> JsError | None: ...

    @property
    def not_dispatched(self) -> bool: ...

    @property
    def text(self) -> str: ...


def from_result(result: FailedResult, method: str) -> DeskhandError:
    """The typed error for a failed host result, as the host raised it: the reverse of :func:`to_js_error`.

    A TypeError is an :class:`ArgumentError`; ``app_denied`` and ``grant_flag_required`` are
    :class:`AppDeniedError` and :class:`GrantRequiredError`; every other code is a
    :class:`NativeError` carrying it (``bad_args`` when refused before dispatch without one).
    """
    error = result.native_error
    message = error.message if error else (result.text or f"Computer Use {method} failed")
    if error is not None and error.name == "TypeError":
        return ArgumentError(message)
    code = (error.native_code if error else None) or ("bad_args" if result.not_dispatched else "unknown")
    if code == "app_denied":
        return AppDeniedError("", message=message)
    if code == "grant_flag_required":
        return GrantRequiredError("", message=message)
    return NativeError(code, message, dispatched=False if result.not_dispatched else None)
