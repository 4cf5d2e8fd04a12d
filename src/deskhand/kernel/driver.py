"""One worker process as the ``js`` session drives it: started with the bootstrap, read until it
ends (each message passed on), and checked every ``health_check_s`` (its memory while it runs a
cell, a ping while it is idle).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from dataclasses import dataclass, field

from deskhand.kernel.frames import FrameError
from deskhand.kernel.process import WorkerProcess
from deskhand.kernel.texts import INVALID_PROTOCOL, MEMORY_LIMIT, UNRESPONSIVE


@dataclass(frozen=True, slots=True)
class KernelLimits:
    #: The RSS soft cap of a worker, checked every ``health_check_s``.
    max_rss_bytes: int = 768 * 1024 * 1024
    health_check_s: float = 1.0
    #: An idle worker that does not answer a ping within this time is discarded.
    pong_timeout_s: float = 2.0


@dataclass(eq=False, slots=True)
class Kernel:
    """A started worker: ``ready`` once it said so, its reader, stderr and health tasks, and the
    ping it has not answered yet (nonce, when sent)."""

    worker: WorkerProcess
    ready: asyncio.Future[None]
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    ping: tuple[int, float] | None = None

    @classmethod
    async def launch(
        cls,
        bootstrap: str,
        target: str,
        limits: KernelLimits,
        *,
        receive: Callable[[Kernel, dict[str, object]], None],
        failed: Callable[[Kernel, str], None],
        busy: Callable[[], bool],
    ) -> Kernel:
        """Start a worker. ``receive`` gets every message but ``ready`` and ``pong``; ``failed``
        the text the worker failed with (it stopped, broke the protocol or a limit); ``busy``
        says whether a cell is running (then an idle worker's ping is not expected)."""
        worker = await WorkerProcess.spawn()
        loop = asyncio.get_running_loop()
        kernel = cls(worker, loop.create_future())
        kernel.ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        kernel.tasks = [
            loop.create_task(kernel._read(receive, failed)),
            loop.create_task(worker.drain_stderr()),
            loop.create_task(kernel._health(limits, failed, busy)),
        ]
        worker.send({"type": "init", "bootstrap": bootstrap, "target": target})
        return kernel

    async def _read(
        self, receive: Callable[[Kernel, dict[str, object]], None], failed: Callable[[Kernel, str], None]
    ) -> None:
        while True:
            try:
                message = await self.worker.receive()
            except FrameError:
                failed(self, INVALID_PROTOCOL)
                return
            except (EOFError, ConnectionError):
                await asyncio.sleep(0.05)  # let the stderr tail arrive
                how = _exit_text(self.worker.process.returncode)
                failed(self, f"Computer Use JavaScript kernel exited ({how}). {self.worker.stderr_text()}")
                return
            kind = message["type"]
            if kind == "ready":
                if not self.ready.done():
                    self.ready.set_result(None)
            elif kind == "pong":
                if self.ping is not None and message.get("nonce") == self.ping[0]:
                    self.ping = None
            else:
                receive(self, message)

    async def _health(
        self, limits: KernelLimits, failed: Callable[[Kernel, str], None], busy: Callable[[], bool]
    ) -> None:
        loop = asyncio.get_running_loop()
        nonce = 0
        while True:
            await asyncio.sleep(limits.health_check_s)
            rss = self.worker.rss_bytes()
            if rss is not None and rss > limits.max_rss_bytes:
                failed(self, MEMORY_LIMIT)
                return
            if busy() or not self.ready.done():
                self.ping = None
            elif self.ping is not None:
                if loop.time() - self.ping[1] > limits.pong_timeout_s:
                    failed(self, UNRESPONSIVE)
                    return
            else:
                nonce += 1
                self.ping = (nonce, loop.time())
                self.worker.send({"type": "ping", "nonce": nonce})


def _exit_text(code: int | None) -> str:
    """A worker's end in words: ``killed by SIGKILL`` for a signal, else its exit code."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
