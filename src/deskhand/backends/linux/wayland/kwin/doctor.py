"""``deskhand doctor`` on a KWin session: the Wayland socket, the fake input, data control, KWin's
scripting and ScreenShot2 on the session bus, and the keymap library.

KWin serves its fake input and ScreenShot2 only to programs it trusts. A desktop from
``deskhand desktop start --compositor kwin`` trusts every client; on a user's Plasma session the
program that runs deskhand (the Python interpreter, as ``/proc/<pid>/exe`` names it) needs a
``.desktop`` file once, which :func:`allow_list` writes out for the failed check's fix.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Final

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._xkb import FIX_XKB, KeyTable, read_keymap
from deskhand.backends.linux.wayland.kwin import screenshot
from deskhand.backends.linux.wayland.kwin.scripting import FIX_KWIN_DBUS, Scripting
from deskhand.core.errors import DeskhandError
from deskhand.desktop.doctor import Check

__all__ = ("allow_list", "kwin_checks")

DESKTOP_FILE: Final = "~/.local/share/applications/deskhand-kwin.desktop"
FIX_DATA_CONTROL: Final = "KWin 5.27 offers zwlr_data_control_manager_v1: update KWin (paste needs it)"


def allow_list(executable: str | None = None) -> str:
    """The ``.desktop`` entry that lets ``executable`` (this interpreter) use KWin's fake input and
    ScreenShot2 on a Plasma session."""
    exe = os.path.realpath(executable or sys.executable)
    return (
        "[Desktop Entry]\nType=Application\nName=deskhand\nNoDisplay=true\n"
        f"Exec={exe}\n"
        "X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n"
        "X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n"
    )


def _fix_trust() -> str:
    return (
        f"on a Plasma session, allow this program once: write {DESKTOP_FILE} with\n{allow_list()}"
        "(KWin trusts the executable it names; restart deskhand after). A desktop from "
        "`deskhand desktop start --compositor kwin` trusts every client."
    )


def kwin_checks(env: Mapping[str, str]) -> list[Check]:
    """The display half of the report on a KWin session (the ``wayland`` check is the caller's)."""
    out: list[Check] = []
    try:
        client = Client(env, timeout_s=1.0)
    except DeskhandError as exc:
        return [Check("kwin_wayland", False, exc.message, "fix the wayland check first")]
    try:
        fake = client.globals.get("org_kde_kwin_fake_input")
        out.append(
            Check("fake_input", True, f"org_kde_kwin_fake_input v{fake.version}")
            if fake is not None
            else Check("fake_input", False, "KWin does not offer org_kde_kwin_fake_input to this program", _fix_trust())
        )
        dc = client.globals.get("zwlr_data_control_manager_v1")
        out.append(
            Check("data_control", True, f"zwlr_data_control_manager_v1 v{dc.version}")
            if dc is not None
            else Check("data_control", False, "zwlr_data_control_manager_v1 missing", FIX_DATA_CONTROL)
        )
        try:
            table = KeyTable(read_keymap(client))
            out.append(Check("keymap", True, f"the session's keymap: {len(table.strokes)} keysyms typable"))
        except DeskhandError as exc:
            out.append(Check("keymap", False, exc.message, FIX_XKB))
    finally:
        client.close()
    return [*out, *_bus_checks(env)]


def _bus_checks(env: Mapping[str, str]) -> list[Check]:
    try:
        scripts = Scripting(env.get("DBUS_SESSION_BUS_ADDRESS"), scratch=env.get("XDG_RUNTIME_DIR"), timeout_s=1.0)
    except DeskhandError as exc:
        first = "fix the kwin_scripting check first"
        return [
            Check("kwin_scripting", False, exc.message.split("; ")[0], FIX_KWIN_DBUS),
            Check("screenshot", False, "needs KWin on the session bus", first),
        ]
    try:
        try:
            count = scripts.run("return workspace.clientList().length;")
            out = [Check("kwin_scripting", True, f"KWin scripts answer ({count} window(s))")]
        except DeskhandError as exc:
            out = [Check("kwin_scripting", False, exc.message.split("; ")[0], FIX_KWIN_DBUS)]
        try:
            screenshot.capture_area(scripts, (0, 0, 1, 1), timeout_s=1.0)
            out.append(Check("screenshot", True, "org.kde.KWin.ScreenShot2 answers"))
        except DeskhandError as exc:
            out.append(Check("screenshot", False, exc.message.split("; ")[0], _fix_trust()))
    finally:
        scripts.close()
    return out
