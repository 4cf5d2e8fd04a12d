"""A desktop's buses: the session D-Bus and the AT-SPI bus with its registry, the same on X11 and Wayland.

Each function starts its processes through the desktop's ``spawn`` (which logs them to
``<runtime_dir>/<role>.log`` and records them for teardown) and returns the bus address.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, Protocol

from deskhand.core.errors import BackendUnavailable
from deskhand.desktop._spawn import Child
from deskhand.desktop._startup import read_line
from deskhand.desktop._startup import tail as log_tail
from deskhand.desktop.atspi import A11yBus, a11y_address_from_session

AT_SPI_LAUNCHER: Final = "/usr/libexec/at-spi-bus-launcher"
AT_SPI_REGISTRYD: Final = "/usr/libexec/at-spi2-registryd"


class Spawn(Protocol):
    def __call__(
        self, role: str, argv: Sequence[str], *, pass_fds: Sequence[int] = (), env: Mapping[str, str] | None = None
    ) -> Child: ...


def start_dbus(spawn: Spawn, runtime_dir: Path, deadline: float) -> str:
    """Start a session bus on ``<runtime_dir>/bus``; its address."""
    r, w = os.pipe()
    argv = ["dbus-daemon", "--session", "--nofork", "--nosyslog",
            f"--address=unix:path={runtime_dir / 'bus'}", f"--print-address={w}"]  # fmt: skip
    try:
        spawn("dbus", argv, pass_fds=(w,))
    finally:
        os.close(w)
    try:
        address = read_line(r, deadline).decode().strip()
    finally:
        os.close(r)
    if not address:
        tail = log_tail(runtime_dir / "dbus.log")
        raise BackendUnavailable(f"desktop: dbus-daemon did not start (apt-get install dbus){tail}")
    return address


def start_atspi(spawn: Spawn, base_env: Mapping[str, str], runtime_dir: Path, session: str, deadline: float) -> str:
    """Start the AT-SPI bus (accessibility enabled) and its registry on ``session``; the bus address."""
    # The launcher keeps IsEnabled in GSettings (toolkit-accessibility): give it a key file that
    # says true, so it starts enabled and no dconf service is started to store the value.
    settings = runtime_dir / "a11y-settings"
    (settings / "glib-2.0" / "settings").mkdir(mode=0o700, parents=True)
    (settings / "glib-2.0" / "settings" / "keyfile").write_text(
        "[org/gnome/desktop/interface]\ntoolkit-accessibility=true\n"
    )
    env = {**base_env, "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": str(settings)}
    launcher = spawn("atspi-launcher", [AT_SPI_LAUNCHER, "--launch-immediately"], env=env)
    try:
        address = a11y_address_from_session(session, timeout_s=max(0.1, deadline - time.monotonic()), enable=True)
    except BackendUnavailable as exc:
        launcher.poll()
        raise BackendUnavailable(f"desktop: {exc.message}{log_tail(runtime_dir / 'atspi-launcher.log')}") from exc
    spawn("atspi-registryd", [AT_SPI_REGISTRYD], env={**base_env, "AT_SPI_BUS_ADDRESS": address})
    with A11yBus(address) as bus:
        if not bus.wait_registry(deadline):
            tail = log_tail(runtime_dir / "atspi-registryd.log")
            raise BackendUnavailable(f"desktop: the AT-SPI registry did not start (apt-get install at-spi2-core){tail}")
    return address
