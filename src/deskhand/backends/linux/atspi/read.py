"""One bounded tree read's exchange with an app: each call sent once, in order, pipelined.

A ``Read`` holds the read's link and deadline, every reply it got, and the calls still queued or
waiting for a reply (by serial). ``Read.ask`` returns as soon as the replies a round needs are in,
while the app goes on answering the calls queued behind them (the plan of the app's previous
read). No reply outlives the read that asked for it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, Final

from deskhand.backends.linux.atspi.calls import (
    CAPPED,
    MAX_IN_FLIGHT,
    TIMED_OUT,
    Call,
    Deadline,
    Failed,
    Links,
    next_reply,
)

#: Calls one tree read sends at most (a hard cap: what is beyond it is not read).
MAX_READ_CALLS: Final = 12_000


class Read:
    """The state of one tree read: its link and deadline, the calls it asked for and every
    reply it got, and the calls still queued or waiting for a reply (by serial)."""

    __slots__ = (
        "asked", "bus", "capped", "dead", "deadline", "hypertext", "link", "links", "open_menus", "queue", "replies",
        "used", "visible_is_shown", "waiting",
    )  # fmt: skip

    def __init__(self, bus: str, deadline: Deadline, links: Links) -> None:
        self.bus = bus
        self.deadline = deadline
        self.links = links
        self.link = links.peers.get(bus) or links.bus
        self.replies: dict[Call, Any] = {}
        self.used: list[Call] = []
        self.asked: set[Call] = set()
        self.queue: deque[Call] = deque()
        self.waiting: dict[int, Call] = {}
        #: The app stopped answering (deadline passed, or it stopped reading): nothing more is read.
        self.dead = False
        #: ``MAX_READ_CALLS`` was reached: calls beyond it were not sent.
        self.capped = False
        #: The app is GTK 4: VISIBLE objects below its windows are shown (see ``states_of``).
        self.visible_is_shown = False
        #: The app follows the hypertext model (Chromium, Gecko): each child that is not text is
        #: an embedded-object character in its parent's text (see ``Walker.inline_runs``).
        self.hypertext = False
        #: Menus the display server shows open though their items are not SHOWING (GTK 2): their
        #: VISIBLE items count as shown (``atspi.popups``).
        self.open_menus: set[str] = set()

    def ask(self, calls: Sequence[Call], plan: Sequence[Call] = ()) -> list[Any]:
        """The replies to ``calls`` in this read (a ``Failed`` for an error, ``TIMED_OUT`` past
        the deadline), with ``plan`` queued behind them.

        A call is sent once per read. Calls go out in order with up to MAX_IN_FLIGHT in flight,
        and ``ask`` returns as soon as the replies to ``calls`` are in: the app answers the
        rest of the plan while the caller works on these."""
        fresh = [c for c in dict.fromkeys(calls) if c not in self.asked]
        if len(self.asked) + len(fresh) > MAX_READ_CALLS:
            self.capped = True
            fresh = fresh[: max(0, MAX_READ_CALLS - len(self.asked))]
        self.asked.update(fresh)
        self.queue.extendleft(reversed(fresh))  # what a round needs goes before what it may need
        for c in plan:
            if c not in self.asked:
                self.asked.add(c)
                self.queue.append(c)
        # One reply per call, in order: a call past the cap is answered CAPPED, never sent.
        need = {c for c in calls if c in self.asked and c not in self.replies}
        while need and not self.dead:
            # Replies already read come first; calls are sent only before waiting on the
            # socket, so one write refills the pipeline per read of the socket rather than per
            # reply (a write per reply was a third of a big read's CPU time).
            reply = self.link.reader.next_reply()
            if reply is None:
                try:
                    self._send_queued()
                    reply = next_reply(self.link, self.deadline)
                except OSError as e:
                    self._link_broke(e)
                    continue
            if reply is None:
                self.dead = True  # deadline: stop feeding a hung app; late replies are dropped by serial
                break
            answered = self.waiting.pop(reply.serial, None)
            if answered is not None:
                self.replies[answered] = Failed(reply.error) if reply.error else reply.body
                need.discard(answered)
        self.used.extend(c for c in calls if c in self.asked)
        return [self.replies.get(c, TIMED_OUT if c in self.asked else CAPPED) for c in calls]

    def grouped(self, groups: list[list[Call]]) -> list[list[Any]] | None:
        """One pipeline for several groups of calls; the replies regrouped, None on timeout."""
        flat = self.ask([c for g in groups for c in g])
        if any(x is TIMED_OUT for x in flat):
            return None
        out: list[list[Any]] = []
        at = 0
        for g in groups:
            out.append(flat[at : at + len(g)])
            at += len(g)
        return out

    def _send_queued(self) -> None:
        """Send queued calls in one write, up to MAX_IN_FLIGHT in flight."""
        link = self.link
        if not self.queue or len(self.waiting) >= MAX_IN_FLIGHT:
            return
        batch: list[bytes] = []
        while self.queue and len(self.waiting) < MAX_IN_FLIGHT:
            c = self.queue.popleft()
            serial = next(link.outgoing_serial)
            batch.append(self.links.wire.serialize(c, serial))
            self.waiting[serial] = c
        if link.direct:
            # An app that stops reading must not block the write past the deadline.
            link.sock.settimeout(max(self.deadline.remaining(), 0.001))
        link.sock.sendall(b"".join(batch))

    def _link_broke(self, e: OSError) -> None:
        """A direct link failed mid-read: never use it again (a half-written message would
        corrupt it), and send the unanswered calls again over the bus; an app that stopped
        reading is hung, so the read ends. A failing bus connection is not handled here."""
        if not self.link.direct:
            raise e
        self.links.peers[self.bus] = None
        self.link.close()
        if isinstance(e, TimeoutError):
            self.dead = True
            return
        self.queue.extendleft(reversed(list(self.waiting.values())))
        self.waiting.clear()
        self.link = self.links.bus
