"""The one platform vocabulary inside deskhand, and its spellings at the edges.

Inside, a platform is :data:`Platform` (``linux``, ``macos``, ``windows``): the executors, the
host, the key policy and the backend table all use it. Two edges spell it otherwise, and only
there is it converted: Python's ``sys.platform`` (``linux``, ``darwin``, ``win32``) when choosing
a backend, and the js facade's ``cua.computer.target`` (``mac`` on macOS, native-contract.md 2).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

Platform = Literal["linux", "macos", "windows"]

#: ``sys.platform`` prefix -> platform.
_SYS_PLATFORMS: Final[Mapping[str, Platform]] = MappingProxyType(
    {"linux": "linux", "darwin": "macos", "win32": "windows"}
)
#: platform -> ``cua.computer.target``, where it differs from the platform's name.
_JS_TARGETS: Final[Mapping[str, str]] = MappingProxyType({"macos": "mac"})


def from_sys_platform(name: str = sys.platform) -> Platform | None:
    """The platform ``sys.platform`` names, or None for one deskhand has no name for."""
    return next((p for prefix, p in _SYS_PLATFORMS.items() if name.startswith(prefix)), None)


def js_target(platform: str) -> str:
    """``cua.computer.target`` for a platform: ``mac`` for macOS, otherwise the platform's name."""
    return _JS_TARGETS.get(platform, platform)
