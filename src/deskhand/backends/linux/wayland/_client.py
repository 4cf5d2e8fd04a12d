"""A client of a wlroots compositor: the connection, its globals, the seat and the outputs.

:class:`Client` binds what deskhand needs once (seat, shm, outputs and the wlroots managers) and
says which are missing with a fix. Globals are bound at the highest version both sides know.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from deskhand.backends.linux.wayland._wire import Connection, Proxy, WaylandError

__all__ = ()

#: The globals deskhand binds, with the highest version it speaks.
VERSIONS: Final[Mapping[str, int]] = {
    "wl_seat": 5,
    "wl_output": 3,
    "wl_shm": 1,
    "zwlr_virtual_pointer_manager_v1": 1,
    "zwp_virtual_keyboard_manager_v1": 1,
    "zwlr_screencopy_manager_v1": 2,
    "zwlr_data_control_manager_v1": 2,
    "org_kde_kwin_fake_input": 4,
}
FIX_PROTOCOL: Final = (
    "the compositor does not offer {name}: use a compositor deskhand drives (sway and the wlroots ones, KWin), "
    "or the desktop `deskhand desktop start --wayland` starts (`deskhand doctor` says what is missing)"
)


@dataclass(slots=True)
class Output:
    """One output: its proxy, name and logical position and size."""

    proxy: Proxy
    name: str = ""
    x: int = 0
    y: int = 0
    width: int = 0
    height: int = 0


def socket_path(env: Mapping[str, str]) -> str:
    """Where ``WAYLAND_DISPLAY`` points: an absolute path, or a name in ``XDG_RUNTIME_DIR``."""
    name = env.get("WAYLAND_DISPLAY")
    if not name:
        raise WaylandError(
            "wayland: WAYLAND_DISPLAY is not set (start a session with `deskhand desktop start --wayland`)"
        )
    if name.startswith("/"):
        return name
    runtime = env.get("XDG_RUNTIME_DIR")
    if not runtime:
        raise WaylandError("wayland: XDG_RUNTIME_DIR is not set, so WAYLAND_DISPLAY names no socket")
    return str(Path(runtime) / name)


class Client:
    """One connection to the compositor with its globals bound. Close it when done."""

    def __init__(self, env: Mapping[str, str] | None = None, timeout_s: float = 2.0) -> None:
        self.conn = Connection(socket_path(os.environ if env is None else env))
        self.globals: dict[str, Proxy] = {}
        self.outputs: list[Output] = []
        self.capabilities = 0
        self.timeout_s = timeout_s
        try:
            self._bind_all()
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _bind_all(self) -> None:
        registry = self.conn.display.create("get_registry")
        offered: list[tuple[int, str, int]] = []
        registry.on("global", lambda name, iface, version: offered.append((int(name), str(iface), int(version))))
        registry.on("global_remove", lambda _name: None)
        self.conn.roundtrip(self.timeout_s)
        for name, iface, version in offered:
            wanted = VERSIONS.get(iface)
            if wanted is None:
                continue
            proxy = registry.create("bind", name, iface, min(wanted, version), new=(iface, min(wanted, version)))
            if iface == "wl_output":
                self._watch_output(proxy)
            elif iface not in self.globals:
                self.globals[iface] = proxy
        seat = self.globals.get("wl_seat")
        if seat is not None:
            seat.on("capabilities", self._on_capabilities)
            seat.on("name", lambda _name: None)
        self.conn.roundtrip(self.timeout_s)  # the outputs' geometry and the seat's capabilities

    def _watch_output(self, proxy: Proxy) -> None:
        out = Output(proxy)
        self.outputs.append(out)

        def geometry(x: int, y: int, *_rest: object) -> None:
            out.x, out.y = int(x), int(y)

        def mode(flags: int, width: int, height: int, _refresh: int) -> None:
            if int(flags) & 1:  # the current mode
                out.width, out.height = int(width), int(height)

        def name(value: str) -> None:
            out.name = value

        proxy.on("geometry", geometry)
        proxy.on("mode", mode)
        proxy.on("done", lambda: None)
        proxy.on("scale", lambda _s: None)
        if proxy.version >= 4:
            proxy.on("name", name)
            proxy.on("description", lambda _d: None)

    def _on_capabilities(self, caps: int) -> None:
        self.capabilities = int(caps)

    def need(self, iface: str) -> Proxy:
        """The bound global ``iface``; raise WaylandError with a fix when the compositor lacks it."""
        proxy = self.globals.get(iface)
        if proxy is None:
            raise WaylandError(f"wayland: {FIX_PROTOCOL.format(name=iface)}")
        return proxy

    def bounds(self) -> tuple[int, int, int, int]:
        """The output layout's bounding box (x, y, width, height)."""
        if not self.outputs:
            raise WaylandError("wayland: the compositor has no output")
        x0 = min(o.x for o in self.outputs)
        y0 = min(o.y for o in self.outputs)
        x1 = max(o.x + o.width for o in self.outputs)
        y1 = max(o.y + o.height for o in self.outputs)
        return x0, y0, x1 - x0, y1 - y0
