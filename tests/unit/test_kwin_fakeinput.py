"""KWin's fake-input device's two timing and position rules, on a stub Wayland client (no KWin):
the hover one pixel beside goes only where the pointer already rests, and each press of a
multi-click goes a KWin millisecond after the one before. The real-KWin checks are
``tests/linux/test_act_pointer.py`` (the five-event drag, the click where the pointer rests after
the window moved, the Qt double click) on the kwin display."""

from __future__ import annotations

import time
from typing import Any

import pytest

from deskhand.backends.linux.wayland.kwin import fakeinput
from deskhand.backends.linux.wayland.kwin.fakeinput import FakeInput


class _Conn:
    def __init__(self, log: list[tuple[Any, ...]]) -> None:
        self.log = log

    def roundtrip(self, timeout_s: float) -> None:
        self.log.append(("roundtrip", time.monotonic()))


class _FakeInputProxy:
    def __init__(self, log: list[tuple[Any, ...]]) -> None:
        self.log = log

    def request(self, name: str, *args: Any) -> None:
        self.log.append((name, *args, time.monotonic()))


class _Client:
    timeout_s = 1.0

    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []
        self.conn = _Conn(self.log)
        self.globals = {"org_kde_kwin_fake_input": _FakeInputProxy(self.log)}

    def bounds(self) -> tuple[int, int, int, int]:
        return (0, 0, 1920, 1080)


@pytest.fixture
def device(monkeypatch: pytest.MonkeyPatch) -> tuple[FakeInput, _Client]:
    monkeypatch.setattr(fakeinput, "read_keymap", lambda client: "")
    monkeypatch.setattr(fakeinput, "KeyTable", lambda text: None)
    client = _Client()
    dev = FakeInput(client)  # type: ignore[arg-type]
    client.log.clear()
    return dev, client


def _motions(client: _Client) -> list[tuple[float, float]]:
    return [(e[1], e[2]) for e in client.log if e[0] == "pointer_motion_absolute"]


def test_the_hover_goes_only_where_the_pointer_already_rests(device: tuple[FakeInput, _Client]) -> None:
    dev, client = device
    dev.move(10, 20)  # where the pointer is is not known yet: hover first
    assert _motions(client) == [(11.0, 20.0), (10.0, 20.0)]
    client.log.clear()
    dev.move(300, 200)  # elsewhere: the motion alone
    assert _motions(client) == [(300.0, 200.0)]
    client.log.clear()
    dev.move(300.4, 199.6)  # the same pixel: KWin would send the app nothing
    assert _motions(client) == [(301.0, 200.0), (300.0, 200.0)]
    client.log.clear()
    dev.pointer_seen(40, 50)  # KWin says another device moved it
    dev.move(300, 200)
    dev.move(41, 50)
    assert _motions(client) == [(300.0, 200.0), (41.0, 50.0)]
    client.log.clear()
    dev.pointer_seen(41, 50)
    dev.confine((0, 0, 42, 100))  # at the window's right edge the hover goes left, inside it
    dev.move(41, 50)
    assert _motions(client) == [(40.0, 50.0), (41.0, 50.0)]


def test_no_hover_while_a_button_is_held(device: tuple[FakeInput, _Client]) -> None:
    dev, client = device
    dev.pointer_seen(100, 100)
    dev.button(1, True)
    dev.move(100, 100)  # a drag's motion at its origin: no extra motion inside the gesture
    dev.button(1, False)
    assert _motions(client) == [(100.0, 100.0)]


def test_each_press_goes_a_millisecond_after_kwin_read_the_one_before(device: tuple[FakeInput, _Client]) -> None:
    dev, client = device
    dev.click(500, 400, count=3)
    kinds = [e[0] for e in client.log]
    assert kinds == [
        "pointer_motion_absolute",
        "pointer_motion_absolute",
        "button",
        "button",
        "roundtrip",
        "button",
        "button",
        "roundtrip",
        "button",
        "button",
    ]
    presses = [e for e in client.log if e[0] == "button" and e[2] == 1]
    trips = [e for e in client.log if e[0] == "roundtrip"]
    for trip, press in zip(trips, presses[1:], strict=True):
        assert press[-1] - trip[-1] >= fakeinput._STAMP_S
    client.log.clear()
    dev.flush()
    dev.click(500, 400)  # the last press was read (flushed): no extra round trip
    assert [e[0] for e in client.log if e[0] != "pointer_motion_absolute"] == ["roundtrip", "button", "button"]
