"""``core.deadline``: the call's deadline, and the stop flag that passes it at once (issue 14)."""

from __future__ import annotations

import contextvars
import threading

from deskhand.core import deadline


def test_no_deadline_outside_any_call() -> None:
    assert deadline.remaining() is None
    assert not deadline.expired()
    assert deadline.bound(2.0) == 2.0


def test_an_earlier_outer_deadline_wins_and_none_adds_no_bound() -> None:
    with deadline.within(5.0):
        with deadline.within(60.0):
            left = deadline.remaining()
            assert left is not None and left <= 5.0
        with deadline.within(None):
            left = deadline.remaining()
            assert left is not None and left <= 5.0
    assert deadline.remaining() is None


def test_a_set_stop_passes_the_deadline_at_once() -> None:
    stop = threading.Event()
    with deadline.within(60.0, stop=stop):
        assert not deadline.expired()
        assert deadline.bound(2.0) == 2.0
        stop.set()
        assert deadline.expired()
        assert deadline.remaining() == 0.0
        assert deadline.bound(2.0) == 0.0
        with deadline.within(30.0):  # an inner call keeps the outer stop
            assert deadline.expired()
    assert not deadline.expired()  # the stop belongs to that block only


def test_a_stop_without_a_time_bound() -> None:
    stop = threading.Event()
    with deadline.within(None, stop=stop):
        assert deadline.remaining() is None
        stop.set()
        assert deadline.expired()


def test_the_stop_reaches_the_worker_thread_that_runs_the_call() -> None:
    """The host runs each native call in a worker thread with the caller's context (anyio does)."""
    stop = threading.Event()
    entered, seen = threading.Event(), []
    with deadline.within(60.0, stop=stop):
        context = contextvars.copy_context()

    def call() -> None:
        entered.set()
        assert stop.wait(10)
        seen.append(deadline.expired())

    worker = threading.Thread(target=context.run, args=(call,))
    worker.start()
    assert entered.wait(10)
    stop.set()
    worker.join(10)
    assert seen == [True]
