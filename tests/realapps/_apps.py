"""Launchers for the real apps of the matrix, each with a private profile under a temp folder.

Each launcher returns a ``Running`` (see ``tests/desktop_support.py``) once the app is on the
accessibility bus and has a mapped window. Apps get their own ``HOME`` and XDG folders and the
in-memory GSettings backend, so nothing is restored from an earlier run and nothing the user has
is touched. Accessibility is on the way the desktop switches it on for everybody
(``org.a11y.Status.IsEnabled`` at start, and the toolkit variables), see ``require_accessibility``.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from deskhand.backends.linux.wayland._ipc import SwayIPC
from deskhand.desktop import VirtualDesktop
from deskhand.desktop.atspi import a11y_status
from desktop_support import Launcher, Running

#: What toolkits read to load their AT-SPI bridge (GTK 3 apps, LibreOffice, Firefox, Qt, Chromium).
A11Y_ENV: Mapping[str, str] = {
    "GTK_MODULES": "gail:atk-bridge",
    "GNOME_ACCESSIBILITY": "1",
    "QT_ACCESSIBILITY": "1",
    "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
    "ACCESSIBILITY_ENABLED": "1",
    "GTK_A11Y": "atspi",
}

CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--force-renderer-accessibility",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--password-store=basic",
    "--window-size=1200,900",
    "--window-position=0,0",
)

FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "startup.homepage_welcome_url": "",
    "startup.homepage_welcome_url.additional": "",
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.tabs.warnOnClose": False,
    "browser.sessionstore.resume_from_crash": False,
    "app.update.enabled": False,
    "extensions.update.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "accessibility.force_disabled": 0,
}


def require_accessibility(desktop: VirtualDesktop) -> None:
    """The desktop switched ``org.a11y.Status.IsEnabled`` on at start (Firefox and Chromium
    register on the accessibility bus only when it is true): check it rather than set it again."""
    status = a11y_status(desktop.env["DBUS_SESSION_BUS_ADDRESS"])
    assert status["IsEnabled"], f"the desktop started with accessibility off: {status}"


def need(binary: str) -> str:
    """The path of ``binary``, or skip (``make deps`` installs every matrix app)."""
    found = shutil.which(binary)
    if found is None:
        pytest.skip(f"{binary} is not installed (make deps installs it)")
    return found


class Apps:
    """App launchers over one ``Launcher`` (module-scoped in the matrix tests)."""

    def __init__(self, launcher: Launcher, tmp: Path) -> None:
        self.launcher = launcher
        self.tmp = tmp
        self._n = 0

    def home(self, name: str) -> dict[str, str]:
        """A fresh HOME with XDG folders for one app, and the in-memory GSettings backend."""
        self._n += 1
        home = self.tmp / f"{name}-{self._n}"
        env = {"HOME": str(home), "GSETTINGS_BACKEND": "memory"}
        for var, sub in (
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_CACHE_HOME", ".cache"),
            ("XDG_STATE_HOME", ".local/state"),
        ):
            (home / sub).mkdir(parents=True, exist_ok=True)
            env[var] = str(home / sub)
        env.update(A11Y_ENV)
        return env

    def run(
        self,
        argv: Sequence[str],
        name: str,
        *,
        env: Mapping[str, str] | None = None,
        timeout_s: float = 60.0,
        cwd: Path | None = None,
    ) -> Running:
        full = self.home(name)
        full.update(env or {})
        running = self.launcher(argv, env=full, timeout_s=timeout_s, cwd=cwd)
        if self.wayland:
            with SwayIPC(env=self.launcher.desktop.env) as ipc:
                shells = {v.shell for v in ipc.views() if v.pid == running.pid}
            assert shells == {"xdg_shell"}, f"{name} is not a native Wayland client: {shells}"
        return running

    @property
    def wayland(self) -> bool:
        """Whether the apps start on a Wayland desktop (natively: the browsers are told so)."""
        return self.launcher.desktop.wayland

    def chromium(self, url: str = "about:blank") -> Running:
        profile = self.tmp / f"chromium-profile-{self._n}"
        profile.mkdir(parents=True, exist_ok=True)
        native = ["--ozone-platform=wayland"] if self.wayland else []
        return self.run([need("chromium"), *CHROMIUM_FLAGS, *native, f"--user-data-dir={profile}", url], "chromium")

    def firefox(self, url: str = "about:blank") -> Running:
        profile = self.tmp / f"firefox-profile-{self._n}"
        profile.mkdir(parents=True, exist_ok=True)
        lines = [f"user_pref({_js(k)}, {_js(v)});" for k, v in FIREFOX_PREFS.items()]
        (profile / "user.js").write_text("\n".join(lines) + "\n")
        return self.run(
            [need("firefox-esr"), "--no-remote", "--new-instance", "--profile", str(profile), url],
            "firefox",
            env={"MOZ_CRASHREPORTER_DISABLE": "1", **({"MOZ_ENABLE_WAYLAND": "1"} if self.wayland else {})},
        )

    def soffice(self, module: str, path: Path | None = None) -> Running:
        """LibreOffice (``module``: "writer" or "calc"), GTK 3 plugin, with a fresh user profile."""
        profile = self.tmp / f"lo-profile-{self._n}"
        argv = [
            need("soffice"),
            "--norestore",
            "--nologo",
            "--nolockcheck",
            f"-env:UserInstallation={profile.as_uri()}",
            f"--{module}",
        ]
        if path is not None:
            argv.append(str(path))
        return self.run(argv, f"soffice-{module}", env={"SAL_USE_VCLPLUGIN": "gtk3"}, timeout_s=90.0)

    def gnome_calculator(self) -> Running:
        return self.run([need("gnome-calculator")], "gnome-calculator")

    def gnome_text_editor(self, path: Path | None = None) -> Running:
        argv = [need("gnome-text-editor"), "--standalone"]
        if path is not None:
            argv.append(str(path))
        return self.run(argv, "gnome-text-editor")

    def kcalc(self) -> Running:
        return self.run([need("kcalc")], "kcalc")

    def thunar(self, folder: Path) -> Running:
        return self.run([need("thunar"), str(folder)], "thunar")

    def dolphin(self, folder: Path) -> Running:
        """Dolphin renaming in a dialog (its inline editor is not on the accessibility bus)."""
        config = self.tmp / f"dolphin-xdg-{self._n}"
        config.mkdir(parents=True, exist_ok=True)
        (config / "dolphinrc").write_text("[General]\nRenameInline=false\n")
        return self.run(
            [need("dolphin"), "--new-window", str(folder)],
            "dolphin",
            env={"XDG_CONFIG_DIRS": str(config)},
            timeout_s=90.0,
        )

    def evince(self, path: Path) -> Running:
        return self.run([need("evince"), str(path)], "evince")

    def gimp(self, path: Path) -> Running:
        """GIMP 2.10 (GTK 2) with no fonts or data loaded, no splash, a fresh profile."""
        argv = [need("gimp"), "--new-instance", "--no-data", "--no-fonts", "--no-splash", str(path)]
        return self.run(argv, "gimp", timeout_s=120.0)

    def galculator(self) -> Running:
        return self.run([need("galculator")], "galculator")

    def mousepad(self, path: Path | None = None) -> Running:
        argv = [need("mousepad"), "--disable-server"]
        if path is not None:
            argv.append(str(path))
        return self.run(argv, "mousepad")


def _js(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
