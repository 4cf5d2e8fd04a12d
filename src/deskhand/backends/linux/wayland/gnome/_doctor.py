"""``deskhand doctor`` on a GNOME session: deskhand's shell extension, the remote-desktop input.

What a user on their own GNOME session does once, which deskhand does not do for them:

* **install deskhand's extension**: copy the package's ``backends/linux/wayland/gnome/extension``
  folder to ``~/.local/share/gnome-shell/extensions/deskhand@deskhand.dev``, run
  ``gnome-extensions enable deskhand@deskhand.dev``, then log out and in (GNOME Shell on Wayland
  finds a new extension only when it starts). It exports the window list with pids, activation,
  placement and per-window capture on the session bus: GNOME offers none of them to other clients.
* **choose the Wayland backend**: a GNOME session runs XWayland, and its ``DISPLAY`` alone picks
  the X11 backend, which sees only XWayland apps: run deskhand with ``DESKHAND_COMPOSITOR=gnome``.
* **input**: deskhand calls ``org.gnome.Mutter.RemoteDesktop`` on the session bus, which Mutter
  serves to the user's own unsandboxed processes without a dialog; it needs PipeWire running (the
  default on GNOME). From a sandbox (Flatpak, Snap) the same API is reached through the
  RemoteDesktop portal (xdg-desktop-portal-gnome), which asks the user once to allow remote
  control: accept it.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Final

from deskhand.backends.linux.wayland.gnome._bus import Bus
from deskhand.backends.linux.wayland.gnome._remote import RemoteInput
from deskhand.backends.linux.wayland.gnome._shell import UUID, ShellWindows
from deskhand.core.errors import BackendUnavailable, DeskhandError
from deskhand.desktop.doctor import Check

__all__ = ()

FIX_REMOTE: Final = (
    "GNOME's remote desktop API needs PipeWire and WirePlumber running in the session "
    "(apt-get install pipewire wireplumber; they run by default on GNOME); from a sandbox, accept the "
    "RemoteDesktop portal's request to allow remote control once"
)


def fix_extension() -> str:
    source = resources.files("deskhand.backends.linux.wayland.gnome") / "extension"
    return (
        f"install deskhand's GNOME Shell extension once: cp -r {source} ~/.local/share/gnome-shell/extensions/{UUID} "
        f"&& gnome-extensions enable {UUID}, then log out and in, and run deskhand with DESKHAND_COMPOSITOR=gnome "
        "(`deskhand desktop start --compositor gnome` does all this for its own private shell)"
    )


def gnome_checks(env: Mapping[str, str]) -> list[Check]:
    """The extension and the remote-desktop input, on the session bus of ``env``."""
    address = env.get("DBUS_SESSION_BUS_ADDRESS")
    if not address:
        missing = "no session bus (DBUS_SESSION_BUS_ADDRESS)"
        fix = "run from a shell of the GNOME session"
        return [Check("gnome_extension", False, missing, fix), Check("gnome_input", False, missing, fix)]
    try:
        bus = Bus(address, timeout_s=2.0)
    except BackendUnavailable as exc:
        return [Check("gnome_extension", False, exc.message, "run from a shell of the GNOME session")]
    try:
        return [_extension(bus), _input(bus)]
    finally:
        bus.close()


def _extension(bus: Bus) -> Check:
    shell = ShellWindows(bus)
    try:
        version = shell.version()
        windows = shell.windows()
    except DeskhandError as exc:
        return Check("gnome_extension", False, exc.message, fix_extension())
    detail = f"{UUID} v{version}, {len(windows)} window(s)"
    found = [{"pid": w.pid, "app_id": w.app_id} for w in windows]
    return Check("gnome_extension", True, detail, data={"windows": found})


def _input(bus: Bus) -> Check:
    try:
        remote = RemoteInput(bus, timeout_s=2.0)
    except DeskhandError as exc:
        return Check("gnome_input", False, exc.message, FIX_REMOTE)
    try:
        monitors = ", ".join(f"{s.width}x{s.height}+{s.x}+{s.y}" for s in remote.streams)
    finally:
        remote.close()
    return Check("gnome_input", True, f"org.gnome.Mutter.RemoteDesktop with a stream per monitor ({monitors})")
