"""A lease: one fresh desktop of a pool, held until released (or reclaimed when its TTL passes).

Calls go straight to the desktop's host, each at most once (the host actors run with
``max_task_retries=0``). A host or node that dies under a call raises :class:`DesktopLost` with
``dispatched=None`` (the effect is unknown) and the lease is dead from then on: every later call
raises :class:`DesktopLost` before sending anything. Nothing is replayed; an episode that lost its
desktop starts again on a new lease.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final

import ray

from deskhand.core.errors import DeskhandError, DesktopLost
from deskhand.fleet.host import Call
from deskhand.fleet.remote import RemoteComputer
from deskhand.fleet.wire import unpack


@dataclass(frozen=True, slots=True)
class McpAccess:
    """Where an MCP client reaches a leased desktop: the streamable-HTTP URL and its bearer token."""

    url: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def resolve(ref: Any, what: str) -> Any:
    """``ray.get`` with the host's typed errors raised as themselves and a dead actor as DesktopLost."""
    try:
        value = ray.get(ref)
    except ray.exceptions.RayTaskError as err:
        if isinstance(err.cause, DeskhandError):
            raise err.cause from None
        raise
    except (ray.exceptions.RayActorError, ray.exceptions.ActorUnschedulableError) as err:
        raise DesktopLost(
            f"{what}: the desktop's host died (its actor or its node); the call's effect is unknown and it "
            "is not retried",
            dispatched=None,
        ) from err
    if (error := unpack(value)) is not None:
        raise error
    return value


#: How long a driver waits for a restarting controller before giving up.
CONTROLLER_RESTART_S: Final = 60.0


def ask(controller: Any, method: str, *args: object) -> Any:
    """Call the controller, waiting out a restart (a dead controller is restarted by Ray and rebuilds
    its table from the hosts). Only for calls that are safe to repeat: they act on no desktop."""
    deadline = time.monotonic() + CONTROLLER_RESTART_S
    while True:
        try:
            return ray.get(getattr(controller, method).remote(*args))
        except ray.exceptions.RayTaskError as err:
            if isinstance(err.cause, DeskhandError):
                raise err.cause from None
            raise
        except ray.exceptions.RayActorError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


class Lease:
    """A desktop of the pool for one episode. Use as a context manager (``with pool.lease() as lease``)."""

    def __init__(self, controller: Any, grant: Mapping[str, Any], timeout_s: float) -> None:
        self._controller = controller
        self._timeout_s = timeout_s
        self.lease_id: str = grant["lease_id"]
        self._take(grant)
        #: (host, desktop id) of the desktops this lease held before its resets.
        self._earlier: list[tuple[Any, str]] = []
        self._lost: DesktopLost | None = None
        self._released = False
        self.computer = RemoteComputer(self._forward)

    def _take(self, grant: Mapping[str, Any]) -> None:
        self.node_id: str = grant["node_id"]
        self.desktop_id: str = grant["desktop_id"]
        self._host = grant["host"]
        self._mcp: McpAccess | None = None

    def __repr__(self) -> str:
        return f"Lease({self.lease_id}, desktop={self.desktop_id}, node={self.node_id[:8]})"

    def _check(self, what: str) -> None:
        if self._released:
            raise DeskhandError(f"{what}: the lease was released", code="closed", dispatched=False)
        if self._lost is not None:
            raise DesktopLost(f"{what}: this lease lost its desktop earlier ({self._lost.message})", dispatched=False)

    def _forward(self, app: str | None, method: str, args: Sequence[object], kwargs: Mapping[str, object]) -> Any:
        what = f"{'App' if app else 'Computer'}.{method}"
        self._check(what)
        ref = self._host.call.remote(self.desktop_id, self.lease_id, Call(app, method, tuple(args), dict(kwargs)))
        try:
            return resolve(ref, what)
        except DesktopLost as lost:
            self._lost = lost
            raise

    @property
    def mcp(self) -> McpAccess:
        """The desktop's MCP endpoint (started on first use), with a token made for this desktop."""
        if self._mcp is None:
            self._check("Lease.mcp")
            url, token = resolve(self._host.mcp.remote(self.desktop_id, self.lease_id), "Lease.mcp")
            self._mcp = McpAccess(url, token)
        return self._mcp

    def renew(self) -> None:
        """Push the lease's deadline ``lease_ttl_s`` ahead (every forwarded call does too)."""
        self._check("Lease.renew")
        resolve(self._host.renew.remote(self.desktop_id, self.lease_id), "Lease.renew")

    def reset(self) -> None:
        """Move onto a fresh desktop with the pool's apps (checked ready); the old one is torn down
        in the background and audited (:meth:`audit`). Bound apps start over: call ``get_app`` again."""
        self._check("Lease.reset")
        old = (self._host, self.desktop_id)
        ref = self._controller.reset.remote(self.node_id, self.desktop_id, self.lease_id, self._timeout_s)
        self._take(resolve(ref, "Lease.reset"))
        self._earlier.append(old)

    def audit(self) -> list[dict[str, object]]:
        """What survived each desktop this lease held before its resets (waits for their teardown):
        one audit per desktop, ``leaks`` 0 for a clean one. A desktop whose host died has none."""
        out: list[dict[str, object]] = []
        for host, desktop_id in self._earlier:
            try:
                found = ray.get(host.audit.remote(desktop_id))
            except ray.exceptions.RayError:
                continue
            if found is not None:
                out.append(found)
        return out

    def release(self) -> None:
        """Give the desktop back: it is torn down and replaced by a fresh one. Idempotent."""
        if self._released:
            return
        self._released = True
        if self._lost is None:
            with contextlib.suppress(ray.exceptions.RayError):  # the host is gone, and its desktops with it
                ray.get(self._host.release.remote(self.desktop_id, self.lease_id))

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.release()

    async def __aenter__(self) -> Lease:
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self._released and self._lost is None:
            self._released = True
            with contextlib.suppress(ray.exceptions.RayError):
                await self._host.release.remote(self.desktop_id, self.lease_id)
