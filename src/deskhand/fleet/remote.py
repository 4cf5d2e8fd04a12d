"""A leased desktop's ``Computer`` and ``App`` on the lease holder's side: every call is forwarded to
the desktop's host, at most once.

The methods are those of :class:`deskhand.sdk.Computer` and :class:`deskhand.sdk.App` (same names,
same arguments, same results and typed errors); ``get_app`` gives a :class:`RemoteApp`. Methods
that take a callable or return a live object (``act_and_verify``, ``get_window``, ``close``) are
not forwarded: an episode ends with the lease, not with the computer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from deskhand.core.errors import ArgumentError
from deskhand.fleet.slot import APP_KEY, COMPUTER_METHODS, app_methods


class Forward(Protocol):
    def __call__(self, app: str | None, method: str, args: Sequence[object], kwargs: Mapping[str, object]) -> Any: ...


class RemoteApp:
    """A bound app on a leased desktop; its methods are :class:`deskhand.sdk.App`'s."""

    def __init__(self, forward: Forward, app: str) -> None:
        self._forward = forward
        self.app = app

    def __repr__(self) -> str:
        return f"RemoteApp({self.app!r})"

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_") or name not in app_methods():
            raise AttributeError(name)

        def call(*args: object, **kwargs: object) -> Any:
            return self._forward(self.app, name, args, kwargs)

        return call


class RemoteComputer:
    """A leased desktop's computer; its methods are :class:`deskhand.sdk.Computer`'s that
    :data:`~deskhand.fleet.slot.COMPUTER_METHODS` names."""

    def __init__(self, forward: Forward) -> None:
        self._forward = forward

    def get_app(self, selector: str | int) -> RemoteApp:
        result = self._forward(None, "get_app", (selector,), {})
        if not isinstance(result, dict) or not isinstance(result.get(APP_KEY), str):
            raise ArgumentError(f"get_app({selector!r}) bound no app")
        return RemoteApp(self._forward, result[APP_KEY])

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_") or name not in COMPUTER_METHODS:
            raise AttributeError(f"Computer.{name} is not forwarded to a pooled desktop")

        def call(*args: object, **kwargs: object) -> Any:
            return self._forward(None, name, args, kwargs)

        return call
