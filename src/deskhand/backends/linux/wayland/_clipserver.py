"""The clipboard a paste owns on Wayland: ``core.paste``'s ``Clipboard`` over wlr-data-control.

The same transaction and restore rules as X11 (``act.paste``): the user's selection is read whole
(every MIME type its owner offers) before ours is set; ours is served from a thread of its own on
a connection of its own, so an app reading it never waits for the thread that waits for the app;
the snapshot is given back only while the selection is still ours (a copy made meanwhile wins),
and it is then served by the same thread until someone else copies. An empty clipboard is given
back empty. When the server closes while it still serves a restored clipboard, it hands every
type to a small detached keeper process (``wayland._keeper``) that serves it until the next copy,
as X11 hands it to the clipboard manager or its keeper.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import threading
from base64 import b64encode
from collections.abc import Mapping, Sequence
from typing import Final

from deskhand.backends.linux.wayland._client import Client
from deskhand.backends.linux.wayland._dataclip import DataClipboard
from deskhand.backends.linux.wayland._wire import WaylandError
from deskhand.core.errors import NativeError
from deskhand.core.pastetypes import PastePayload

__all__ = ()

#: How long the serving thread waits on the socket before it looks at the stop flag again.
_IDLE_S: Final = 0.05


class ClipboardServer:
    """``core.paste.Clipboard`` on Wayland; tokens are ownership generations (module docstring)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)
        self.client = Client(self._env)
        try:
            self.clip = DataClipboard(self.client)
        except BaseException:
            self.client.close()
            raise
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.generation = 0
        self._owned = 0  # the generation our live source belongs to (0: none)
        self._restored: dict[str, bytes] | None = None
        self._thread = threading.Thread(target=self._serve, name="deskhand-wl-clipboard", daemon=True)
        self._thread.start()

    # -- serving -----------------------------------------------------------------------------
    def _serve(self) -> None:
        sock = self.client.conn.sock
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([sock], [], [], _IDLE_S)
            except (OSError, ValueError):
                return
            if ready:
                with self._lock:
                    try:
                        self.clip.serve_once(0.0)
                    except WaylandError:
                        return

    def _pump(self) -> None:
        """Handle what has arrived (a ``cancelled`` says someone else copied)."""
        self.clip.serve_once(0.0)

    @property
    def owns(self) -> bool:
        with self._lock:
            self._pump()
            return self._owned != 0 and self.clip.source is not None and not self.clip.cancelled

    # -- core.paste.Clipboard ----------------------------------------------------------------
    def snapshot(self) -> object:
        """Every type of the selection now, as its owner writes it ({} when nobody owns it)."""
        try:
            with self._lock:
                return self.clip.read_all()
        except WaylandError as err:
            raise NativeError("clipboard_snapshot_failed", f"could not read the clipboard: {err}") from err

    def own(self, payload: PastePayload) -> object:
        data = {t: d for t in payload.targets if (d := payload.data_for(t)) is not None}
        return self._set(data, restored=False)

    def _set(self, data: Mapping[str, bytes], *, restored: bool) -> int:
        try:
            with self._lock:
                self.clip.set(data)
                self.generation += 1
                self._owned = self.generation
                self._restored = dict(data) if restored else None
                return self.generation
        except (WaylandError, ValueError) as err:
            raise NativeError("clipboard_write_failed", f"could not own the clipboard: {err}") from err

    def still_owner(self, token: object) -> bool:
        return self.owns and self.generation == token

    def data_requests_since(self, token: object) -> Sequence[str]:
        with self._lock:
            return list(self.clip.sent) if self.generation == token else []

    def restore(self, snapshot: object) -> None:
        if not isinstance(snapshot, dict):
            msg = f"restore needs the snapshot this clipboard took, not {type(snapshot).__name__}"
            raise TypeError(msg)
        if snapshot:
            self._set(snapshot, restored=True)
            return
        try:
            with self._lock:  # the user's clipboard was empty: it is empty again
                self.clip.clear()
                self._owned = 0
                self._restored = None
        except WaylandError as err:
            raise NativeError("clipboard_restore_failed", f"could not empty the clipboard: {err}") from err

    # -- the end -----------------------------------------------------------------------------
    def close(self, *, hand_off: bool = True) -> None:
        """Stop serving; a restored clipboard still ours goes to a keeper (module docstring)."""
        keep = self._restored if hand_off and self.owns else None
        self._stop.set()
        self._thread.join(timeout=1.0)
        try:
            if keep:
                with contextlib.suppress(OSError, WaylandError):
                    hand_to_keeper(self._env, keep, "deskhand.backends.linux.wayland._keeper")
        finally:
            self.client.close()


def hand_to_keeper(env: Mapping[str, str], data: Mapping[str, bytes], module: str, wait_s: float = 2.0) -> None:
    """Start the keeper ``module`` detached, give it the types on its stdin, and wait (at most
    ``wait_s``) until it owns them."""
    body = json.dumps({k: b64encode(v).decode() for k, v in data.items()}).encode()
    proc = subprocess.Popen(
        [sys.executable, "-m", module],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**os.environ, **env}, start_new_session=True, close_fds=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(body)
    proc.stdin.close()
    try:
        ready, _, _ = select.select([proc.stdout], [], [], wait_s)
        if ready:
            proc.stdout.readline()  # "owned": the selection is the keeper's before ours goes away
    finally:
        proc.stdout.close()
        try:
            proc.wait(2.0)  # the keeper's first process exits once its detached child serves
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
