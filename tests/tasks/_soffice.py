"""One LibreOffice instance per module, shared by its tasks: the first document starts it
(a fresh private profile, GTK 3 plugin), later documents open in the same instance (a second
``soffice`` with the same profile hands its file to the running one and exits), so a task costs
a window, not a LibreOffice start."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from _agent import Agent, js, need

from desktop_support import Running
from realapps._apps import Apps
from realapps._apps import need as need_binary


class Office:
    def __init__(self, apps: Apps, agent: Agent, module: str) -> None:
        self.apps = apps
        self.agent = agent
        self.module = module
        self.profile = apps.tmp / f"office-{module}-profile"
        self.running: Running | None = None
        self.pid = 0

    def argv(self, path: Path | None) -> list[str]:
        argv = [need_binary("soffice"), "--norestore", "--nologo", "--nolockcheck",
                f"-env:UserInstallation={self.profile.as_uri()}", f"--{self.module}"]  # fmt: skip
        return [*argv, str(path)] if path is not None else argv

    def open(self, path: Path | None, title: str) -> str:
        """Open ``path`` (a new document when None) and return the agent's state once the key
        window's title has ``title``."""
        if self.running is not None and not Path(f"/proc/{self.pid}").exists():
            # LibreOffice ended (it aborted when asked for its accessibility cache after documents
            # had closed, before deskhand read it by walks only): the next task starts it again
            # rather than fail for a reason of no task's making
            print(f"soffice.bin {self.pid} had ended: starting LibreOffice again")
            self.running.app.stop()
            self.running = None
        if self.running is None:
            self.running = self.apps.run(
                self.argv(path), f"soffice-{self.module}", env={"SAL_USE_VCLPLUGIN": "gtk3"}, timeout_s=90.0
            )
            self.pid = self._office_pid()
            self.agent.bind(self.pid)
        else:
            env = self.apps.home(f"soffice-open-{self.module}")
            env["SAL_USE_VCLPLUGIN"] = "gtk3"
            self.close_document()
            self.apps.launcher.desktop.launch(self.argv(path), env=env, log_path=self.apps.tmp / "soffice-open.log")
        return self.agent.until(self.pid, rf"Window: \"{title}", tries=30)

    def close_document(self) -> None:
        """The reset between tasks: the agent closes the last task's document (``ctrl+w``; not
        saving it if LibreOffice asks), which leaves the Start Center."""
        if not Path(f"/proc/{self.pid}").exists():
            return
        for _ in range(3):  # a dialog a failed task left open goes first
            if re.search(r"^Window: \"[^\"]* - LibreOffice", self.agent.observe(self.pid), re.M):
                break
            self.agent.act(self.pid, lambda _s: "await app.pressKey('Escape');")
        self.agent.act(self.pid, lambda _s: "await app.pressKey('ctrl+w');").expect_ok()
        state = self.agent.observe(self.pid, wait_ms=1000)
        if "Don't Save" in state or "Don’t Save" in state:
            self.agent.act(self.pid, lambda s: f"await app.click({js(need(s, r'push button Don.t Save'))});")
        self.agent.until(self.pid, r"Window: \"(?:LibreOffice|Start Center)")

    def _office_pid(self) -> int:
        """``soffice.bin`` of this profile, which the ``soffice`` script starts (and restarts once
        with a new profile), read from /proc whichever display server it runs on."""
        deadline = time.monotonic() + 90.0
        while True:
            found = [pid for pid in _pids() if _exe(pid).endswith("soffice.bin") and self.profile.name in _cmdline(pid)]
            if found:
                return found[0]
            assert time.monotonic() < deadline, "soffice.bin never ran"
            time.sleep(0.5)  # polling LibreOffice's start with a deadline


def _pids() -> list[int]:
    return sorted(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit())


def _exe(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
