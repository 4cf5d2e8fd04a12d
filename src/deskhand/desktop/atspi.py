"""Reaching the AT-SPI bus of a desktop with jeepney: find its address, list the apps, wait for one.

Used by the desktop (readiness), the doctor and the test harness. Every call has a deadline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import TracebackType

from jeepney import DBusAddress, DBusErrorResponse, Properties, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import DBusConnection
from jeepney.wrappers import unwrap_msg

from deskhand.core.errors import BackendUnavailable
from deskhand.dbusconn import open_bus

REGISTRY = "org.a11y.atspi.Registry"
ROOT_PATH = "/org/a11y/atspi/accessible/root"
ACCESSIBLE = "org.a11y.atspi.Accessible"
A11Y_BUS = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
A11Y_STATUS = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Status")
POLL_S = 0.005


class SessionBusUnreachable(BackendUnavailable):
    """The session bus itself cannot be reached (as opposed to the AT-SPI launcher missing on it)."""


def _call(conn: DBusConnection, msg: object, timeout_s: float) -> tuple[object, ...]:
    reply = unwrap_msg(conn.send_and_get_reply(msg, timeout=timeout_s))
    return tuple(reply)


def name_has_owner(conn: DBusConnection, name: str, timeout_s: float = 1.0) -> bool:
    return bool(_call(conn, message_bus.NameHasOwner(name), timeout_s)[0])


def wait_for_name(conn: DBusConnection, name: str, deadline: float) -> bool:
    """Poll ``NameHasOwner`` (never auto-activates) until the name is owned or ``deadline`` passes."""
    while True:
        if name_has_owner(conn, name):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)


def a11y_address_from_session(session_address: str, timeout_s: float = 2.0, *, enable: bool = False) -> str:
    """Ask the session bus's ``org.a11y.Bus`` for the AT-SPI bus address (``enable``: first switch
    accessibility on, :func:`enable_accessibility`).

    Only calls ``GetAddress`` once the launcher owns the name: calling it earlier makes D-Bus
    auto-activate a second launcher.
    """
    deadline = time.monotonic() + timeout_s
    try:
        conn = open_bus(bus=session_address, timeout_s=timeout_s)
    except (OSError, ValueError) as exc:
        raise SessionBusUnreachable(f"session D-Bus at {session_address} is unreachable: {exc}") from exc
    with conn:
        if not wait_for_name(conn, "org.a11y.Bus", deadline):
            raise BackendUnavailable("no AT-SPI bus launcher (org.a11y.Bus) on the session bus")
        if enable:
            enable_accessibility(conn, timeout_s)
        return str(_call(conn, new_method_call(A11Y_BUS, "GetAddress"), timeout_s)[0])


def a11y_status(session_address: str, timeout_s: float = 1.0) -> dict[str, bool]:
    """``org.a11y.Status`` on the session bus: ``IsEnabled`` and ``ScreenReaderEnabled``.

    Toolkits read ``IsEnabled`` at start to decide whether to load their accessibility bridge.
    """
    try:
        conn = open_bus(bus=session_address, timeout_s=timeout_s)
    except (OSError, ValueError) as exc:
        raise SessionBusUnreachable(f"session D-Bus at {session_address} is unreachable: {exc}") from exc
    with conn:
        if not name_has_owner(conn, "org.a11y.Bus", timeout_s):
            raise BackendUnavailable("no AT-SPI bus launcher (org.a11y.Bus) on the session bus")
        (props,) = _call(conn, Properties(A11Y_STATUS).get_all(), timeout_s)
    return {str(k): bool(v[1]) for k, v in props.items()}  # type: ignore[attr-defined]


def enable_accessibility(conn: DBusConnection, timeout_s: float = 1.0) -> None:
    """Set ``org.a11y.Status.IsEnabled`` on the bus ``conn`` is connected to, so toolkits started
    afterwards (Chromium, Firefox, GTK 4) put their trees on the AT-SPI bus."""
    _call(conn, Properties(A11Y_STATUS).set("IsEnabled", "b", True), timeout_s)


@dataclass(frozen=True, slots=True)
class A11yApp:
    """An application registered on the AT-SPI bus."""

    bus_name: str
    path: str
    name: str
    pid: int | None


class A11yBus:
    """A blocking connection to one AT-SPI bus."""

    def __init__(self, address: str, *, timeout_s: float = 2.0) -> None:
        self.address = address
        self.timeout_s = timeout_s
        try:
            self.conn = open_bus(bus=address, timeout_s=timeout_s)
        except (OSError, ValueError) as exc:
            raise BackendUnavailable(f"AT-SPI bus at {address} is unreachable: {exc}") from exc

    def __enter__(self) -> A11yBus:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    def registry_ready(self) -> bool:
        return name_has_owner(self.conn, REGISTRY, self.timeout_s)

    def wait_registry(self, deadline: float) -> bool:
        return wait_for_name(self.conn, REGISTRY, deadline)

    def app_refs(self) -> list[tuple[str, str]]:
        """The (bus name, path) of every app: the registry root's children."""
        msg = new_method_call(DBusAddress(ROOT_PATH, REGISTRY, ACCESSIBLE), "GetChildren")
        return [(str(b), str(p)) for b, p in _call(self.conn, msg, self.timeout_s)[0]]  # type: ignore[attr-defined]

    def pid_of(self, bus_name: str) -> int | None:
        try:
            return int(_call(self.conn, message_bus.GetConnectionUnixProcessID(bus_name), self.timeout_s)[0])  # type: ignore[call-overload]
        except DBusErrorResponse:
            return None

    def name_of(self, bus_name: str, path: str) -> str:
        msg = Properties(DBusAddress(path, bus_name, ACCESSIBLE)).get("Name")
        try:
            return str(_call(self.conn, msg, self.timeout_s)[0][1])  # type: ignore[index]
        except (DBusErrorResponse, TimeoutError):
            return ""

    def apps(self) -> list[A11yApp]:
        """Every registered app with its name and pid."""
        return [A11yApp(b, p, self.name_of(b, p), self.pid_of(b)) for b, p in self.app_refs()]

    def find_pid(self, pid: int) -> A11yApp | None:
        for bus_name, path in self.app_refs():
            if self.pid_of(bus_name) == pid:
                return A11yApp(bus_name, path, self.name_of(bus_name, path), pid)
        return None

    def wait_for_pid(self, pid: int, timeout_s: float = 10.0) -> A11yApp:
        """Poll the registry until an app with ``pid`` is on the bus; raise TimeoutError otherwise."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.find_pid(pid)
            if found is not None:
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(f"pid {pid} did not appear on the AT-SPI bus within {timeout_s} s")
            time.sleep(0.02)

    def wait_gone(self, pid: int, timeout_s: float = 10.0) -> bool:
        """Poll until no app with ``pid`` is on the bus; True when it is gone."""
        deadline = time.monotonic() + timeout_s
        while self.find_pid(pid) is not None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True
