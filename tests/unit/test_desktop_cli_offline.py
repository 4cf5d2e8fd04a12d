"""The CLI and the doctor report without any display: argument errors, one-line failures, fixes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskhand.cli import COMMANDS, build_parser, main
from deskhand.desktop.doctor import Check, Report, run_doctor


@pytest.fixture(autouse=True)
def private_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKHAND_DESKTOPS_DIR", str(tmp_path / "registry"))
    monkeypatch.delenv("DESKHAND_DESKTOP_ID", raising=False)


def test_commands_are_registered_in_one_table() -> None:
    assert [c.name for c in COMMANDS][:2] == ["desktop", "doctor"]
    parser = build_parser()
    args = parser.parse_args(["desktop", "run", "--no-wm", "--", "echo", "hi"])
    assert args.cmd == ["--", "echo", "hi"]
    assert parser.parse_args(["doctor", "--virtual", "--json"]).virtual is True


def test_stop_without_desktops_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["desktop", "stop"]) == 1
    err = capsys.readouterr().err
    assert err == "deskhand: error: no desktop is running (start one with `deskhand desktop start`)\n"


def test_status_lists_nothing_when_no_desktop_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["desktop", "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["desktop", "stop", "--stale"]) == 0
    assert capsys.readouterr().out.strip() == "stopped 0 stale desktop(s)"


def test_run_without_command_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["desktop", "run", "--"]) == 1
    assert "needs a command" in capsys.readouterr().err


def test_doctor_without_display_fails_with_fixes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["display"]["detail"] == "DISPLAY is not set"
    assert "deskhand desktop run" in by_name["display"]["fix"]
    assert by_name["session_bus"]["ok"] is False
    assert by_name["session_bus"]["fix"]
    assert by_name["javascript"]["ok"] is True
    assert all(c["fix"] for c in report["checks"] if not c["ok"])


def test_doctor_with_a_display_that_does_not_exist() -> None:
    report = run_doctor({"DISPLAY": ":64999"})
    display = next(c for c in report.checks if c.name == "display")
    assert not display.ok
    assert ":64999" in display.detail


def test_report_text_shows_fix_only_for_failures() -> None:
    report = Report(
        [Check("display", True, ":1 1920x1080x24"), Check("window_manager", False, "none", "start openbox")]
    )
    assert report.to_text().splitlines() == [
        "ok    display        :1 1920x1080x24",
        "FAIL  window_manager none",
        "                     fix: start openbox",
        "not ready: 1 problem(s)",
    ]
    assert report.to_json()["ok"] is False
