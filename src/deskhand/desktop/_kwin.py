"""The Wayland desktop's KWin: ``kwin_wayland --virtual`` (KDE Plasma 5.27), headless, on the
desktop's own session bus.

* Trust: KWin serves its fake input and ScreenShot2 only to trusted clients; this private
  session trusts every client (``KWIN_WAYLAND_NO_PERMISSION_CHECKS=1``,
  ``KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1``). A user's Plasma session needs a ``.desktop``
  allow-list instead (``deskhand doctor`` prints it); ``DESKHAND_KWIN_TRUST=0`` starts this one
  without the trust, as a Plasma session is.
* The binary carries a file capability (``cap_sys_resource``), and a container whose bounding
  set lacks it cannot exec it (EPERM). Then KWin runs through its ELF interpreter (the dynamic
  loader), which maps the binary without its capabilities; KWin's own Qt platform plugin checks
  the executable's name, so ``KWIN_FORCE_OWN_QPA=1`` says it is KWin. No system change.
* A private configuration (``XDG_CONFIG_HOME`` of KWin alone): no screen locker (it locks within
  minutes and then a capture hangs), no animations, no focus-stealing prevention, new windows at
  the top left corner.
* It needs the session bus when it starts (``NEEDS_SESSION_BUS``): the desktop starts the bus first.

Apps run natively on Wayland (``QT_QPA_PLATFORM=wayland``, ``GDK_BACKEND=wayland``) with
``XDG_CURRENT_DESKTOP=KDE``, by which the backend knows the compositor.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import struct
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Final

from jeepney import DBusAddress, MatchRule, MessageType, new_method_call, new_method_return

from deskhand.core.errors import BackendUnavailable
from deskhand.dbusconn import open_bus
from deskhand.desktop._buses import Spawn
from deskhand.desktop._started import Started, own_env, poll_ready, private_dir, wait_for_window

PROGRAM: Final = "kwin_wayland"
FIX_KWIN: Final = "install KWin 5.27 or newer: apt-get install --no-install-recommends kwin-wayland"
NEEDS_SESSION_BUS: Final = True
SOCKET: Final = "wayland-0"
TRUST_ENV: Final = "DESKHAND_KWIN_TRUST"
_KEEP_ENV: Final = ("PATH", "LANG", "LC_ALL", "HOME")
_CAP_SYS_RESOURCE: Final = 24
_CONFIG: Final = {
    "kscreenlockerrc": "[Daemon]\nAutolock=false\nLockOnResume=false\nTimeout=0\n",
    "kwinrc": (
        "[Windows]\nPlacement=ZeroCornered\nFocusStealingPreventionLevel=0\n\n"
        "[Compositing]\nAnimationSpeed=0\n\n[Wayland]\nInputMethod=\n"
    ),
    "kdeglobals": "[KDE]\nAnimationDurationFactor=0\n",
}


def _interpreter(binary: str) -> str | None:
    """The ELF interpreter (PT_INTERP) of a 64-bit little-endian executable, or None."""
    with Path(binary).open("rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            return None
        (phoff,) = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, _flags, offset, _vaddr, _paddr, size = struct.unpack("<IIQQQQ", f.read(40))
            if p_type == 3:
                f.seek(offset)
                return f.read(size).rstrip(b"\0").decode()
    return None


def _may_exec_capabilities() -> bool:
    """Whether this process's bounding set holds cap_sys_resource (so a binary carrying it execs)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapBnd:"):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_RESOURCE & 1)
    except (OSError, ValueError, IndexError):
        pass
    return True


def kwin_argv(binary: str, size: tuple[int, int]) -> tuple[list[str], bool]:
    """KWin's command line, and whether it runs through the loader (module docstring)."""
    args = ["--virtual", "--no-lockscreen", "--no-global-shortcuts", "--no-kactivities",
            "--width", str(size[0]), "--height", str(size[1]), "--socket", SOCKET]  # fmt: skip
    has_caps = True
    try:
        os.getxattr(binary, "security.capability")
    except OSError:
        has_caps = False
    loader = _interpreter(binary) if has_caps and not _may_exec_capabilities() else None
    return ([loader, binary, *args], True) if loader else ([binary, *args], False)


#: What a client needs besides a Wayland desktop's own (``_started.Started.client_env``).
EXPORTS: Final = MappingProxyType({"XDG_CURRENT_DESKTOP": "KDE"})


def start(
    spawn: Spawn, desktop_id: str, size: tuple[int, int], base_env: dict[str, str], *, log: Path, deadline: float
) -> Started:
    """Start KWin for desktop ``desktop_id`` on the session bus in ``base_env``."""
    binary = shutil.which(PROGRAM)
    if binary is None:
        raise BackendUnavailable(f"desktop: {PROGRAM} is not installed; {FIX_KWIN}")
    bus = base_env.get("DBUS_SESSION_BUS_ADDRESS")
    if not bus:
        raise BackendUnavailable("desktop: KWin needs the desktop's session bus before it starts")
    with private_dir(f"deskhand-kwin-{desktop_id}-") as runtime_dir:
        config = runtime_dir / "config"
        config.mkdir(mode=0o700)
        for name, text in _CONFIG.items():
            (config / name).write_text(text)
        argv, via_loader = kwin_argv(binary, size)
        env = own_env(base_env, desktop_id, _KEEP_ENV)
        env.update({
            "XDG_RUNTIME_DIR": str(runtime_dir), "XDG_CONFIG_HOME": str(config),
            "DBUS_SESSION_BUS_ADDRESS": bus, "QT_QPA_PLATFORM": "wayland-org.kde.kwin.qpa",
        })  # fmt: skip
        if base_env.get(TRUST_ENV, "1") != "0":
            env.update({"KWIN_WAYLAND_NO_PERMISSION_CHECKS": "1", "KWIN_SCREENSHOT_NO_PERMISSION_CHECKS": "1"})
        if via_loader:
            env["KWIN_FORCE_OWN_QPA"] = "1"
        proc = spawn("kwin", argv, env=env)
        display = runtime_dir / SOCKET
        # ready when KWin listens on its socket and answers for its scripting on the bus
        poll_ready(
            lambda: display if display.exists() and _has_scripting(bus) else None,
            alive=lambda: proc.poll() is None, deadline=deadline, failure=f"desktop: KWin did not start ({FIX_KWIN})",
            log=log,
        )  # fmt: skip
    return Started(proc, runtime_dir, display, EXPORTS)


def _has_scripting(bus: str) -> bool:
    try:
        with open_bus(bus=bus) as conn:
            dbus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                               interface="org.freedesktop.DBus")  # fmt: skip
            reply = conn.send_and_get_reply(new_method_call(dbus, "NameHasOwner", "s", ("org.kde.KWin",)), timeout=1)
            return reply.header.message_type == MessageType.method_return and bool(reply.body[0])
    except (OSError, TimeoutError, ValueError):
        return False


#: A KWin script that answers with the pids that have a managed window.
_PIDS: Final = """(function () {
  var pids = [], all = workspace.clientList();
  for (var i = 0; i < all.length; i++) { if (all[i].managed && !all[i].deleted) pids.push(all[i].pid); }
  callDBus(%(bus)s, "/", "org.deskhand.KWinScript", "Result", %(token)s, JSON.stringify(pids));
})();
"""


def window_pids(bus: str, scratch: Path, timeout_s: float = 2.0) -> set[int]:
    """The pids with a window in KWin now (a script over the bus, as the backend's ``kwin.scripting``
    runs them: loadScript, Scripting.start, the answer by callDBus, unloadScript)."""
    token = secrets.token_hex(8)
    kwin = DBusAddress("/Scripting", bus_name="org.kde.KWin", interface="org.kde.kwin.Scripting")
    with open_bus(bus=bus) as conn:
        path = scratch / f"pids-{token}.js"
        path.write_text(_PIDS % {"bus": json.dumps(conn.unique_name), "token": json.dumps(token)})
        try:
            with conn.filter(MatchRule(type="method_call", interface="org.deskhand.KWinScript")) as answers:
                conn.send_and_get_reply(new_method_call(kwin, "loadScript", "ss", (str(path), f"deskhand-{token}")),
                                        timeout=timeout_s)  # fmt: skip
                conn.send_and_get_reply(new_method_call(kwin, "start"), timeout=timeout_s)
                while True:
                    msg = conn.recv_until_filtered(answers, timeout=timeout_s)
                    conn.send(new_method_return(msg))
                    if msg.body[0] == token:
                        return {int(p) for p in json.loads(msg.body[1])}
        finally:
            conn.send_and_get_reply(
                new_method_call(kwin, "unloadScript", "s", (f"deskhand-{token}",)), timeout=timeout_s
            )
            path.unlink(missing_ok=True)


def wait_for_view(env: Mapping[str, str], pid: int, timeout_s: float) -> int:
    """Poll KWin until ``pid`` has a window; the pid."""
    scratch = Path(env.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    bus = env["DBUS_SESSION_BUS_ADDRESS"]
    return wait_for_window(lambda: window_pids(bus, scratch), pid, timeout_s, on="KWin", step_s=0.02)
