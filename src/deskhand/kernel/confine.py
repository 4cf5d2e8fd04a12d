"""The js worker's OS confinement, applied by the worker to itself once it has loaded everything.

Layers, in order (each one that the platform lacks is skipped and reported, never faked):

1. hard resource limits (address space, no file writes, no core, no children, few descriptors);
2. when started as root: every group dropped and the uid/gid set to ``nobody``;
3. ``PR_SET_NO_NEW_PRIVS`` and not dumpable (Linux);
4. Landlock (Linux >= 5.13): no file-system access at all, read or write, from now on;
5. a seccomp filter (libseccomp through ``pyseccomp``, a ctypes binding that follows
   libseccomp's own Python API and so runs in any interpreter, the venv's too): only the
   system calls a running QuickJS worker makes on its frame pipes are allowed. Executing,
   sockets, ptrace, new processes and opening files kill the worker or fail with EPERM.

:func:`confine` returns what was applied; the worker reports it in its ``pong`` and
``deskhand doctor`` shows it. Like :mod:`deskhand.kernel.frames`, this module imports nothing
from deskhand: the worker loads it without the package.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import importlib
import os
import resource
import sys
from typing import Any, Final

ADDRESS_SPACE_BYTES: Final = 2 * 1024 * 1024 * 1024
MAX_DESCRIPTORS: Final = 16
#: A worker's lifetime CPU ceiling (each cell also gets its own soft limit).
CPU_HARD_S: Final = 24 * 3600
NOBODY_ID: Final = 65534

_PR_SET_DUMPABLE: Final = 4
_PR_SET_NO_NEW_PRIVS: Final = 38
_PROT_EXEC: Final = 0x4
_SONAMES: Final = {"c": "libc.so.6", "seccomp": "libseccomp.so.2"}

#: What a started worker needs: its pipes, memory, its own clocks and limits, signals, exit.
ALLOWED_SYSCALLS: Final = (
    "read",
    "write",
    "readv",
    "writev",
    "close",
    "fstat",
    "lseek",
    "brk",
    "munmap",
    "mremap",
    "madvise",
    "getrusage",
    "getrlimit",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "gettimeofday",
    "nanosleep",
    "futex",
    "getrandom",
    "getpid",
    "gettid",
    "sched_yield",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "sigaltstack",
    "restart_syscall",
    "exit",
    "exit_group",
)
#: Calls that end the worker at once: they only ever mean an escape attempt.
KILLING_SYSCALLS: Final = (
    "execve",
    "execveat",
    "socket",
    "socketpair",
    "connect",
    "bind",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "fork",
    "vfork",
    "clone",
    "clone3",
    "bpf",
    "mount",
    "unshare",
    "setns",
    "kexec_load",
    "init_module",
    "finit_module",
)


def confine() -> dict[str, object]:
    """Apply every available layer to this process; the result says which took effect."""
    nobody = _nobody()  # the user database is a file: read it first
    if not sys.platform.startswith("linux"):
        return {"rlimits": _hard_limits(), "user": _drop_root(nobody)}
    seccomp = _import_seccomp()  # it opens its libraries on disk: before Landlock
    landlock = _import("landlock")
    layers: dict[str, object] = {"rlimits": _hard_limits(), "noNewPrivs": _no_new_privs()}
    layers["landlock"] = _landlock(landlock)
    layers["user"] = _drop_root(nobody)
    layers["seccomp"] = _seccomp(seccomp)
    return layers


def _import_seccomp() -> Any:
    """pyseccomp, loaded by the stable sonames first: find_library would run ldconfig (~30 ms each)."""
    original = ctypes.util.find_library
    ctypes.util.find_library = lambda name: _SONAMES.get(name) or original(name)
    try:
        return _import("pyseccomp")
    finally:
        ctypes.util.find_library = original


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except (ImportError, OSError, RuntimeError):  # not installed, or libseccomp missing
        return None


def _hard_limits() -> bool:
    """Soft and hard limits both lowered: nothing in the worker can raise them again."""
    values = (
        (resource.RLIMIT_AS, ADDRESS_SPACE_BYTES),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NPROC, 0),
        (resource.RLIMIT_NOFILE, MAX_DESCRIPTORS),
        (resource.RLIMIT_MEMLOCK, 0),
        (resource.RLIMIT_CPU, CPU_HARD_S),
    )
    ok = True
    for limit, value in values:
        soft, hard = resource.getrlimit(limit)
        target = value if hard == resource.RLIM_INFINITY else min(value, hard)
        lowered = target if soft == resource.RLIM_INFINITY else min(soft, target)
        try:
            resource.setrlimit(limit, (lowered, target))
        except (OSError, ValueError):
            ok = False
    for name in ("RLIMIT_MSGQUEUE", "RLIMIT_LOCKS", "RLIMIT_RTPRIO"):
        extra: int | None = getattr(resource, name, None)
        if extra is not None:
            try:
                resource.setrlimit(extra, (0, 0))
            except (OSError, ValueError):
                ok = False
    return ok


def _nobody() -> tuple[int, int]:
    """``nobody``'s uid and gid (65534 on Linux, -2 on macOS), only looked up when running as root."""
    if os.geteuid() != 0:
        return (NOBODY_ID, NOBODY_ID)
    try:
        import pwd  # noqa: PLC0415 - POSIX only

        entry = pwd.getpwnam("nobody")
    except (ImportError, KeyError, OSError):
        return (NOBODY_ID, NOBODY_ID)
    return (entry.pw_uid, entry.pw_gid)


def _drop_root(nobody: tuple[int, int]) -> str:
    """``nobody`` when started as root, else the user it runs as (dropping is then not needed)."""
    if os.geteuid() != 0:
        return "unchanged"
    uid, gid = nobody
    try:
        os.setgroups([])
        os.setgid(gid)  # real, effective and saved ids all change for a privileged process
        os.setuid(uid)
    except OSError as error:
        return f"root (drop failed: {error.strerror})"
    return "nobody" if os.getuid() == uid and os.geteuid() == uid else "root (drop incomplete)"


def _no_new_privs() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)  # the process's own libc: no search on disk
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    return bool(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)


def _landlock(landlock: Any) -> int | None:
    """The Landlock ABI enforced (no file-system access at all), or None where the kernel lacks it."""
    if landlock is None:
        return None
    try:
        abi = int(landlock.landlock_abi_version())
        landlock.Ruleset().apply()  # handles every access right of this ABI and allows none
    except Exception:
        return None
    return abi


def _seccomp(seccomp: Any) -> bool:
    if seccomp is None:
        return False
    try:
        flt = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
        for name in ALLOWED_SYSCALLS:
            _rule(flt, seccomp.ALLOW, name)
        no_exec = seccomp.Arg(2, seccomp.MASKED_EQ, _PROT_EXEC, 0)
        for name in ("mmap", "mprotect"):  # memory, but never executable pages
            _rule(flt, seccomp.ALLOW, name, no_exec)
        # Limits and signals of this process only (setrlimit is prlimit64(0, ...)).
        _rule(flt, seccomp.ALLOW, "prlimit64", seccomp.Arg(0, seccomp.EQ, 0))
        _rule(flt, seccomp.ALLOW, "tgkill", seccomp.Arg(0, seccomp.EQ, os.getpid()))
        for name in KILLING_SYSCALLS:
            _rule(flt, seccomp.KILL_PROCESS, name)
        flt.load()
    except (OSError, RuntimeError, ValueError):
        return False
    return True


def _rule(flt: Any, action: int, name: str, *args: object) -> None:
    with contextlib.suppress(OSError, ValueError, RuntimeError):  # a call this architecture lacks (fork on arm64)
        flt.add_rule(action, name, *args)


def status_fields(pid: int) -> dict[str, str]:
    """``Seccomp``, ``NoNewPrivs``, ``Uid``, ``Gid`` and ``Groups`` of a process (empty where unreadable)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:  # noqa: PTH123
            text = status.read()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in {"Seccomp", "NoNewPrivs", "Uid", "Gid", "Groups"}:
            out[key] = " ".join(value.split())  # Uid and Gid: real, effective, saved, file system
    return out
