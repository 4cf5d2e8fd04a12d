"""Error mapping and counters: the counterparts of nativeError.test.ts and the replRuntime counter tests."""

from __future__ import annotations

import pytest

from deskhand.core.counters import CallCounters
from deskhand.core.errors import (
    HELPER_TO_OFFICIAL,
    NOT_DISPATCHED_KINDS,
    OFFICIAL_CODES,
    RECOVERY_NOT_DISPATCHED,
    RECOVERY_OBSERVE,
    AppDeniedError,
    ArgumentError,
    BackendUnavailable,
    GrantRequiredError,
    NativeError,
    official_error,
    to_js_error,
)


def test_21_unique_official_codes() -> None:
    assert len(OFFICIAL_CODES) == 21
    assert sorted(OFFICIAL_CODES.values()) == list(range(-10020, -9999))
    assert OFFICIAL_CODES["appNotAllowed"] == -10006
    assert OFFICIAL_CODES["runningApplicationNotFound"] == -10007
    assert OFFICIAL_CODES["permissionsNotGranted"] == -10009
    assert OFFICIAL_CODES["screenLocked"] == -10020


MAPPED = [
    ("not_trusted", "permissionsNotGranted", -10009),
    ("screen_recording_denied", "permissionsNotGranted", -10009),
    ("ax_failed", "accessibilityError", -10008),
    ("process_gone", "runningApplicationNotFound", -10007),
    ("target_not_running", "runningApplicationNotFound", -10007),
    ("ambiguous_target", "ambiguousApp", -10018),
    ("protocol_mismatch", "incompatibleClientVersion", -10013),
    ("screen_locked", "screenLocked", -10020),
    ("user_interference", "userIntervened", -10016),
]


def test_exactly_9_mapped_helper_codes() -> None:
    assert {(h, o) for h, o, _ in MAPPED} == set(HELPER_TO_OFFICIAL.items())


@pytest.mark.parametrize(("helper", "error_name", "code"), MAPPED)
def test_mapped_causes_become_sky_errors(helper: str, error_name: str, code: int) -> None:
    js = NativeError(helper, "boom").to_js()
    assert js.to_json() == {
        "name": "SkyComputerUseError",
        "message": "boom",
        "code": code,
        "errorName": error_name,
        "nativeCode": helper,
        "request": None,
        "requestType": "jsonRPC",
    }


def test_process_gone_is_running_application_not_found() -> None:
    js = to_js_error(NativeError("process_gone", "The app quit."))
    assert (js.name, js.code, js.error_name) == ("SkyComputerUseError", -10007, "runningApplicationNotFound")


@pytest.mark.parametrize(
    "helper",
    ["app_denied", "stale_process", "stale_snapshot", "bad_payload", "user_interference_result_unknown",
     "future_error", "__proto__", "constructor", "toString"],
)  # fmt: skip
def test_unmapped_causes_stay_plain_errors_with_native_code(helper: str) -> None:
    assert NativeError(helper, "msg").to_js().to_json() == {"name": "Error", "message": "msg", "nativeCode": helper}


def test_type_error_is_kept() -> None:
    assert to_js_error(TypeError("click x and y must be provided together")).to_json() == {
        "name": "TypeError",
        "message": "click x and y must be provided together",
    }
    assert to_js_error(ArgumentError("bad")).to_json() == {"name": "TypeError", "message": "bad"}


def test_a_plain_error_never_forges_a_code() -> None:
    exc = ValueError("boom")
    exc.code = -10009  # type: ignore[attr-defined]
    exc.nativeCode = "not_trusted"  # type: ignore[attr-defined]
    exc.errorName = "permissionsNotGranted"  # type: ignore[attr-defined]
    assert to_js_error(exc).to_json() == {"name": "Error", "message": "boom"}


def test_host_tcc_refusal_shape() -> None:
    js = official_error("permissionsNotGranted", "Accessibility is not granted.")
    assert [js.name, js.code, js.error_name] == ["SkyComputerUseError", -10009, "permissionsNotGranted"]


def test_pre_dispatch_kinds_and_flags() -> None:
    assert {"app_denied", "bad_args", "tcc_not_granted", "grant_flag_required", "cu_lock_held",
            "feature_unavailable"} == NOT_DISPATCHED_KINDS  # fmt: skip
    assert ArgumentError("x").not_dispatched
    assert AppDeniedError("Terminal").not_dispatched
    assert GrantRequiredError("alt+F4").not_dispatched
    assert BackendUnavailable("no display").not_dispatched
    assert not NativeError("stale_process", "x").not_dispatched  # result unknown by default


def test_app_denied_text() -> None:
    err = AppDeniedError("XTerm")
    assert err.code == "app_denied"
    assert err.message == "Computer Use is not allowed to use the app 'XTerm' for safety reasons."
    assert err.to_js().to_json() == {"name": "Error", "message": err.message, "nativeCode": "app_denied"}


def test_grant_required_code() -> None:
    assert GrantRequiredError("super+l").code == "grant_flag_required"


# --- counters ----------------------------------------------------------------------------------


def test_recovery_texts() -> None:
    assert RECOVERY_NOT_DISPATCHED == "No native actions were dispatched. Resolve the reported error before retrying."
    assert RECOVERY_OBSERVE == (
        "Observe the app before retrying. Completed calls were dispatched, but their visual effect still needs "
        "verification."
    )


def test_a_pre_dispatch_rejection() -> None:
    c = CallCounters()
    c.start()
    c.finish(is_error=True, not_dispatched=True)
    assert (c.started, c.completed, c.rejected_before_dispatch, c.result_unknown) == (1, 0, 1, False)
    assert c.to_json() == {
        "nativeCallsStarted": 1,
        "nativeCallsCompleted": 0,
        "nativeCallsRejectedBeforeDispatch": 1,
        "nativeResultUnknown": False,
        "bindingsReset": False,
        "recovery": RECOVERY_NOT_DISPATCHED,
    }


def test_an_ignored_failing_action_makes_the_result_unknown() -> None:
    c = CallCounters()
    c.start()
    c.finish(is_error=False, not_dispatched=False)
    c.start()
    c.finish(is_error=True, not_dispatched=False)
    assert c.result_unknown
    assert c.recovery == RECOVERY_OBSERVE


def test_a_thrown_invoke_and_an_in_flight_call_are_unknown() -> None:
    thrown = CallCounters()
    thrown.start()
    thrown.threw()
    assert thrown.result_unknown
    in_flight = CallCounters(started=2, completed=1)
    assert in_flight.result_unknown


def test_completed_calls_only_are_known_and_need_observation() -> None:
    c = CallCounters()
    for _ in range(3):
        c.start()
        c.finish(is_error=False, not_dispatched=False)
    assert not c.result_unknown
    assert c.recovery == RECOVERY_OBSERVE


def test_no_calls_at_all() -> None:
    c = CallCounters(bindings_reset=True)
    assert c.to_json()["recovery"] == RECOVERY_NOT_DISPATCHED
    assert c.to_json()["bindingsReset"] is True
    assert c.to_json()["nativeResultUnknown"] is False
