"""The ``js`` kernel's worker process: one QuickJS context per session, driven over framed JSON.

Run as ``python -I worker.py`` by :mod:`deskhand.kernel.process` in a private, disposable
directory with a scrubbed environment. It speaks the frames of :mod:`deskhand.kernel.frames`
on stdin/stdout (stdout is kept for the protocol only; fd 1 is pointed at stderr), compiles
each cell with :mod:`deskhand.kernel.compiler`, and drains the JS outbox of ``js/runtime.js``:
no Python callable is ever registered in the user context. It never reads the user's files,
never imports the rest of deskhand, and confines itself (:mod:`deskhand.kernel.confine`) once loaded.
"""

from __future__ import annotations

import json
import os
import re
import resource
import sys
import types
from pathlib import Path

_KERNEL_DIR = Path(__file__).resolve().parent


def _stub_packages() -> None:
    # Import the two sibling modules without running deskhand's package __init__ files.
    for name, path in (("deskhand", _KERNEL_DIR.parent), ("deskhand.kernel", _KERNEL_DIR)):
        if name not in sys.modules:
            module = types.ModuleType(name)
            module.__path__ = [str(path)]
            sys.modules[name] = module


_stub_packages()

import quickjs  # noqa: E402

from deskhand.kernel import frames  # noqa: E402
from deskhand.kernel.compiler import CompileError, compile_cell  # noqa: E402
from deskhand.kernel.confine import confine  # noqa: E402

USER_MEMORY_BYTES = 256 * 1024 * 1024
STACK_BYTES = 1024 * 1024
CPU_GRACE_S = 5
#: A failed cell that leaves the heap fuller than this fraction of its budget ran out of memory.
OOM_FRACTION = 0.75
NOT_INITIALIZED = "The Computer Use JavaScript worker is not initialized."
ALREADY_RUNNING = "A JavaScript cell is already running"
#: The built-ins the facade (js/cua.js) uses, handed to it pristine (see runtime.js bootstrap).
FACADE_GLOBALS = "JSON, Object, Array, Number, String, Map, Error, TypeError, Uint8Array, isFinite, atob, btoa"
_INPUT_LOCATION = re.compile(r"<input>:(\d+):(\d+)")


class _ExitRequestedError(Exception):
    """The parent closed the pipe: leave quietly."""


class Worker:
    def __init__(self, out_fd: int) -> None:
        self.out_fd = out_fd
        self.ctx = quickjs.Context()
        self.ctx.set_memory_limit(USER_MEMORY_BYTES)
        self.ctx.set_max_stack_size(STACK_BYTES)
        self.api = self.ctx.eval((_KERNEL_DIR / "js" / "runtime.js").read_text("utf-8"))
        self.harden = self.ctx.eval((_KERNEL_DIR / "js" / "harden.js").read_text("utf-8"))
        self.initialized = False
        self.active: int | None = None
        #: The confinement layers in force (:func:`deskhand.kernel.confine.confine`).
        self.layers: dict[str, object] = {}

    # -- pipes -------------------------------------------------------------------------
    def send(self, message: dict[str, object]) -> None:
        self.write(frames.encode(message))

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.out_fd, view) :]
        except BrokenPipeError as error:
            raise _ExitRequestedError from error

    def read(self) -> dict[str, object]:
        length = frames.decode_length(_read_exact(0, frames.HEADER.size))
        return frames.decode_body(_read_exact(0, length))

    # -- messages ----------------------------------------------------------------------
    def serve(self) -> None:
        while True:
            self.handle(self.read())

    def handle(self, message: dict[str, object]) -> None:
        kind = message["type"]
        if kind == "ping":
            self.send({"type": "pong", "nonce": message.get("nonce"), "layers": self.layers})
        elif kind == "init":
            self.init(message)
        elif kind == "run":
            cell_id = message.get("cellId")
            if not self.initialized:
                self.send({"type": "done", "cellId": cell_id, "error": NOT_INITIALIZED})
            elif self.active is not None:
                self.send({"type": "done", "cellId": cell_id, "error": ALREADY_RUNNING})
            else:
                self.run(message)
        # responses for a cell that is not waiting, and unknown types, are ignored

    def init(self, message: dict[str, object]) -> None:
        if self.initialized:
            raise RuntimeError("the worker was initialized twice")
        source = str(message.get("bootstrap") or "")
        wrapper = (
            f'(function (__cuInvoke, __cuEmit, __cuTrack, __cuTarget, {FACADE_GLOBALS}) {{"use strict";\n{source}\n}})'
        )
        self.api("bootstrap", self.ctx.eval(wrapper), str(message.get("target") or "linux"))
        self.api("lock")
        self.harden()  # every built-in frozen before any cell runs
        self.initialized = True
        self.send({"type": "ready"})

    def run(self, message: dict[str, object]) -> None:
        cell_id = message.get("cellId")
        if not isinstance(cell_id, int):
            return
        timeout_ms = message.get("timeoutMs")
        _limit_cpu(timeout_ms if isinstance(timeout_ms, int) else 60000)
        try:
            function = self.ctx.eval(compile_cell(str(message.get("code", ""))).source)
        except CompileError as error:
            self.send({"type": "done", "cellId": cell_id, "error": self.syntax_text(str(message.get("code")), error)})
            return
        except quickjs.JSException as error:
            self.send({"type": "done", "cellId": cell_id, "error": _first_line(error)})
            return
        self.active = cell_id
        try:
            self.api("start", cell_id, function)
            self.pump(cell_id)
        except quickjs.JSException:  # the runtime itself could not go on: it ran out of memory
            self.send({"type": "done", "cellId": cell_id, "error": "out of memory", "outOfMemory": True})
        finally:
            self.active = None

    def syntax_text(self, code: str, error: CompileError) -> str:
        """QuickJS's own message for a syntax error when it agrees; tree-sitter's otherwise."""
        text = str(error)
        if not text.startswith("SyntaxError"):
            return text
        try:
            self.ctx.eval("(async () => {" + code + "\n})")
        except quickjs.JSException as js_error:
            return _first_line(js_error)
        return text

    def pump(self, cell_id: int) -> None:
        settled_turn = False
        while True:
            ran = self.run_jobs()
            state = json.loads(self.api("drain"))
            for item in state["messages"]:
                self.send(item)
            if state["done"] and state["pending"] == 0:
                if settled_turn and not ran and not state["messages"]:
                    break
                settled_turn = True  # one more full turn: the host rejection checkpoint
                continue
            if not ran and not state["messages"]:
                self.wait(cell_id)
        finished = self.api("finish")
        error = json.loads(finished) if finished else ""
        if error and self.out_of_memory():
            self.send({"type": "done", "cellId": cell_id, "error": error, "outOfMemory": True})
            return
        self.send({"type": "done", "cellId": cell_id, **({"error": error} if error else {})})

    def out_of_memory(self) -> bool:
        """Whether the heap is still nearly full after a collection (a failed cell's cause)."""
        self.ctx.gc()
        used = self.ctx.memory().get("malloc_size", 0)
        return isinstance(used, int) and used > USER_MEMORY_BYTES * OOM_FRACTION

    def run_jobs(self) -> bool:
        ran = False
        while True:
            self.api("job")
            try:
                if not self.ctx.execute_pending_job():
                    return ran
            except quickjs.JSException:
                pass  # a job's own failure is already recorded by the promise it belongs to
            ran = True

    def wait(self, cell_id: int) -> None:
        message = self.read()
        if message["type"] == "response":
            if message.get("cellId") == cell_id and isinstance(message.get("requestId"), int):
                reply = {k: message[k] for k in ("result", "error") if k in message}
                self.api("settle", message["requestId"], json.dumps(reply))
            return
        self.handle(message)


def _first_line(error: BaseException) -> str:
    text = str(error)
    first = text.split("\n", 1)[0]
    match = _INPUT_LOCATION.search(text)
    if first.startswith("SyntaxError") and match:
        return f"{first} (line {match.group(1)})"
    return first


def _read_exact(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = os.read(fd, remaining)
        if not chunk:
            raise _ExitRequestedError
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _limit_cpu(timeout_ms: int) -> None:
    """Let the CPU clock end a runaway cell even if the parent's deadline were lost."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(usage.ru_utime + usage.ru_stime) + timeout_ms // 1000 + CPU_GRACE_S
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def main() -> int:
    out_fd = os.dup(1)
    os.dup2(2, 1)  # stray prints go to stderr, never into the protocol
    try:
        worker = Worker(out_fd)
        compile_cell("")  # load the grammar now: a spare worker's first cell starts at once
        worker.layers = confine()  # from here on: no files, no sockets, no exec, no children
        worker.serve()
    except _ExitRequestedError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
