"""Standard input and output of ``deskhand serve`` over stdio, without a thread per line.

The SDK's transport reads and writes through ``anyio.wrap_file``: every line read, and every
message written (twice: the write and the flush), is a hop to a worker thread and back. A ``js``
cell's answer and each of its progress notifications paid two such hops. These readers and
writers wait on the event loop instead (``anyio.wait_readable`` / ``wait_writable`` on a
non-blocking descriptor), and a stop cancels the wait.

Only pipes and sockets (and a terminal for input) are taken over this way (the event loop cannot
poll a regular file; a file never blocks, so the SDK's own reader and writer are fine there). While serving, fd 1
points at standard error, as the SDK arranges for its own writer: stray output of the process or
of a child misses the wire, which is written through a private duplicate. ``restore`` puts back
the descriptors and their blocking mode.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat

import anyio

__all__ = ("StdinLines", "StdoutLines", "pollable_stdin", "pollable_stdout")


class StdinLines:
    """Lines of standard input read without a thread, so that a stop cancels the wait (the SDK's
    default reader blocks a worker thread in ``read`` until a byte arrives)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buf = b""
        self._eof = False
        self._was_blocking = os.get_blocking(fd)
        os.set_blocking(fd, False)

    def restore(self) -> None:
        os.set_blocking(self._fd, self._was_blocking)

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        while b"\n" not in self._buf and not self._eof:
            await anyio.wait_readable(self._fd)
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                continue
            self._eof = not chunk
            self._buf += chunk
        if not self._buf:
            raise StopAsyncIteration
        line, newline, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8", "replace") + newline.decode()


class StdoutLines:
    """The wire's messages written on the event loop to a private duplicate of fd 1 (module docstring)."""

    def __init__(self) -> None:
        self._fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
        self._was_blocking = os.get_blocking(self._fd)
        os.set_blocking(self._fd, False)
        try:
            os.dup2(2, 1)  # stray output goes to standard error while serving
        except OSError:
            self.restore()
            raise

    def restore(self) -> None:
        """fd 1 on the wire again, in its blocking mode."""
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):
            os.set_blocking(self._fd, self._was_blocking)
            os.dup2(self._fd, 1)
        os.close(self._fd)
        self._fd = -1

    async def write(self, text: str) -> None:
        view = memoryview(text.encode("utf-8"))
        while view:
            try:
                n = os.write(self._fd, view)
            except BlockingIOError:
                await anyio.wait_writable(self._fd)
                continue
            view = view[n:]

    async def flush(self) -> None:
        """Nothing is buffered: ``write`` returns once the kernel has the bytes."""


def _pollable(fd: int, *, terminal: bool) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (terminal and stat.S_ISCHR(mode))


def pollable_stdin() -> StdinLines | None:
    """Our reader when standard input is a pipe, socket or terminal; None otherwise (the SDK's)."""
    return StdinLines(0) if _pollable(0, terminal=True) else None


def pollable_stdout() -> StdoutLines | None:
    """Our writer when standard output is a pipe or socket; None otherwise (the SDK's). Not a
    terminal: its one open file is usually standard error's too, which must stay blocking."""
    if not _pollable(1, terminal=False):
        return None
    try:
        return StdoutLines()
    except OSError:
        return None
