"""`deskhand serve --launch` without a display: a failed launch leaves no app running."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from deskhand import commands
from deskhand.cli import build_parser, main
from deskhand.core.errors import DeskhandError
from deskhand.desktop import virtual


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Every process the launch starts; whatever the code under test left running is killed after."""
    procs: list[subprocess.Popen[bytes]] = []
    popen = subprocess.Popen

    def spy(*a: object, **kw: object) -> subprocess.Popen[bytes]:
        procs.append(popen(*a, **kw))  # type: ignore[call-overload]
        return procs[-1]

    monkeypatch.setattr(subprocess, "Popen", spy)
    yield procs
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_a_failed_launch_ends_the_apps_launched_before_it(
    started: list[subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    def window(_display: str, pid: int, timeout_s: float) -> int:
        if len(started) > 1:
            raise TimeoutError(f"no mapped window of pid {pid} within {timeout_s} s")
        return 1

    monkeypatch.setenv("DISPLAY", ":99")  # never opened: the window wait is replaced
    monkeypatch.setattr(virtual, "wait_for_window", window)
    args = build_parser().parse_args(["serve", "--launch", "sleep 60", "--launch", "sleep 61"])
    with pytest.raises(DeskhandError, match="showed no window"):
        commands.cmd_serve(args)
    assert len(started) == 2
    assert [p.poll() is not None for p in started] == [True, True]


def test_a_window_wait_that_fails_otherwise_ends_the_app(
    started: list[subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_display(_display: str, _pid: int, _timeout_s: float) -> int:
        raise ConnectionRefusedError("no X server")

    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(virtual, "wait_for_window", no_display)
    with pytest.raises(ConnectionRefusedError):
        commands.launch_app(["sleep", "60"])
    assert [p.poll() is not None for p in started] == [True]


def test_launch_without_a_display_is_one_clear_line(
    started: list[subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    assert main(["serve", "--launch", "sleep 60"]) == 1
    assert capsys.readouterr().err == "deskhand: error: --launch needs an X display: set DISPLAY, or add --virtual\n"
    assert started == []
