"""deskhand.backends: the platform executors, chosen by name from one table and imported lazily.

:data:`BACKENDS` maps a backend name (``linux``, ``macos``, ``fake``) to how it is loaded and,
when it cannot start, the fix the error names. Loading imports the backend's modules only then,
so the core never pulls in X11, AT-SPI or pyobjc.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from deskhand.core.errors import BackendUnavailable

if TYPE_CHECKING:
    from deskhand.backends.base import Executor


def _linux(env: Mapping[str, str]) -> Executor:
    # a Wayland session without XWayland, or one whose compositor is named (GNOME or KDE with XWayland)
    if env.get("WAYLAND_DISPLAY") and (not env.get("DISPLAY") or env.get("DESKHAND_COMPOSITOR")):
        from deskhand.backends.linux.wayland_executor import WaylandExecutor  # noqa: PLC0415 - lazy backend import

        return WaylandExecutor(env)
    from deskhand.backends.linux.executor import LinuxExecutor  # noqa: PLC0415 - lazy backend import

    return LinuxExecutor(display=env.get("DISPLAY"), a11y_address=env.get("AT_SPI_BUS_ADDRESS"))


def _macos(env: Mapping[str, str]) -> Executor:
    from deskhand.backends.macos.executor import MacExecutor  # noqa: PLC0415 - lazy backend import

    return MacExecutor()


def _fake(env: Mapping[str, str]) -> Executor:
    from deskhand.backends.fake import FakeExecutor  # noqa: PLC0415 - lazy backend import

    return FakeExecutor()


@dataclass(frozen=True, slots=True)
class Backend:
    """One row: its loader, the name its errors use, the fix they name, and where it can run."""

    load: Callable[[Mapping[str, str]], Executor]
    label: str
    fix: str
    #: ``sys.platform`` values it runs on; None for anywhere.
    runs_on: frozenset[str] | None = None


BACKENDS: Final[Mapping[str, Backend]] = MappingProxyType(
    {
        "linux": Backend(
            _linux,
            "Linux",
            "start a desktop (`deskhand desktop start`) or pass --virtual, and check `deskhand doctor`",
        ),
        "macos": Backend(
            _macos,
            "macOS",
            "the macOS backend runs only on macOS: install `deskhand[macos]` there and grant Accessibility and "
            "Screen Recording to the app that runs deskhand; on Linux use the X11 backend",
            runs_on=frozenset({"darwin"}),
        ),
        "fake": Backend(_fake, "fake", "it needs no platform"),
    }
)


def open_backend(name: str, env: Mapping[str, str]) -> Executor:
    """The executor of backend ``name`` for ``env`` (a desktop's DISPLAY and bus addresses).

    Raises:
        BackendUnavailable: an unknown name, a platform it cannot run on, or a failed start; the
            message names the fix.
    """
    backend = BACKENDS.get(name)
    if backend is None:
        raise BackendUnavailable(f"no deskhand backend for platform {name!r}; use Linux with X11")
    if backend.runs_on is not None and sys.platform not in backend.runs_on:
        raise BackendUnavailable(f"the {backend.label} backend cannot run on {sys.platform}; {backend.fix}")
    try:
        return backend.load(env)
    except BackendUnavailable:
        raise
    except Exception as err:  # a missing library or a refused display, bus or framework
        raise BackendUnavailable(f"the {backend.label} backend cannot start ({err}); {backend.fix}") from err
