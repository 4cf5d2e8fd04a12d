"""The app deny policy, applied to the *resolved* identity (native-contract.md 6.13, Linux defaults).

An app is denied when one of its names is a denied name, compared without case: its app id (the
``.desktop`` id, else the executable's basename), its executable's basename, the executable's
full path, or its display name. Linux defaults: terminal emulators, password, keyring and polkit
prompts, and screen lockers. A name alone is not enough against a terminal copied or linked under
another name, or a daemon whose windows are terminals (``urxvtd``), so a process that holds a
pseudo-terminal master (the backend reports ``RunningApp.holds_terminal``) is denied as a terminal
whatever it is called, unless the policy file allows it by name. deskhand's own processes are
denied intrinsically and no file can lift that. Discovery does not authorize: ``list_apps`` still
lists denied apps; any targeted tool on them gives ``app_denied`` before dispatch.

The policy file (TOML; ``$DESKHAND_POLICY``, else ``$XDG_CONFIG_HOME/deskhand/policy.toml``, else
``~/.config/deskhand/policy.toml``) can add and lift names::

    [deny]
    apps = ["org.mozilla.firefox"]   # also denied
    [allow]
    apps = ["xterm"]                 # lifts a default

Names may be app ids, executable names, display names (``"Mousepad"``) or absolute paths
(``"/usr/bin/mousepad"``). A name in both lists stays denied. The file fails closed: an unreadable
file, a table or key other than ``[deny]``/``[allow]`` ``apps``, a name that can never match (a
relative path such as ``bin/xterm``, surrounding spaces), or an attempt to allow deskhand itself is
a :class:`PolicyFileError`, so deskhand does not start with a policy the user did not mean.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from deskhand.backends.base import ProcessIdentity, RunningApp
from deskhand.core.errors import AppDeniedError, DeskhandError

#: Terminal emulators: app ids and executable names.
TERMINALS: Final = frozenset(
    {
        "org.gnome.Terminal", "gnome-terminal", "gnome-terminal-server", "org.gnome.Console", "kgx",
        "org.gnome.Ptyxis", "ptyxis", "org.kde.konsole", "konsole", "xterm", "uxterm", "lxterm",
        "xfce4-terminal", "org.xfce.terminal", "Alacritty", "alacritty", "kitty", "org.wezfurlong.wezterm",
        "wezterm", "wezterm-gui", "foot", "footclient", "org.codeberg.dnkl.foot", "com.gexperts.Tilix", "tilix",
        "terminator", "com.mitchellh.ghostty", "ghostty", "lxterminal", "mate-terminal", "qterminal",
        "sakura", "st", "urxvt", "rxvt", "rxvt-unicode", "terminology", "cool-retro-term", "guake", "tilda",
        "yakuake", "com.raggesilver.BlackBox", "blackbox", "deepin-terminal", "io.elementary.terminal",
        "x-terminal-emulator", "rio", "warp-terminal", "tabby", "hyper", "contour", "zutty", "eterm",
        "urxvtd", "urxvtc", "urxvt256c", "rxvt-unicode-256color", "mlterm", "kterm", "aterm", "mrxvt", "wterm",
        "xvt", "stterm", "termit", "roxterm", "pterm", "putty", "lilyterm", "evilvte", "termite",
        "org.kde.yakuake", "io.github.kovidgoyal.kitty",
    }
)  # fmt: skip
#: Password, keyring and polkit prompts, and screen lockers.
SECURITY_PROMPTS: Final = frozenset(
    {
        "polkit-gnome-authentication-agent-1", "polkit-kde-authentication-agent-1",
        "polkit-mate-authentication-agent-1", "lxpolkit", "lxqt-policykit-agent", "xfce-polkit",
        "org.kde.polkit-kde-authentication-agent-1", "gcr-prompter", "pinentry", "pinentry-gtk-2",
        "pinentry-gnome3", "pinentry-qt", "pinentry-x11", "pinentry-fltk", "ssh-askpass", "ksshaskpass",
        "x11-ssh-askpass", "gnome-ssh-askpass", "kwalletd5", "kwalletd6", "pkexec", "gnome-keyring-daemon",
        "xscreensaver", "light-locker", "gnome-screensaver", "xfce4-screensaver", "i3lock", "slock", "xsecurelock",
    }
)  # fmt: skip
#: Every default, compared without case.
DEFAULT_DENIED: Final = frozenset(n.casefold() for n in TERMINALS | SECURITY_PROMPTS)
#: deskhand itself: never liftable.
INTRINSIC: Final = frozenset({"deskhand", "io.deskhand.deskhand"})


class PolicyFileError(DeskhandError):
    """The policy file exists but cannot be used; deskhand fails closed rather than guess."""

    code = "policy_invalid"


def default_policy_path() -> Path:
    explicit = os.environ.get("DESKHAND_POLICY")
    if explicit:
        return Path(explicit)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "deskhand" / "policy.toml"


def _names(identity: ProcessIdentity, display_name: str = "") -> set[str]:
    """Every name a policy entry may use for the app, case-folded."""
    names = {identity.app_id, Path(identity.executable).name, identity.executable, display_name}
    return {n.casefold() for n in names if n}


@dataclass(frozen=True, slots=True)
class AppPolicy:
    """Which resolved apps deskhand refuses to operate."""

    denied: frozenset[str] = DEFAULT_DENIED
    #: Our own processes (this one, js kernel workers); denied whatever their name.
    own_pids: frozenset[int] = field(default_factory=lambda: frozenset({os.getpid()}))
    #: Names the policy file allows (lifting a default, or a terminal found by its pseudo-terminal).
    allowed: frozenset[str] = frozenset()

    @classmethod
    def load(cls, path: Path | None = None) -> AppPolicy:
        """Defaults plus the policy file, if it exists. Raises :class:`PolicyFileError` when it is unusable."""
        path = path or default_policy_path()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise PolicyFileError(f"deskhand policy file {path} is unreadable: {exc}") from exc
        return cls.from_mapping(data, source=str(path))

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], *, source: str = "policy") -> AppPolicy:
        """Defaults, minus the file's ``[allow]`` names, plus its ``[deny]`` names (deny wins)."""
        unknown = sorted(set(data) - {"deny", "allow"})
        if unknown:
            raise PolicyFileError(f"{source}: unknown table [{unknown[0]}]; only [deny] and [allow] are read")
        extra, lifted = _app_list(data, "deny", source), _app_list(data, "allow", source)
        intrinsic = sorted(lifted & INTRINSIC)
        if intrinsic:
            raise PolicyFileError(f"{source}: [allow] cannot lift '{intrinsic[0]}'; deskhand never operates itself")
        return cls(denied=(DEFAULT_DENIED - lifted) | extra, allowed=lifted - extra)

    def with_own_pids(self, pids: Iterable[int]) -> AppPolicy:
        return AppPolicy(self.denied, self.own_pids | frozenset(pids), self.allowed)

    def is_intrinsic(self, identity: ProcessIdentity) -> bool:
        return identity.pid in self.own_pids or bool(_names(identity) & INTRINSIC)

    def is_denied(self, identity: ProcessIdentity, *, display_name: str = "", holds_terminal: bool = False) -> bool:
        names = _names(identity, display_name)
        if self.is_intrinsic(identity) or names & self.denied:
            return True
        return holds_terminal and not names & self.allowed

    def check(self, app: RunningApp) -> None:
        """Raise ``app_denied`` (before dispatch) if ``app`` may not be operated."""
        if self.is_denied(app.identity, display_name=app.display_name, holds_terminal=app.holds_terminal):
            raise AppDeniedError(app.display_name)


def _app_list(data: Mapping[str, object], table: str, source: str) -> frozenset[str]:
    section = data.get(table, {})
    if isinstance(section, dict) and set(section) - {"apps"}:
        raise PolicyFileError(f"{source}: [{table}] takes only apps, not {sorted(set(section) - {'apps'})[0]!r}")
    apps = section.get("apps", []) if isinstance(section, dict) else None
    if not isinstance(apps, list) or not all(isinstance(a, str) and a for a in apps):
        raise PolicyFileError(f"{source}: [{table}] apps must be a list of non-empty strings")
    for name in apps:
        if name != name.strip() or ("/" in name and not name.startswith("/")):
            raise PolicyFileError(
                f"{source}: [{table}] {name!r} can never match: use an app id, an executable or display "
                "name, or an absolute path"
            )
    return frozenset(a.casefold() for a in apps)
