"""KWin scripts run over D-Bus, each answering back on our own bus connection.

KWin has no window list with pids on its D-Bus API, but its scripting API has every window's pid,
caption, geometry, stacking and activation. A query is a small script: written to a private
file, loaded with ``org.kde.KWin /Scripting loadScript``, started (``Scripting.start``), and
unloaded. The script sends its result as JSON with ``callDBus``
to this connection's unique name, with a random token, and we answer the call. About 2–4 ms a
query on an idle KWin 5.27.
"""

from __future__ import annotations

import json
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any, Final

from jeepney import DBusAddress, MatchRule, MessageType, new_method_call, new_method_return
from jeepney.io.blocking import DBusConnection
from jeepney.low_level import HeaderFields

from deskhand.core.errors import BackendUnavailable
from deskhand.dbusconn import open_bus

__all__ = ("Scripting",)

KWIN: Final = "org.kde.KWin"
ANSWER_IFACE: Final = "org.deskhand.KWinScript"
FIX_KWIN_DBUS: Final = (
    "deskhand reaches KWin on the session bus (org.kde.KWin): run it in the Plasma session's environment "
    "(DBUS_SESSION_BUS_ADDRESS), or start a desktop with `deskhand desktop start --compositor kwin`"
)
_TEMPLATE: Final = """(function () {
  var token = %(token)s;
  try {
    var result = (function () {
%(body)s
    })();
    callDBus(%(bus)s, "/", %(iface)s, "Result", token, JSON.stringify(result === undefined ? null : result));
  } catch (e) {
    callDBus(%(bus)s, "/", %(iface)s, "Failed", token, String(e));
  }
})();
"""


class Scripting:
    """One bus connection that runs scripts in KWin and reads their answers. Close it when done."""

    def __init__(self, bus_address: str | None, *, scratch: str | None = None, timeout_s: float = 2.0) -> None:
        if not bus_address:
            raise BackendUnavailable(f"kwin: no session bus; {FIX_KWIN_DBUS}")
        try:
            self.conn: DBusConnection = open_bus(bus=bus_address, enable_fds=True)
        except (OSError, ValueError) as exc:
            raise BackendUnavailable(f"kwin: cannot reach the session bus ({exc}); {FIX_KWIN_DBUS}") from exc
        self.timeout_s = timeout_s
        # 0700: only we write our scripts; in the session's runtime dir when there is one
        where = scratch if scratch and Path(scratch).is_dir() else None
        self.dir = Path(tempfile.mkdtemp(prefix="deskhand-kwin-scripts-", dir=where))
        self._n = 0
        self._filter = self.conn.filter(MatchRule(type="method_call", interface=ANSWER_IFACE), bufsize=64)
        self._answers = self._filter.queue

    def close(self) -> None:
        self._filter.close()
        self.conn.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def call(self, path: str, iface: str, method: str, signature: str = "", args: tuple[Any, ...] = ()) -> Any:
        """A method of KWin's; its reply's body, BackendUnavailable on an error reply."""
        msg = new_method_call(DBusAddress(path, bus_name=KWIN, interface=iface), method, signature, args)
        try:
            reply = self.conn.send_and_get_reply(msg, timeout=self.timeout_s)
        except TimeoutError as exc:
            raise BackendUnavailable(f"kwin: {iface}.{method} did not answer in {self.timeout_s} s") from exc
        if reply.header.message_type == MessageType.error:
            raise BackendUnavailable(
                f"kwin: {iface}.{method}: {reply.body[0] if reply.body else 'failed'}; {FIX_KWIN_DBUS}"
            )
        return reply.body

    def run(self, body: str) -> Any:
        """Run ``body`` (the body of a JavaScript function) in KWin; what it returns, from JSON."""
        self._n += 1
        token = secrets.token_hex(8)
        plugin = f"deskhand-{token}"
        path = self.dir / f"{self._n}.js"
        path.write_text(
            _TEMPLATE
            % {"token": json.dumps(token), "body": body, "bus": json.dumps(self.conn.unique_name),
               "iface": json.dumps(ANSWER_IFACE)}
        )  # fmt: skip
        (script_id,) = self.call("/Scripting", "org.kde.kwin.Scripting", "loadScript", "ss", (str(path), plugin))
        try:
            if int(script_id) < 0:
                raise BackendUnavailable(f"kwin: loadScript refused the script ({plugin})")
            # Scripting.start runs every loaded script not yet running: not Script.run on
            # ``/<id>``, whose path a script unloaded just before may still hold (ids are reused)
            self.call("/Scripting", "org.kde.kwin.Scripting", "start")
            return self._answer(token)
        finally:
            self.conn.send(
                new_method_call(
                    DBusAddress("/Scripting", bus_name=KWIN, interface="org.kde.kwin.Scripting"),
                    "unloadScript", "s", (plugin,),
                )
            )  # fmt: skip  # its reply is not waited for
            path.unlink(missing_ok=True)

    def _answer(self, token: str) -> Any:
        while True:
            try:
                msg = self.conn.recv_until_filtered(self._answers, timeout=self.timeout_s)
            except TimeoutError as exc:
                raise BackendUnavailable(f"kwin: a script sent no answer in {self.timeout_s} s") from exc
            self.conn.send(new_method_return(msg))
            got_token, text = msg.body[0], msg.body[1]
            if got_token != token:
                continue  # a late answer of an earlier script
            if msg.header.fields.get(HeaderFields.member) == "Failed":
                raise BackendUnavailable(f"kwin: a script failed: {text}")
            return json.loads(text)
