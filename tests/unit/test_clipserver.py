"""The Wayland paste transaction (``wayland._clipserver.ClipboardServer``) over a transport that
records what it is asked: the restore rules every compositor shares, whichever mechanism carries
them (the real transports run in tests/wayland on sway and KWin and tests/realapps on GNOME)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from deskhand.backends.linux.wayland import _clipserver
from deskhand.backends.linux.wayland._clipserver import ClipboardServer
from deskhand.core.errors import NativeError
from deskhand.core.pastetypes import PastePayload

USER = {"text/plain;charset=utf-8": b"the user's", "text/html": b"<b>the user's</b>"}


class _Transport:
    """A selection in memory: ``copy`` is another client taking it; ``fail`` makes every call fail."""

    keeper = "a.keeper.module"
    keeper_wait_s = 0.5

    def __init__(self, selection: Mapping[str, bytes]) -> None:
        self.selection = dict(selection)
        self.owned = False
        self.sent: list[str] = []
        self.asked: list[tuple[Any, ...]] = []
        self.fail: Exception | None = None
        self.closed = False
        self._r, self._w = os.pipe()  # never readable: the serving thread only waits on it

    def _maybe_fail(self) -> None:
        if self.fail is not None:
            raise self.fail

    def fileno(self) -> int:
        return self._r

    def pump(self, timeout_s: float) -> None:
        del timeout_s
        self._maybe_fail()

    def read_all(self) -> dict[str, bytes]:
        self._maybe_fail()
        return dict(self.selection)

    def set(self, data: Mapping[str, bytes], *, transient: bool) -> None:
        self._maybe_fail()
        self.asked.append(("set", dict(data), transient))
        self.selection, self.owned, self.sent = dict(data), True, []

    def clear(self) -> None:
        self._maybe_fail()
        self.asked.append(("clear",))
        self.selection, self.owned = {}, False

    def copy(self, data: Mapping[str, bytes]) -> None:
        self.selection, self.owned = dict(data), False

    def close(self) -> None:
        self.closed = True
        os.close(self._r)
        os.close(self._w)


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, ...]]]:
    """What was handed to a keeper (no process is started)."""
    out: list[tuple[Any, ...]] = []
    monkeypatch.setattr(
        _clipserver, "hand_to_keeper", lambda env, data, module, wait_s: out.append((dict(data), module, wait_s))
    )
    yield out


def _paste(server: ClipboardServer, transport: _Transport) -> tuple[object, object]:
    snapshot = server.snapshot()
    token = server.own(PastePayload.build("pasted", "text"))
    transport.sent.append("text/plain;charset=utf-8")  # the target read it
    return snapshot, token


def test_a_paste_is_served_then_the_users_clipboard_is_restored_and_kept_after_close(
    kept: list[tuple[Any, ...]],
) -> None:
    transport = _Transport(USER)
    server = ClipboardServer(transport, {"WAYLAND_DISPLAY": "wayland-1"})
    snapshot, token = _paste(server, transport)
    assert snapshot == USER
    assert transport.asked[0][0] == "set" and transport.asked[0][2] is True  # a paste's selection is transient
    assert transport.asked[0][1]["text/plain;charset=utf-8"] == b"pasted"
    assert server.still_owner(token) and server.data_requests_since(token) == ["text/plain;charset=utf-8"]
    server.restore(snapshot)
    assert transport.asked[-1] == ("set", USER, False) and not server.still_owner(token)
    server.close()
    assert kept == [(USER, "a.keeper.module", 0.5)] and transport.closed


def test_an_empty_clipboard_is_given_back_empty_and_nothing_is_kept(kept: list[tuple[Any, ...]]) -> None:
    transport = _Transport({})
    server = ClipboardServer(transport, {})
    snapshot, token = _paste(server, transport)
    assert snapshot == {}
    server.restore(snapshot)
    assert transport.asked[-1] == ("clear",) and not server.owns and server.data_requests_since(token) == []
    server.close()
    assert kept == [] and transport.closed


def test_a_copy_made_during_the_paste_wins_and_is_not_kept(kept: list[tuple[Any, ...]]) -> None:
    transport = _Transport(USER)
    server = ClipboardServer(transport, {})
    _snapshot, token = _paste(server, transport)
    transport.copy({"text/plain": b"copied meanwhile"})
    assert not server.still_owner(token)
    server.close()
    assert kept == [] and transport.selection == {"text/plain": b"copied meanwhile"}


def test_a_restored_clipboard_copied_over_is_not_kept(kept: list[tuple[Any, ...]]) -> None:
    transport = _Transport(USER)
    server = ClipboardServer(transport, {})
    snapshot, _token = _paste(server, transport)
    server.restore(snapshot)
    transport.copy({"text/plain": b"the user's next copy"})
    server.close()
    assert kept == []
    server = ClipboardServer(transport := _Transport(USER), {})
    snapshot, _token = _paste(server, transport)
    server.restore(snapshot)
    server.close(hand_off=False)
    assert kept == []


@pytest.mark.parametrize("failure", [OSError("pipe closed"), NativeError("unknown", "org.gnome.Error: gone")])
def test_a_transport_failure_is_the_stage_s_error(failure: Exception, kept: list[tuple[Any, ...]]) -> None:
    transport = _Transport(USER)
    server = ClipboardServer(transport, {})
    snapshot, _token = _paste(server, transport)
    transport.fail = failure
    with pytest.raises(NativeError) as err:
        server.snapshot()
    assert err.value.code == "clipboard_snapshot_failed" and str(failure) in err.value.message
    with pytest.raises(NativeError) as err:
        server.own(PastePayload.build("x", "text"))
    assert err.value.code == "clipboard_write_failed"
    with pytest.raises(NativeError) as err:
        server.restore(snapshot)
    assert err.value.code == "clipboard_restore_failed" and "could not own" in err.value.message
    with pytest.raises(NativeError) as err:
        server.restore({})
    assert err.value.code == "clipboard_restore_failed" and "could not empty" in err.value.message
    server.close()  # the connection is gone: nothing is kept, and the transport is still closed
    assert kept == [] and transport.closed


def test_restore_takes_only_the_snapshot_it_took() -> None:
    transport = _Transport(USER)
    server = ClipboardServer(transport, {})
    try:
        with pytest.raises(TypeError, match="snapshot this clipboard took"):
            server.restore(b"not a snapshot")
        assert transport.asked == []
    finally:
        server.close(hand_off=False)
