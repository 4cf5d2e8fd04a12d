"""Spawning and killing the ``js`` worker process (Linux and macOS).

Each worker gets a private directory used as HOME, TMPDIR, TMP, TEMP and cwd, an environment
with nothing from the host (no tokens, no DISPLAY, no D-Bus address), its own process group,
and isolated Python (``-I``). Killing sends SIGKILL to the group and removes the directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from deskhand.kernel import frames
from deskhand.kernel.confine import status_fields

WORKER_SCRIPT = Path(__file__).resolve().parent / "worker.py"
FIX_CONFINEMENT = "install libseccomp2 and the venv's pyseccomp (`make deps`); Linux 5.13+ adds Landlock"


def worker_env(directory: Path) -> dict[str, str]:
    """The worker's whole environment: its private directory and a minimal PATH and locale."""
    d = str(directory)
    return {"HOME": d, "TMPDIR": d, "TMP": d, "TEMP": d, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


@dataclass(slots=True)
class WorkerProcess:
    """A running worker: the child process, its private directory and its stderr tail."""

    process: asyncio.subprocess.Process
    directory: Path
    stderr_tail: bytearray = field(default_factory=bytearray)
    killed: bool = False

    @property
    def pid(self) -> int:
        return self.process.pid

    @classmethod
    async def spawn(cls) -> WorkerProcess:
        directory = Path(tempfile.mkdtemp(prefix="deskhand-js-")).resolve()
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-I",
                str(WORKER_SCRIPT),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=directory,
                env=worker_env(directory),
                start_new_session=True,
                limit=frames.MAX_FRAME,
            )
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        return cls(process, directory)

    def send(self, message: dict[str, object]) -> bool:
        """Queue one frame; False when the worker is gone."""
        stdin = self.process.stdin
        if self.killed or stdin is None or stdin.is_closing():
            return False
        try:
            stdin.write(frames.encode(message))
        except (ConnectionError, RuntimeError):
            return False
        return True

    async def receive(self) -> dict[str, object]:
        """The next frame. Raises EOFError at the end of the stream, FrameError on bad data."""
        stdout = self.process.stdout
        if stdout is None:
            raise EOFError
        try:
            header = await stdout.readexactly(frames.HEADER.size)
            body = await stdout.readexactly(frames.decode_length(header))
        except asyncio.IncompleteReadError as error:
            raise EOFError from error
        return frames.decode_body(body)

    async def drain_stderr(self) -> None:
        stderr = self.process.stderr
        if stderr is None:
            return
        while chunk := await stderr.read(4096):
            self.stderr_tail.extend(chunk)
            del self.stderr_tail[:-4096]

    def stderr_text(self) -> str:
        return self.stderr_tail.decode("utf-8", "replace").strip()

    def kill(self) -> None:
        """SIGKILL the worker's process group now; :meth:`reap` finishes the cleanup."""
        if self.killed:
            return
        self.killed = True
        if self.process.returncode is not None:
            return
        # os.kill, not Process.kill: Popen.send_signal polls first, and that waitpid races
        # asyncio's child watcher for a worker the group kill has just ended ("Unknown child
        # process pid"). Until the watcher reaps it, the pid cannot be reused.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGKILL)

    async def reap(self) -> None:
        """Wait for the killed process, close its pipes and remove its directory."""
        self.kill()
        if self.process.stdin is not None:
            self.process.stdin.close()
        await self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def rss_bytes(self) -> int | None:
        """Resident memory from /proc (Linux); None when it cannot be read."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return None


def probe_confinement(timeout_s: float = 15.0) -> dict[str, object]:
    """Start one worker, ask it which confinement layers it applied, read its /proc status, end it.

    For ``deskhand doctor``: ``{"layers": {...}, "status": {"Seccomp": "2", ...}}``, or
    ``{"error": text}`` when no worker could be started.
    """
    directory = Path(tempfile.mkdtemp(prefix="deskhand-js-")).resolve()
    process: subprocess.Popen[bytes] | None = None
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", str(WORKER_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=directory,
            env=worker_env(directory),
            start_new_session=True,
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(frames.encode({"type": "ping", "nonce": 1}))
        process.stdin.flush()
        ready = select.select([process.stdout], [], [], timeout_s)[0]
        if not ready:
            return {"error": f"the worker did not answer within {timeout_s:.0f} s"}
        header = process.stdout.read(frames.HEADER.size)
        if len(header) < frames.HEADER.size:
            return {"error": f"the worker exited ({process.poll()})"}
        pong = frames.decode_body(process.stdout.read(frames.decode_length(header)))
        return {"layers": pong.get("layers", {}), "status": status_fields(process.pid)}
    except (OSError, frames.FrameError) as error:
        return {"error": str(error)}
    finally:
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            for pipe in (process.stdin, process.stdout):
                if pipe is not None:
                    pipe.close()
        shutil.rmtree(directory, ignore_errors=True)


def confinement_summary() -> tuple[bool, str, dict[str, object]]:
    """``(ok, one line, data)`` for ``deskhand doctor``; on Linux ok needs seccomp and no_new_privs."""
    probe = probe_confinement()
    if "error" in probe:
        return False, f"no js worker could start: {probe['error']}", probe
    layers = probe.get("layers")
    status = probe.get("status")
    layers = layers if isinstance(layers, dict) else {}
    status = status if isinstance(status, dict) else {}
    landlock = layers.get("landlock")
    parts = [
        f"seccomp {'on' if layers.get('seccomp') else 'off'} (Seccomp: {status.get('Seccomp', '?')})",
        f"no_new_privs {'on' if layers.get('noNewPrivs') else 'off'}",
        f"landlock {'ABI ' + str(landlock) if landlock else 'off'}",
        f"hard rlimits {'on' if layers.get('rlimits') else 'partial'}",
        f"user {layers.get('user', '?')}",
    ]
    linux = sys.platform.startswith("linux")
    ok = not linux or (status.get("Seccomp") == "2" and status.get("NoNewPrivs") == "1")
    return ok, ", ".join(parts), probe
