"""The paste transaction against a fake clipboard, a fake target and a fake clock.

Mirrors ClipboardPasteReceiptTests (native-contract.md 7.2) with the contract's timings (6.10).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

import pytest

from deskhand.backends.macos import _events
from deskhand.core import keys as corekeys
from deskhand.core import paste as p
from deskhand.core.errors import ArgumentError, NativeError
from deskhand.core.markup import HTML_MIME, PLAIN_MIME, html_to_text, markdown_to_html
from deskhand.core.paste import PastePayload, PasteReceipt, PasteTransaction

#: The macOS paste target posts the chord ``super+v`` through the backend's pure burst planner, as
#: ``backends/macos/acting.py`` does; the fake target below posts through that same planner, so these
#: tests see what would really be posted. The values are macOS's own: kVK_ANSI_V is 9 on a US layout,
#: kCGEventFlagMaskCommand is 0x100000, and the third event carries the session's baseline flags.
US_LAYOUT = {"v": (9, frozenset[str]())}
COMMAND = 0x100000
BURST = [
    _events.KeyPlan("flags", 0, COMMAND),
    _events.KeyPlan("down", 9, COMMAND),
    _events.KeyPlan("flags", 0, 0),
    _events.KeyPlan("up", 9, COMMAND),
]


class FakeClock:
    """Time moves only in sleep(); callbacks scheduled with at() fire when their time is reached."""

    def __init__(self) -> None:
        self.t = 0.0
        self.sleeps: list[float] = []
        self._events: list[tuple[float, int, Callable[[], None]]] = []

    def now(self) -> float:
        return self.t

    def at(self, when: float, fn: Callable[[], None]) -> None:
        self._events.append((when, len(self._events), fn))
        self._events.sort()

    def after(self, delay: float, fn: Callable[[], None]) -> None:
        self.at(self.t + delay, fn)

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        end = self.t + seconds
        while self._events and self._events[0][0] <= end + 1e-12:
            when, _, fn = self._events.pop(0)
            self.t = max(self.t, when)
            fn()
        self.t = end


class FakeClipboard:
    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.content: dict[str, bytes] = {"UTF8_STRING": b"original"}
        self.owner: object = "someone"
        self.token: object | None = None
        self.payload: PastePayload | None = None
        self.requests: list[str] = []
        self.served: list[tuple[str, bytes | None]] = []
        self.owns = 0
        self.restores = 0
        self.snapshots = 0
        self.fail_snapshot = False
        self.fail_write = False

    def snapshot(self) -> object:
        self.snapshots += 1
        if self.fail_snapshot:
            raise NativeError(
                "clipboard_snapshot_failed", "clipboard snapshot is incomplete; original clipboard was not modified"
            )
        return dict(self.content)

    def own(self, payload: PastePayload) -> object:
        if self.fail_write:
            raise NativeError("clipboard_write_failed", "could not write generated paste content")
        self.owns += 1
        self.token = object()
        self.owner = self.token
        self.payload = payload
        self.requests = []
        return self.token

    def still_owner(self, token: object) -> bool:
        return self.owner is token

    def data_requests_since(self, token: object) -> Sequence[str]:
        return list(self.requests) if token is self.token else []

    def restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, dict)
        self.restores += 1
        self.content = dict(snapshot)
        self.owner = "restored"

    # what other clients do
    def request(self, target: str) -> None:
        self.requests.append(target)
        assert self.payload is not None
        self.served.append((target, self.payload.data_for(target)))

    def external_copy(self, data: bytes) -> None:
        self.owner = "external"
        self.content = {"UTF8_STRING": data}


class FakeTarget:
    def __init__(self, baseline: Mapping[str, object] | None = None, *, subscribe: bool = False) -> None:
        self.values: dict[str, object] = dict(baseline or {})
        self._baseline = dict(baseline or {})
        self._subscribe = subscribe
        self.events = 0
        self.keys: list[_events.KeyPlan] = []
        self.posts = 0
        self.closed = False
        self.read_fails = False
        self.partial = False
        self.on_paste: Callable[[], None] = lambda: None
        self.error: NativeError | None = None

    def baseline(self) -> Mapping[str, object]:
        return dict(self._baseline)

    def subscribe(self) -> bool:
        return self._subscribe

    def event_count(self) -> int:
        return self.events

    def read(self, keys: Collection[str]) -> Mapping[str, object] | None:
        if self.read_fails:
            return None
        if self.partial:
            return {k: v for i, (k, v) in enumerate(self.values.items()) if i == 0}
        return {k: self.values[k] for k in keys}

    def send_paste_keys(self) -> None:
        if self.error is not None:
            raise self.error
        self.posts += 1
        chords = corekeys.parse_keys("super+v")
        self.keys += _events.key_bursts(chords, US_LAYOUT.get, _events.baseline_flags(0))
        self.on_paste()

    def close(self) -> None:
        self.closed = True


class Rig:
    def __init__(self, target: FakeTarget | None = None, cancelled: Callable[[], bool] = lambda: False) -> None:
        self.clock = FakeClock()
        self.clipboard = FakeClipboard(self.clock)
        self.target = target or FakeTarget()
        self.cancelled = cancelled
        self.read_at: float | None = None

    def read_after(self, delay: float, target: str = "UTF8_STRING") -> None:
        """The app reads ``delay`` seconds after the paste keys are posted."""

        def schedule() -> None:
            def read() -> None:
                self.read_at = self.clock.now()
                self.clipboard.request(target)

            self.clock.after(delay, read)

        self.target.on_paste = schedule

    def run(self, text: str = "hello", fmt: str = "text", target_timeout_s: float | None = None) -> PasteReceipt:
        payload = PastePayload.build(text, fmt)
        tx = PasteTransaction(
            payload,
            self.clipboard,
            self.target,
            clock=self.clock,
            cancelled=self.cancelled,
            target_timeout_s=target_timeout_s,
        )
        return tx.run()


def test_contract_timings_as_the_clock_sees_them() -> None:
    """6.10's numbers, observed on the fake clock rather than read off the module's constants.

    The keys go out after 40 ms; the app reads 3 ms later, which the 10 ms read poll sees at 50 ms;
    with no signal the target stage then lasts 100 ms in 25 ms polls, so the paste ends at the first
    poll at or after 150 ms: 150 ms, or 175 ms when float sums put the fourth poll a hair short.
    """
    rig = Rig()
    rig.read_after(0.003)
    receipt = rig.run()
    assert receipt.status == "completed"
    assert rig.clock.sleeps[0] == pytest.approx(0.040)
    assert rig.clock.sleeps[1:2] == [pytest.approx(0.010)]
    assert set(rig.clock.sleeps[2:]) == {0.025}
    assert 0.150 - 1e-9 <= rig.clock.now() <= 0.175 + 1e-9


def test_no_signals_completes_about_100_ms_after_the_read_and_restores() -> None:
    rig = Rig()
    rig.read_after(0.003)
    receipt = rig.run()
    assert receipt.status == "completed"
    assert receipt.ok and receipt.error() is None
    assert rig.read_at is not None
    # read at 43 ms, seen by the 10 ms poll at 50 ms, then the 100 ms no-signal window
    assert rig.read_at == pytest.approx(0.043)
    assert 0.150 - 1e-9 <= rig.clock.now() <= 0.175 + 1e-9
    assert receipt.paste_posted and receipt.data_requested and receipt.data_supplied
    assert not receipt.provider_finished
    assert receipt.owned_before_restore and receipt.restored
    assert rig.clipboard.content == {"UTF8_STRING": b"original"}
    assert rig.clipboard.served == [("UTF8_STRING", b"hello")]
    assert rig.target.keys == BURST
    assert rig.target.closed
    assert receipt.message == p.COMPLETED_TEXT


def test_keys_are_posted_after_the_40_ms_pre_paste_sleep() -> None:
    rig = Rig()
    posted: list[float] = []
    rig.target.on_paste = lambda: posted.append(rig.clock.now())
    rig.run()
    assert posted == [pytest.approx(0.040)]
    assert rig.clock.sleeps[0] == 0.040


def test_waits_past_180_ms_for_a_real_read_with_one_four_event_burst() -> None:
    rig = Rig()
    rig.read_after(0.180)
    receipt = rig.run()
    assert receipt.status == "completed"
    assert receipt.read_elapsed_ms >= 180
    assert [(e.kind, e.keycode, e.flags) for e in rig.target.keys] == [
        ("flags", 0, 0x100000),
        ("down", 9, 0x100000),
        ("flags", 0, 0),
        ("up", 9, 0x100000),
    ]


def test_read_stage_polls_every_10_ms_and_target_stage_every_25_ms() -> None:
    rig = Rig()
    rig.read_after(0.05)
    rig.run()
    sleeps = rig.clock.sleeps[1:]
    assert set(sleeps[:5]) == {0.010}
    assert set(sleeps[-4:]) == {0.025}


def test_no_read_times_out_after_2_s_and_restores() -> None:
    rig = Rig()
    receipt = rig.run()
    assert receipt.status == "clipboard_read_timeout"
    assert receipt.read_elapsed_ms == pytest.approx(2000, abs=10)
    assert receipt.restored and receipt.owned_before_restore
    assert rig.clipboard.content == {"UTF8_STRING": b"original"}
    err = receipt.error()
    assert err is not None
    assert (err.code, err.message) == (
        "clipboard_read_timeout",
        "timed out waiting for an application to read paste content",
    )
    assert err.dispatched is True
    assert rig.target.posts == 1


def test_targets_is_not_a_read() -> None:
    rig = Rig()

    def poll_targets() -> None:
        for i in range(5):
            rig.clock.after(0.002 + i * 0.05, lambda: rig.clipboard.request("TARGETS"))

    rig.target.on_paste = poll_targets
    receipt = rig.run()
    assert receipt.status == "clipboard_read_timeout"
    assert receipt.data_requested and not receipt.data_supplied


def test_a_refused_target_is_not_a_read() -> None:
    rig = Rig()
    rig.read_after(0.003, "GTK_TEXT_BUFFER_CONTENTS")
    assert rig.run().status == "clipboard_read_timeout"


def test_an_early_reader_before_the_keys_does_not_count() -> None:
    rig = Rig()
    rig.clock.at(0.010, lambda: rig.clipboard.request("UTF8_STRING"))  # a clipboard manager, during the 40 ms
    receipt = rig.run()
    assert receipt.status == "clipboard_read_timeout"


def test_an_early_target_event_cannot_end_the_target_window() -> None:
    rig = Rig(FakeTarget(subscribe=True))

    def on_paste() -> None:
        rig.clock.after(0.001, lambda: setattr(rig.target, "events", rig.target.events + 1))
        rig.clock.after(0.050, lambda: rig.clipboard.request("UTF8_STRING"))

    rig.target.on_paste = on_paste
    receipt = rig.run()
    assert receipt.status == "clipboard_target_timeout"
    assert rig.target.posts == 1


def test_a_target_event_after_the_read_completes_early() -> None:
    rig = Rig(FakeTarget(subscribe=True))

    def on_paste() -> None:
        rig.clock.after(0.003, lambda: rig.clipboard.request("text/plain;charset=utf-8"))
        rig.clock.after(0.020, lambda: setattr(rig.target, "events", rig.target.events + 1))

    rig.target.on_paste = on_paste
    receipt = rig.run()
    assert receipt.status == "completed"
    assert receipt.effect_observed and receipt.has_signals
    assert receipt.elapsed_ms < 600


def test_an_observed_target_change_completes_under_600_ms() -> None:
    rig = Rig(FakeTarget({"caret": 0, "characters": 0}))

    def on_paste() -> None:
        rig.clock.after(0.003, lambda: rig.clipboard.request("UTF8_STRING"))
        rig.clock.after(0.010, lambda: rig.target.values.update(caret=5, characters=5))

    rig.target.on_paste = on_paste
    receipt = rig.run()
    assert receipt.status == "completed"
    assert receipt.effect_observed
    assert receipt.elapsed_ms < 600


def test_signals_without_a_change_time_out_without_a_resend() -> None:
    rig = Rig(FakeTarget({"caret": 0}))
    rig.read_after(0.003)
    receipt = rig.run()
    assert receipt.status == "clipboard_target_timeout"
    assert rig.target.posts == 1 and rig.target.keys == BURST
    assert receipt.restored
    err = receipt.error()
    assert err is not None and err.message == (
        "paste content was read, but no editing signal arrived before timeout; inspect app state before another action"
    )
    # the target stage lasted the full 2 s after the read
    assert rig.read_at is not None
    assert 2.0 <= rig.clock.now() - rig.read_at < 2.05


@pytest.mark.parametrize(("target_timeout_s", "status"), [(None, "clipboard_target_timeout"), (5.0, "completed")])
def test_a_platform_may_wait_longer_for_a_slow_target(target_timeout_s: float | None, status: str) -> None:
    """Linux gives the target stage 5 s: a browser's page process shows the text 3 s after the read."""
    rig = Rig(FakeTarget({"characters": 0}))

    def on_paste() -> None:
        rig.clock.after(0.003, lambda: rig.clipboard.request("UTF8_STRING"))
        rig.clock.after(3.0, lambda: rig.target.values.update(characters=5))

    rig.target.on_paste = on_paste
    receipt = rig.run(target_timeout_s=target_timeout_s)
    assert receipt.status == status and rig.target.posts == 1


def test_a_moved_caret_alone_is_no_sign_of_a_paste() -> None:
    """The click that focused the field moves its caret too, and in Chromium that event can come
    after the clipboard read: a caret that moved while the length stayed is no confirmation."""
    target = FakeTarget({"caret": 0, "characters": 3})
    rig = Rig(target)

    def on_paste() -> None:
        rig.clock.after(0.003, lambda: rig.clipboard.request("UTF8_STRING"))
        rig.clock.after(0.010, lambda: target.values.update(caret=3))

    target.on_paste = on_paste
    receipt = rig.run()
    assert receipt.status == "clipboard_target_timeout"
    assert not receipt.effect_observed


@pytest.mark.parametrize("failure", ["failed", "partial"])
def test_failed_or_partial_reads_never_confirm_consumption(failure: str) -> None:
    target = FakeTarget({"caret": 0, "characters": 3})
    rig = Rig(target)

    def on_paste() -> None:
        rig.clock.after(0.003, lambda: rig.clipboard.request("UTF8_STRING"))
        rig.clock.after(0.010, lambda: target.values.update(caret=9))

    target.on_paste = on_paste
    if failure == "failed":
        target.read_fails = True
    else:
        target.partial = True  # only "caret" comes back, and it changed: still not a confirmation
    assert rig.run().status == "clipboard_target_timeout"


def test_an_external_copy_wins_and_is_not_restored() -> None:
    rig = Rig()

    def on_paste() -> None:
        rig.clock.after(0.003, lambda: rig.clipboard.request("UTF8_STRING"))
        rig.clock.after(0.020, lambda: rig.clipboard.external_copy(b"theirs"))

    rig.target.on_paste = on_paste
    receipt = rig.run()
    assert receipt.status == "clipboard_changed"
    assert not receipt.restored and not receipt.owned_before_restore
    assert rig.clipboard.content == {"UTF8_STRING": b"theirs"}
    assert rig.clipboard.restores == 0
    err = receipt.error()
    assert err is not None and err.message == "clipboard changed during paste; new clipboard was preserved"


def test_an_external_copy_before_the_keys_posts_nothing() -> None:
    rig = Rig()
    rig.clock.at(0.020, lambda: rig.clipboard.external_copy(b"theirs"))
    receipt = rig.run()
    assert receipt.status == "clipboard_changed"
    assert not receipt.paste_posted and rig.target.keys == []
    assert receipt.message == "clipboard changed before paste dispatch; new clipboard was preserved"
    assert rig.clipboard.content == {"UTF8_STRING": b"theirs"}


def test_losing_ownership_while_waiting_for_the_read() -> None:
    rig = Rig()
    rig.target.on_paste = lambda: rig.clock.after(0.5, lambda: rig.clipboard.external_copy(b"x"))
    receipt = rig.run()
    assert receipt.status == "clipboard_changed"
    assert not receipt.restored


def test_cancellation_after_posting_keeps_the_consumption_window_open() -> None:
    flag = {"cancelled": False}
    rig = Rig(cancelled=lambda: flag["cancelled"])

    def on_paste() -> None:
        flag["cancelled"] = True
        rig.clock.after(0.5, lambda: rig.clipboard.request("UTF8_STRING"))

    rig.target.on_paste = on_paste
    receipt = rig.run()
    assert receipt.status == "cancelled"
    assert receipt.data_supplied  # the late reader still got its bytes
    assert rig.clipboard.served == [("UTF8_STRING", b"hello")]
    assert receipt.restored
    assert rig.clock.now() >= 0.040 + 0.5 + 0.09  # the no-signal window ran after the late read
    err = receipt.error()
    assert err is not None and err.code == "cancelled" and err.dispatched is True


def test_cancellation_after_posting_without_a_reader_waits_the_read_window() -> None:
    flag = {"cancelled": False}
    rig = Rig(cancelled=lambda: flag["cancelled"])
    rig.target.on_paste = lambda: flag.update(cancelled=True)
    receipt = rig.run()
    assert receipt.status == "cancelled"
    assert receipt.read_elapsed_ms == pytest.approx(2000, abs=10)


def test_an_already_cancelled_paste_writes_and_posts_nothing() -> None:
    rig = Rig(cancelled=lambda: True)
    receipt = rig.run()
    assert receipt.status == "cancelled"
    assert rig.clipboard.owns == 0 and rig.clipboard.snapshots == 0
    assert rig.target.keys == []
    assert not receipt.paste_posted
    err = receipt.error()
    assert err is not None and err.dispatched is False


def test_cancelled_during_the_pre_paste_sleep_posts_nothing_and_restores() -> None:
    flag = {"cancelled": False}
    rig = Rig(cancelled=lambda: flag["cancelled"])
    rig.clock.at(0.020, lambda: flag.update(cancelled=True))
    receipt = rig.run()
    assert receipt.status == "cancelled"
    assert rig.target.keys == [] and receipt.restored


def test_a_second_paste_of_identical_text_needs_a_new_read() -> None:
    rig = Rig()
    rig.read_after(0.003)
    assert rig.run().status == "completed"
    rig.target.on_paste = lambda: None  # nobody reads the second time
    second = rig.run()
    assert second.status == "clipboard_read_timeout"
    assert rig.target.keys == BURST + BURST


def test_snapshot_failure_changes_nothing() -> None:
    rig = Rig()
    rig.clipboard.fail_snapshot = True
    receipt = rig.run()
    assert receipt.status == "clipboard_snapshot_failed"
    assert rig.clipboard.owns == 0 and rig.target.keys == [] and rig.target.closed


def test_write_failure_posts_nothing() -> None:
    rig = Rig()
    rig.clipboard.fail_write = True
    receipt = rig.run()
    assert receipt.status == "clipboard_write_failed"
    assert rig.target.keys == [] and not receipt.paste_posted


def test_a_target_refusal_before_posting_is_reported_and_restored() -> None:
    target = FakeTarget()
    target.error = NativeError(
        "stale_process", "The target application changed process identity before the action.", dispatched=False
    )
    rig = Rig(target)
    receipt = rig.run()
    assert receipt.status == "stale_process"
    assert not receipt.paste_posted and receipt.restored
    err = receipt.error()
    assert err is not None and err.code == "stale_process"


def test_receipt_fields_and_summary() -> None:
    rig = Rig()
    rig.read_after(0.003)
    receipt = rig.run()
    fields = receipt.to_json()
    assert list(fields) == [
        "status", "pastePosted", "dataRequested", "dataSupplied", "providerFinished",
        "readElapsedMilliseconds", "elapsedMilliseconds", "ownedBeforeRestore", "restored",
    ]  # fmt: skip
    assert fields["status"] == "completed"
    summary = receipt.summary()
    assert summary["path"] == "clipboard_paste"
    assert summary["verified"] is False and summary["effect"] == "unverifiable"
    assert summary["clipboard_consumed"] is True and summary["clipboard_restored"] is True


def test_the_seed_fields_say_what_the_outcome_says() -> None:
    """A judged paste's ``verified``/``effect`` agree with its outcome (never ``verified: false``
    beside a confirmed outcome); without a judgment they keep the seed's values; unposted is refused."""
    rig = Rig()
    rig.read_after(0.003)
    receipt = rig.run()
    assert receipt.summary("confirmed")["verified"] is True
    assert receipt.summary("confirmed")["effect"] == "confirmed"
    assert receipt.summary("unverifiable")["verified"] is False
    assert receipt.summary("unverifiable")["effect"] == "unverifiable"
    assert receipt.summary()["effect"] == "unverifiable"
    unposted = PasteReceipt(status="cancelled")
    assert unposted.summary("confirmed")["effect"] == "refused"
    assert unposted.summary("confirmed")["verified"] is False


@pytest.mark.parametrize(
    ("evidence", "effect"),
    [((("value_readback", "the length read back"),), "confirmed"), ((), "unverifiable")],
)
def test_a_linux_paste_result_tells_one_effect(evidence: tuple[tuple[str, str], ...], effect: str) -> None:
    """What ``backends/linux/act/paste.py`` returns: the structured fields and the outcome agree."""
    from deskhand.backends.linux.act.paste import outcome  # noqa: PLC0415

    receipt = PasteReceipt(paste_posted=True, data_requested=True, data_supplied=True, evidence=evidence)
    judged = outcome(receipt, "hello")
    fields = receipt.summary(judged.effect)
    assert judged.effect == fields["effect"] == effect
    assert fields["verified"] is (effect == "confirmed")


# --- formats -------------------------------------------------------------------------------------


def test_text_offers_plain_utf8_only() -> None:
    payload = PastePayload.build("héllo", "text")
    assert payload.representations == ((PLAIN_MIME, "héllo".encode()),)
    assert payload.data_for("UTF8_STRING") == "héllo".encode()
    assert payload.data_for("text/plain") == "héllo".encode()
    assert payload.data_for("STRING") == "héllo".encode("latin-1")
    assert payload.data_for("text/html") is None
    assert payload.data_for("TARGETS") is None
    assert "UTF8_STRING" in payload.targets and "text/html" not in payload.targets


def test_html_offers_html_and_a_plain_rendering() -> None:
    html = "<h1>Title</h1><p>Hello <b>world</b> &amp; co</p><ul><li>one</li><li>two</li></ul><script>x()</script>"
    payload = PastePayload.build(html, "html")
    assert dict(payload.representations) == {
        HTML_MIME: html.encode(),
        PLAIN_MIME: b"Title\nHello world & co\none\ntwo",
    }
    assert payload.is_read("text/html") and payload.is_read("UTF8_STRING")


def test_html_without_text_falls_back_to_the_raw_text() -> None:
    assert html_to_text("<br>") == "<br>"


def test_md_offers_the_raw_text_and_commonmark_html() -> None:
    payload = PastePayload.build("# Title\n\n*hi* <b>", "md")
    assert dict(payload.representations) == {
        HTML_MIME: b"<h1>Title</h1>\n<p><em>hi</em> &lt;b&gt;</p>\n",
        PLAIN_MIME: b"# Title\n\n*hi* <b>",
    }
    assert markdown_to_html("a") == "<p>a</p>\n"


def test_unknown_format_is_bad_args() -> None:
    with pytest.raises(ArgumentError, match=r"^paste format must be text, md, or html\.$"):
        PastePayload.build("x", "rtf")
