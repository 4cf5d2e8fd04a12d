"""One tree read's calls (``atspi.read.Read.ask``) against a fake app on a socket pair.

The fake app answers each method call with its member and path, in order, and counts what it
received; it stays silent for ``Hang``, and one made with ``breaks=True`` closes its socket on
``Close``.
"""

from __future__ import annotations

import itertools
import socket
import threading
from collections import Counter
from collections.abc import Iterator

import pytest
from jeepney import new_method_return
from jeepney.low_level import MessageType, Parser

from deskhand.backends.linux.atspi import read as _atspi_read
from deskhand.backends.linux.atspi.calls import CAPPED, TIMED_OUT, Call, Deadline, Link, Links
from deskhand.backends.linux.atspi.read import Read
from deskhand.backends.linux.atspi.wire import ReplyReader

BUS = ":1.42"


class FakeApp:
    def __init__(self, *, breaks: bool = False) -> None:
        self.breaks = breaks
        self.ours, theirs = socket.socketpair()
        self.received: Counter[tuple[str, str]] = Counter()
        self._thread = threading.Thread(target=self._serve, args=(theirs,), daemon=True)
        self._thread.start()

    def _serve(self, sock: socket.socket) -> None:
        parser = Parser()
        with sock:
            while data := sock.recv(1 << 16):
                parser.add_data(data)
                while (msg := parser.get_next_message()) is not None:
                    if msg.header.message_type != MessageType.method_call:
                        continue
                    member, path = msg.header.fields[3], msg.header.fields[1]
                    self.received[(member, path)] += 1
                    if member == "Close" and self.breaks:
                        return
                    if member != "Hang":
                        sock.sendall(new_method_return(msg, "s", (f"{member} {path}",)).serialise(serial=1))

    def link(self, *, direct: bool) -> Link:
        link = Link.__new__(Link)
        link.sock, link.reader, link.outgoing_serial, link.direct = self.ours, ReplyReader(), itertools.count(1), direct
        return link


@pytest.fixture
def app() -> Iterator[FakeApp]:
    fake = FakeApp()
    yield fake
    fake.ours.close()


def links_to(app: FakeApp, bus: FakeApp | None = None) -> Links:
    links = Links((bus or app).link(direct=False))
    links.peers[BUS] = app.link(direct=True)
    return links


def read(links: Links, seconds: float) -> Read:
    return Read(BUS, Deadline(seconds), links)


def call(member: str, path: str = "/a") -> Call:
    return Call(BUS, path, "org.a11y.atspi.Accessible", member)


def test_a_round_gets_its_replies_and_a_planned_call_is_sent_once(app: FakeApp) -> None:
    links = links_to(app)
    r = read(links, 2.0)
    assert r.ask([call("GetItems")], [call("GetRole", "/b"), call("GetState", "/b")]) == [("GetItems /a",)]
    assert r.ask([call("GetRole", "/b"), call("GetChildren", "/c")]) == [("GetRole /b",), ("GetChildren /c",)]
    assert r.ask([call("GetRole", "/b")]) == [("GetRole /b",)]
    assert app.received[("GetRole", "/b")] == 1
    assert r.used == [call("GetItems"), call("GetRole", "/b"), call("GetChildren", "/c"), call("GetRole", "/b")]


def test_an_unanswered_call_times_out_by_the_deadline_and_the_read_ends(app: FakeApp) -> None:
    links = links_to(app)
    r = read(links, 0.2)
    assert r.ask([call("GetRole"), call("Hang")]) == [("GetRole /a",), TIMED_OUT]
    assert r.dead
    assert r.ask([call("GetState")]) == [TIMED_OUT]  # nothing more is sent to a hung app
    assert app.received[("GetState", "/a")] == 0


def test_a_broken_direct_link_is_dropped_and_the_unanswered_calls_go_over_the_bus() -> None:
    app, bus = FakeApp(breaks=True), FakeApp()
    try:
        links = links_to(app, bus)
        r = read(links, 2.0)
        assert r.ask([call("GetState"), call("Close"), call("GetRole")]) == [
            ("GetState /a",),
            ("Close /a",),
            ("GetRole /a",),
        ]
        assert links.peers[BUS] is None
        assert app.received[("GetState", "/a")] == 1
        assert bus.received == Counter({("Close", "/a"): 1, ("GetRole", "/a"): 1})
    finally:
        app.ours.close()
        bus.ours.close()


def test_calls_past_the_cap_are_answered_capped_in_place_and_never_sent(
    app: FakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_atspi_read, "MAX_READ_CALLS", 3)
    links = links_to(app)
    r = read(links, 2.0)
    calls = [call("GetRole", f"/{i}") for i in range(5)]
    replies = r.ask(calls)
    assert replies == [("GetRole /0",), ("GetRole /1",), ("GetRole /2",), CAPPED, CAPPED]
    assert r.capped and not r.dead
    assert app.received[("GetRole", "/3")] == 0 and app.received[("GetRole", "/4")] == 0
    assert r.used == calls[:3]
