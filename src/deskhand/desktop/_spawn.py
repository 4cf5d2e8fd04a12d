"""Start a desktop's processes clean, whatever state the owning process is in.

``subprocess.Popen`` passes on the owner's ignored signals and blocked signal mask (it only
restores SIGPIPE and SIGXFSZ). A process manager that ignores SIGCHLD or blocks signals (Ray's
workers, some supervisors) then hands that to Xvfb, which dies with "XKB: Failed to compile keymap"
because it cannot wait for ``xkbcomp``. :func:`spawn` uses ``posix_spawn`` with every signal reset
to its default disposition and an empty mask, in a new session, with only the descriptors asked for.

Standard library only (the watchdog starts through it too).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

_DEFAULT_SIGNALS: Final = tuple(s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP))
_ENV_BIN: Final = "/usr/bin/env"


class Child:
    """A spawned process: the part of ``subprocess.Popen``'s interface the desktop and its users need."""

    def __init__(self, args: Sequence[str], pid: int) -> None:
        self.args = list(args)
        self.pid = pid
        self.returncode: int | None = None

    def _collect(self, flags: int) -> bool:
        if self.returncode is not None:
            return True
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:
            # SIGCHLD is ignored in this process: the kernel reaped the child, its status is lost.
            self.returncode = 0
            return True
        if pid == 0:
            return False
        self.returncode = os.waitstatus_to_exitcode(status)
        return True

    def poll(self) -> int | None:
        """The exit code once the process has ended (reaping it), else None."""
        self._collect(os.WNOHANG)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end; raise ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._collect(os.WNOHANG):
            if timeout is not None and deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(0.005)  # polling the child's status with a deadline
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _inheritable_fds(keep: Sequence[int]) -> list[int]:
    """Our descriptors above stderr that a child would inherit (not close-on-exec), except ``keep``."""
    out = []
    for entry in Path("/proc/self/fd").iterdir():
        fd = int(entry.name)
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                if os.get_inheritable(fd):
                    out.append(fd)
    return out


def resolve(program: str, env: Mapping[str, str]) -> str:
    """The path of ``program`` on the child's PATH; raise FileNotFoundError when there is none."""
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None:
        raise FileNotFoundError(errno.ENOENT, f"{program}: not found", program)
    return found


def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    stdin: int | None = None,
    stdout: int | None = None,
    stderr: int | None = None,
    pass_fds: Sequence[int] = (),
    cwd: str | os.PathLike[str] | None = None,
) -> Child:
    """Start ``argv`` in a new session with default signal dispositions and an empty signal mask.

    ``stdin``/``stdout``/``stderr`` are descriptors to give the child (``None``: ``/dev/null``);
    ``pass_fds`` stay open under their own numbers; every other inheritable descriptor is closed.
    """
    program = resolve(argv[0], env)
    args = list(argv)
    if cwd is not None:  # posix_spawn has no working directory: let env(1) change it, then exec
        program, args = _ENV_BIN, [_ENV_BIN, "-C", str(Path(cwd)), "--", program, *args[1:]]
    actions: list[tuple[int, int, str, int, int] | tuple[int, int, int] | tuple[int, int]] = []
    for target, fd in ((0, stdin), (1, stdout), (2, stderr)):
        if fd is None:
            actions.append((os.POSIX_SPAWN_OPEN, target, os.devnull, os.O_RDWR, 0))
        else:
            actions.append((os.POSIX_SPAWN_DUP2, fd, target))
    actions += [(os.POSIX_SPAWN_DUP2, fd, fd) for fd in pass_fds]  # same number: clears close-on-exec
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds([0, 1, 2, *pass_fds])]
    pid = os.posix_spawn(
        program, args, dict(env), file_actions=actions, setsid=True,
        setsigdef=_DEFAULT_SIGNALS, setsigmask=(),
    )  # fmt: skip
    return Child(argv, pid)
