"""The environment a desktop gives its clients and apps: toolkit accessibility on, the user's policy kept.

Standard library only.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Final

#: Variables that switch toolkit accessibility on: GTK 2 loads the bridge as modules (GTK 3 has it
#: built in and skips these two names), GTK 4 reads GTK_A11Y, Qt the QT_* pair, Chromium
#: ACCESSIBILITY_ENABLED, Firefox and older GNOME code GNOME_ACCESSIBILITY.
A11Y_APP_ENV: Final[Mapping[str, str]] = {
    "GTK_A11Y": "atspi",
    "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
    "QT_ACCESSIBILITY": "1",
    "GNOME_ACCESSIBILITY": "1",
    "ACCESSIBILITY_ENABLED": "1",
}
GTK_A11Y_MODULES: Final = ("gail", "atk-bridge")
#: Variables that switch the accessibility bridge off, or point a child at another session.
A11Y_OFF_ENV: Final = ("NO_AT_BRIDGE",)
#: Per-desktop settings dirs given to the processes a desktop starts (never to its exports).
PRIVATE_DIRS: Final = (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_STATE_HOME", "state"))


def gtk_modules(current: str | None) -> str:
    """``GTK_MODULES`` with the GTK 2 accessibility modules added to what is already there."""
    names = [n for n in (current or "").split(":") if n]
    return ":".join([*names, *(m for m in GTK_A11Y_MODULES if m not in names)])


def a11y_env(base: Mapping[str, str]) -> dict[str, str]:
    """``base`` with toolkit accessibility on for the apps started with it."""
    env = {k: v for k, v in base.items() if k not in A11Y_OFF_ENV}
    env.update(A11Y_APP_ENV)
    env["GTK_MODULES"] = gtk_modules(base.get("GTK_MODULES"))
    return env


def user_policy_path(env: Mapping[str, str]) -> str:
    """Where ``host/policy.py`` finds the user's policy file under ``env`` (the same rule)."""
    explicit = env.get("DESKHAND_POLICY")
    if explicit:
        return explicit
    home = env.get("HOME") or str(Path.home())
    config = env.get("XDG_CONFIG_HOME") or str(Path(home) / ".config")
    return str(Path(config) / "deskhand" / "policy.toml")


def exports_text(env: Mapping[str, str]) -> str:
    """Shell lines that put a shell on the desktop: ``export`` each variable, ``unset`` the ones that
    would switch accessibility off (and, for a Wayland desktop, ``DISPLAY``: its apps are native)."""
    lines = [f"export {k}={shlex.quote(v)}\n" for k, v in sorted(env.items())]
    unset = (*A11Y_OFF_ENV, "DISPLAY") if "WAYLAND_DISPLAY" in env and "DISPLAY" not in env else A11Y_OFF_ENV
    return "".join(lines) + "".join(f"unset {name}\n" for name in unset)
