"""The thread a host's native calls run in, one after another (``Lane``).

An executor call blocks (X round trips, D-Bus, waits for the app), so it runs off the event loop.
A cell makes up to 256 of them in a row; the hand-off to a thread pool (``anyio.to_thread``:
capacity limiter, cancel scopes, an idle-worker pool per loop) cost about a third of the server's
CPU per call. A lane is one thread fed from a queue: a call is put on it, and the thread hands
the result back with one ``call_soon_threadsafe``.

What stays as with ``anyio.to_thread.run_sync`` (``abandon_on_cancel=False``):

* the call runs in a copy of the caller's context (``core.deadline``'s deadline reaches it);
* a caller cancelled while its call runs still waits for the call to end (an in-flight native
  call always finishes: a press is never left without its release) and gets its result, so it is
  counted and traced; the caller's anyio cancel scope delivers the cancellation again at the next
  checkpoint (the host is only ever cancelled through anyio scopes: MCP requests, ``move_on_after``);
* :func:`check_cancelled` in the call raises once its caller was cancelled, so the gates stop a
  call before it dispatches anything.

One lane runs one call at a time, in the order they came: a host's calls are serialized by its
queue anyway, and a call whose caller gave up is still ahead of the next one. The thread ends
after ``IDLE_S`` without work and starts again with the next call.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Final, Generic, TypeVar

import anyio

T = TypeVar("T")

__all__ = ("IDLE_S", "Lane", "check_cancelled")

#: A lane's thread ends after this long without a call.
IDLE_S: Final = 10.0

_current = threading.local()


class _Call(Generic[T]):
    __slots__ = ("cancelled", "context", "fn", "future", "loop")

    def __init__(self, fn: Callable[[], T], loop: asyncio.AbstractEventLoop) -> None:
        self.fn = fn
        self.loop = loop
        self.context = contextvars.copy_context()
        self.future: asyncio.Future[T] = loop.create_future()
        #: set by the event loop once the caller was cancelled (read by :func:`check_cancelled`)
        self.cancelled = False

    def run(self) -> None:
        try:
            value = self.context.run(self.fn)
        except BaseException as exc:  # handed to the caller, like any result
            self._hand_back(exc, None)
        else:
            self._hand_back(None, value)

    def _hand_back(self, exc: BaseException | None, value: T | None) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            self.loop.call_soon_threadsafe(_settle, self.future, exc, value)


def _settle(future: asyncio.Future[T], exc: BaseException | None, value: T | None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)  # type: ignore[arg-type]  # None only with exc


def check_cancelled() -> None:
    """In a lane's call: raise the cancellation once the call's caller was cancelled (a no-op
    elsewhere)."""
    call: _Call[object] | None = getattr(_current, "call", None)
    if call is not None and call.cancelled:
        raise asyncio.CancelledError("the caller was cancelled before dispatch")


class Lane:
    """One thread that runs the calls given to :meth:`run` in order (module docstring)."""

    def __init__(self, name: str = "deskhand-native", *, idle_s: float = IDLE_S) -> None:
        self._name = name
        self._idle_s = idle_s
        self._calls: queue.SimpleQueue[_Call[object]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._running = False
        self._current: _Call[object] | None = None

    @property
    def caller_cancelled(self) -> bool:
        """Whether the call running now belongs to a caller that was cancelled."""
        current = self._current
        return current is not None and current.cancelled

    @property
    def running(self) -> bool:
        """Whether the lane's thread is alive (it ends after ``idle_s`` without a call)."""
        with self._lock:
            return self._running

    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in the lane's thread and return its result (or raise its exception)."""
        call = _Call(fn, asyncio.get_running_loop())
        self._calls.put(call)  # type: ignore[arg-type]
        with self._lock:
            if not self._running:
                self._running = True
                threading.Thread(target=self._serve, name=self._name, daemon=True).start()
        try:
            return await asyncio.shield(call.future)
        except asyncio.CancelledError:
            call.cancelled = True
            with anyio.CancelScope(shield=True):
                await asyncio.wait([call.future])  # never abandoned: the call ends first
            if isinstance(call.future.exception(), asyncio.CancelledError):
                raise  # stopped by check_cancelled: the caller's own cancellation goes on
            # Ended: its result or error, as anyio.to_thread gives them; the caller's cancel
            # scope delivers the cancellation again at its next checkpoint.
            return call.future.result()

    def _serve(self) -> None:
        while True:
            try:
                call = self._calls.get(timeout=self._idle_s)
            except queue.Empty:
                with self._lock:
                    if self._calls.empty():
                        self._running = False
                        return
                continue
            # the running call, for check_cancelled (in this thread) and caller_cancelled
            self._current = _current.call = call
            try:
                call.run()
            finally:
                self._current = _current.call = None
