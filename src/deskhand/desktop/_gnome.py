"""The Wayland desktop's compositor on GNOME: a private headless GNOME Shell 43 (Mutter).

``gnome-shell --headless --wayland --no-x11 --virtual-monitor WxH`` runs as the calling user (root
too) with, in a fresh 0700 directory of its own (``/tmp/deskhand-gnome-<id>-*``):

* its runtime dir (the Wayland socket, PipeWire's socket);
* a private system bus (``dbus-daemon`` with a permissive configuration of our own, address in
  ``DBUS_SYSTEM_BUS_ADDRESS``): the shell does not start without one, and must never reach the
  host's;
* PipeWire and WirePlumber: Mutter's screen-cast streams, which deskhand's input needs
  (``backends.linux.wayland.gnome._remote``), go through them;
* its settings in a key file (``GSETTINGS_BACKEND=keyfile`` in a private ``XDG_CONFIG_HOME``) that
  enables deskhand's shell extension, installed into a private ``XDG_DATA_HOME`` from the package
  (``backends/linux/wayland/gnome/extension``). The extension hides the overview the shell starts
  in, and holds a virtual keyboard and pointer.

It joins the desktop's session bus and AT-SPI bus, which start before it (``Kind.buses_first``).
Ready when the Wayland socket exists, the extension answers and the overview is closed.
Standard library and jeepney only.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Final

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import DBusConnection
from jeepney.wrappers import DBusErrorResponse, unwrap_msg

from deskhand.core.errors import BackendUnavailable
from deskhand.dbusconn import open_bus
from deskhand.desktop._buses import Spawn
from deskhand.desktop._started import Started, own_env, poll_ready, private_dir, wait_for_window

UUID: Final = "deskhand@deskhand.dev"
EXTENSION_PACKAGE: Final = "deskhand.backends.linux.wayland.gnome"
SHELL_NAME: Final = "dev.deskhand.Shell"
FIX_GNOME: Final = (
    "install GNOME Shell 43 or newer with PipeWire: "
    "apt-get install --no-install-recommends gnome-shell pipewire wireplumber"
)
_SYSTEM_BUS_CONFIG: Final = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
"""
#: GSettings for the shell: our extension on, no welcome tour, accessibility on.
_SETTINGS: Final = f"""[org/gnome/shell]
enabled-extensions=['{UUID}']
disable-user-extensions=false
disable-extension-version-validation=true
welcome-dialog-last-shown-version='999'

[org/gnome/desktop/interface]
toolkit-accessibility=true
enable-animations=false

[org/gnome/desktop/session]
idle-delay=uint32 0

[org/gnome/desktop/screensaver]
lock-enabled=false
idle-activation-enabled=false
"""


#: What a client needs besides a Wayland desktop's own (``_started.Started.client_env``): the
#: desktop named GNOME (the backend picks its compositor so), Qt without its own title bar.
EXPORTS: Final = MappingProxyType(
    {
        "XDG_CURRENT_DESKTOP": "GNOME",
        "DESKHAND_COMPOSITOR": "gnome",
        # Mutter draws no decorations and Qt draws its own title bar above the content its
        # AT-SPI coordinates start at; without it a Qt window's frame is its content
        "QT_WAYLAND_DISABLE_WINDOWDECORATION": "1",
    }
)


def install_extension(data_home: Path) -> Path:
    """Copy deskhand's extension into ``data_home``'s ``gnome-shell/extensions``; its dir."""
    target = data_home / "gnome-shell" / "extensions" / UUID
    target.mkdir(parents=True, exist_ok=True)
    source = resources.files(EXTENSION_PACKAGE) / "extension"
    for name in ("metadata.json", "extension.js"):
        (target / name).write_bytes((source / name).read_bytes())
    return target


def _prepare(root: Path) -> dict[str, Path]:
    dirs = {name: root / name for name in ("run", "data", "config", "cache")}
    for path in dirs.values():
        path.mkdir(mode=0o700)
    install_extension(dirs["data"])
    settings = dirs["config"] / "glib-2.0" / "settings"
    settings.mkdir(parents=True)
    (settings / "keyfile").write_text(_SETTINGS)
    (root / "system-bus.conf").write_text(_SYSTEM_BUS_CONFIG.format(socket=root / "system_bus_socket"))
    return dirs


def start(
    spawn: Spawn, desktop_id: str, size: tuple[int, int], base_env: dict[str, str], *, log: Path, deadline: float
) -> Started:
    """Start the shell for desktop ``desktop_id`` on the session bus in ``base_env``
    (``DBUS_SESSION_BUS_ADDRESS``, started first), logging to ``log``."""
    session = base_env.get("DBUS_SESSION_BUS_ADDRESS")
    if not session:
        raise BackendUnavailable("desktop: GNOME Shell needs the desktop's session bus, started before it")
    with private_dir(f"deskhand-gnome-{desktop_id}-") as root:
        dirs = _prepare(root)
        env = own_env(base_env, desktop_id)
        env.update(
            {
                "XDG_RUNTIME_DIR": str(dirs["run"]),
                "XDG_DATA_HOME": str(dirs["data"]),
                "XDG_CONFIG_HOME": str(dirs["config"]),
                "XDG_CACHE_HOME": str(dirs["cache"]),
                "DBUS_SESSION_BUS_ADDRESS": session,
                "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={root / 'system_bus_socket'}",
                "XDG_SESSION_TYPE": "wayland",
                "XDG_CURRENT_DESKTOP": "GNOME",
            }
        )
        if "AT_SPI_BUS_ADDRESS" in base_env:
            env["AT_SPI_BUS_ADDRESS"] = base_env["AT_SPI_BUS_ADDRESS"]
        sysbus = spawn("gnome-sysbus", ["dbus-daemon", "--nofork", "--nosyslog",
                                        f"--config-file={root / 'system-bus.conf'}"], env=env)  # fmt: skip
        socket = root / "system_bus_socket"
        poll_ready(
            lambda: socket if socket.exists() else None, alive=lambda: sysbus.poll() is None, deadline=deadline,
            failure=f"desktop: the private system bus did not start ({FIX_GNOME})", log=log, step_s=0.01,
        )  # fmt: skip
        spawn("pipewire", ["pipewire"], env=env)
        spawn("wireplumber", ["wireplumber"], env=env)
        shell_env = {**env, "GSETTINGS_BACKEND": "keyfile"}
        argv = ["gnome-shell", "--headless", "--wayland", "--no-x11", f"--virtual-monitor={size[0]}x{size[1]}"]
        proc = spawn("gnome", argv, env=shell_env)
        display = wait_ready(dirs["run"], session, alive=lambda: proc.poll() is None, deadline=deadline, log=log)
    return Started(proc, root, display, EXPORTS)


def wait_ready(run_dir: Path, session: str, *, alive: Callable[[], bool], deadline: float, log: Path) -> Path:
    """Poll until the shell's Wayland socket exists, deskhand's extension answers on the session
    bus and the overview is closed; the socket."""
    display = run_dir / "wayland-0"
    with contextlib.ExitStack() as stack:
        conns: list[DBusConnection] = []

        def ready() -> Path | None:
            if not display.exists():
                return None
            if not conns:
                conns.append(stack.enter_context(open_bus(bus=session)))
            return display if _extension_ready(conns[0]) else None

        return poll_ready(
            ready, alive=alive, deadline=deadline, log=log,
            failure=f"desktop: GNOME Shell did not start with deskhand's extension ({FIX_GNOME})",
        )  # fmt: skip


def _extension_ready(conn: DBusConnection) -> bool:
    """Whether the extension answers and the overview is closed (it closes it at startup)."""
    shell = DBusAddress("/dev/deskhand/Shell", bus_name=SHELL_NAME, interface=SHELL_NAME)
    with contextlib.suppress(DBusErrorResponse, OSError, TimeoutError):
        visible = unwrap_msg(conn.send_and_get_reply(new_method_call(shell, "HideOverview"), timeout=1.0))
        return not visible[0]
    return False


def wait_for_view(env: Mapping[str, str], pid: int, timeout_s: float) -> int:
    """Poll the extension's window list until ``pid`` has a window; the pid."""
    shell = DBusAddress("/dev/deskhand/Shell", bus_name=SHELL_NAME, interface=SHELL_NAME)
    with open_bus(bus=env["DBUS_SESSION_BUS_ADDRESS"]) as conn:

        def shown() -> set[int]:  # shown: placed
            with contextlib.suppress(DBusErrorResponse, OSError, TimeoutError):
                (raw,) = unwrap_msg(conn.send_and_get_reply(new_method_call(shell, "Windows"), timeout=1.0))
                return {int(w["pid"]) for w in json.loads(raw) if w["showing"]}
            return set()

        return wait_for_window(shown, pid, timeout_s, on="GNOME Shell")
