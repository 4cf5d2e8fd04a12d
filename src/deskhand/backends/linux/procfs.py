"""Process identity on Linux: pid, app id, ``/proc/PID/exe`` and the exact start time.

The start time is the boot time (``btime`` in ``/proc/stat``) plus field 22 of
``/proc/PID/stat`` (clock ticks since boot) divided by ``SC_CLK_TCK``: the same float for the
same process every time it is read, and a different one for a reused pid. An identity is
compared field by field with no tolerance; any difference is ``stale_process``.

The app id is the ``.desktop`` id when the executable belongs to an installed entry, else, for
an interpreter (python, perl, node, ...), the script's file name, else the executable's name.

The toolkit (``toolkit``) is read from the libraries mapped into the process
(``/proc/PID/maps``), with the browsers and LibreOffice told by their executables first (Chromium
loads GTK for its dialogs): it decides whether an app missing from the accessibility bus has
accessibility turned off (GTK, Qt, ...) or has none at all (Tk, SDL, Xt/Xaw, plain Xlib).
"""

from __future__ import annotations

import os
import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Final

from deskhand.backends.base import ProcessIdentity
from deskhand.core.errors import NativeError

_INTERPRETER: Final = re.compile(r"^(python|perl|ruby|node|nodejs|java|bash|sh|dash|lua|php|gjs|wish|tclsh)[\d.]*$")


@cache
def boot_time() -> int:
    """``btime`` from ``/proc/stat``: seconds since the epoch at boot (constant per boot)."""
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("btime "):
            return int(line.split()[1])
    raise NativeError("feature_unavailable", "/proc/stat has no btime line; /proc is required on Linux.")


@cache
def _clock_ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def _read(path: str) -> bytes:
    """A small /proc file's bytes with plain system calls: the gate reads these before every
    burst, and pathlib's objects and text layer cost more than the read itself."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def start_time(pid: int) -> float | None:
    """The process start time in seconds since the epoch, or None if the process is gone."""
    try:
        stat = _read(f"/proc/{pid}/stat").decode(errors="replace")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rindex(")") + 2 :].split()
    return boot_time() + int(fields[19]) / _clock_ticks()


def parent_pid(pid: int) -> int | None:
    """The process's parent pid (field 4 of ``/proc/PID/stat``), or None if the process is gone."""
    try:
        stat = _read(f"/proc/{pid}/stat").decode(errors="replace")
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def descends_from(pid: int, ancestor: int, *, hops: int = 8) -> bool:
    """Whether ``ancestor`` started ``pid``, or one of its parents, within ``hops`` generations
    (GIMP's plug-ins are its children)."""
    at: int | None = pid
    for _ in range(hops):
        at = parent_pid(at) if at is not None else None
        if at is None or at <= 1:
            return False
        if at == ancestor:
            return True
    return False


def executable(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")  # noqa: PTH115 - read before every burst, as _read
    except OSError:
        return None


def cmdline(pid: int) -> list[str]:
    try:
        raw = _read(f"/proc/{pid}/cmdline")
    except OSError:
        return []
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


#: (library file-name prefix in /proc/PID/maps, toolkit), the first hit wins.
_LIBRARIES: Final = (
    ("libxul.so", "gecko"),
    ("libawt_xawt.so", "java"),  # before GTK: Swing's GTK look loads libgtk-3
    ("libgtk-4.so", "gtk4"),
    ("libgtk-3.so", "gtk3"),
    ("libgtk-x11-2.0.so", "gtk2"),
    ("libQt6Gui.so", "qt6"),
    ("libQt5Gui.so", "qt5"),
    ("libtk8", "tk"),
    ("libSDL2", "sdl2"),
    ("libSDL-1.2.so", "sdl1"),
    ("libXaw", "xaw"),
    ("libXt.so", "xt"),
)
_EXECUTABLES: Final = {"chromium": "chromium", "chrome": "chromium", "soffice.bin": "libreoffice"}


def toolkit(pid: int) -> str | None:
    """The process's UI toolkit (``notices.A11Y_TOOLKITS`` names those with accessibility), or
    None when no known one is mapped (plain Xlib, or /proc hides the process)."""
    exe = executable(pid)
    if exe is not None and (known := _EXECUTABLES.get(Path(exe.removesuffix(" (deleted)")).name)):
        return known
    try:
        with Path(f"/proc/{pid}/maps").open(encoding="utf-8", errors="replace") as maps:
            names = {line.rsplit("/", 1)[-1].rstrip() for line in maps if "/" in line}
    except OSError:
        return None
    for prefix, name in _LIBRARIES:
        if any(n.startswith(prefix) for n in names):
            return name
    return None


@lru_cache(maxsize=256)
def toolkit_of(identity: ProcessIdentity) -> str | None:
    """``toolkit`` of the process, read once per identity (pid and start time: a reused pid is
    another identity, so the answer never goes stale)."""
    return toolkit(identity.pid)


def maps_library(pid: int, prefix: str | tuple[str, ...]) -> bool:
    """Whether the process has a library (or data file) whose file name starts with ``prefix``
    (or one of them) mapped now (True when /proc hides it: the caller then assumes it may be there)."""
    try:
        with Path(f"/proc/{pid}/maps").open(encoding="utf-8", errors="replace") as maps:
            return any(line.rsplit("/", 1)[-1].startswith(prefix) for line in maps if "/" in line)
    except OSError:
        return True


def program_id(pid: int, exe: str, desktop_ids: dict[str, str]) -> str:
    """The app id: a ``.desktop`` id for the executable, a script name for an interpreter,
    else the executable's base name.

    Args:
        desktop_ids: real executable path, or bare name a wrapper script runs → app id
            (``inventory.program_ids``).
    """
    exe = exe.removesuffix(" (deleted)")
    if exe in desktop_ids:
        return desktop_ids[exe]
    base = exe.rpartition("/")[2]  # readlink gives an absolute path: its last component
    if _INTERPRETER.match(base):
        args = cmdline(pid)[1:]
        if base.startswith("java"):
            main, jars = java_program(args)
            return next((desktop_ids[k] for k in (main, *jars) if k in desktop_ids), main or base)
        script = _script_name(args)
        if script:
            return script
        return base
    return desktop_ids.get(base, base)


#: ``java`` launcher options whose value is the next argument.
_JAVA_VALUED: Final = frozenset(
    {"-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path", "--add-modules",
     "--limit-modules", "--add-reads", "--add-exports", "--add-opens", "--patch-module", "--source"}
)  # fmt: skip


def java_names(pid: int, exe: str) -> tuple[str, ...]:
    """The names of the program a ``java`` process runs: its main class and that class's own name
    (``org.gjt.sp.jedit.jEdit``, ``jEdit``) or its jar; () for other processes."""
    if not Path(exe.removesuffix(" (deleted)")).name.startswith("java"):
        return ()
    main = java_program(cmdline(pid)[1:])[0]
    if not main:
        return ()
    short = main if main.endswith(".jar") else main.rpartition(".")[2]
    return tuple(dict.fromkeys((main, short)))


def java_program(args: list[str]) -> tuple[str, tuple[str, ...]]:
    """A ``java`` command's program: its main class (``org.gjt.sp.jedit.jEdit``), the jar of
    ``-jar`` or the class of ``-m module/class``, with the jars on its class path (file names),
    ("", ()) when there is none. The class path alone never names the app: Debian's wrappers put
    ``java-atk-wrapper.jar`` last on it."""
    jars: list[str] = []
    it = iter(args)
    for arg in it:
        if arg in ("-jar",):
            jar = Path(next(it, "")).name
            return jar, (jar,)
        if arg in ("-m", "--module"):
            return next(it, "").rpartition("/")[2], tuple(jars)
        if arg in _JAVA_VALUED:
            value = next(it, "")
            if arg in ("-cp", "-classpath", "--class-path"):
                jars += [Path(p).name for p in value.split(":") if p.endswith(".jar")]
            continue
        if arg.startswith("-"):
            continue
        return arg, tuple(jars)
    return "", tuple(jars)


def _script_name(args: list[str]) -> str | None:
    it = iter(args)
    for arg in it:
        if arg in ("-m",):
            return next(it, None)
        if arg in ("-c", "-e"):
            return None
        if arg.startswith("-"):
            continue
        return Path(arg).name
    return None


#: What ``/proc/PID/fd/N`` links to when the process holds a pseudo-terminal master.
PTY_MASTERS: Final = frozenset({"/dev/ptmx", "/dev/pts/ptmx"})


def holds_pty_master(pid: int) -> bool:
    """Whether ``pid`` holds a pseudo-terminal master open: it is a terminal emulator (or a daemon
    serving terminal windows), whatever its executable is called. False when /proc hides it.

    Plain ``os`` calls on string paths: every action's resolve asks this, and a browser holds
    hundreds of descriptors (``pathlib`` objects cost more than the system calls)."""
    where = f"/proc/{pid}/fd/"
    try:
        fds = os.listdir(where)  # noqa: PTH208 - the hot path (docstring)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(where + fd) in PTY_MASTERS:  # noqa: PTH115 - the hot path (docstring)
                return True
        except OSError:
            continue
    return False


def read_identity(pid: int, desktop_ids: dict[str, str]) -> ProcessIdentity | None:
    """The identity of a live process, or None when it is gone or /proc hides it."""
    exe = executable(pid)
    started = start_time(pid)
    if exe is None or started is None:
        return None
    return ProcessIdentity(pid=pid, app_id=program_id(pid, exe, desktop_ids), executable=exe, start_time=started)


def verify(expected: ProcessIdentity, desktop_ids: dict[str, str]) -> ProcessIdentity:
    """Re-read the identity of ``expected.pid`` and compare it exactly.

    Raises:
        NativeError: ``process_gone`` when the pid no longer exists, ``stale_process`` when any
            field differs (the pid was reused or the app restarted).
    """
    current = read_identity(expected.pid, desktop_ids)
    if current is None:
        raise NativeError("process_gone", f"The target application (pid {expected.pid}) is no longer running.")
    if current != expected:
        raise NativeError("stale_process", "The target application changed process identity before the action.")
    return current
