"""The clipboard a paste owns on Wayland: ``core.paste``'s ``Clipboard``, one transaction for every compositor.

The same transaction and restore rules as X11 (``act.paste``): the user's selection is read whole
(every MIME type its owner offers) before ours is set; ours is served from a thread of its own on
a connection of its own, so an app reading it never waits for the thread that waits for the app;
the snapshot is given back only while the selection is still ours (a copy made meanwhile wins),
and it is then served by the same thread until someone else copies. An empty clipboard is given
back empty. When the server closes while it still serves a restored clipboard, it hands every
type to a small detached keeper process that serves it until the next copy, as X11 hands it to
the clipboard manager or its keeper.

Only the mechanism differs per compositor, behind :class:`SelectionTransport`: wlr data control
on sway and KWin (``_dataclip.DataControl``, kept by ``_keeper``), Mutter's RemoteDesktop
selection calls on GNOME (``gnome._clipboard.Selection``, kept by ``gnome._keeper``).
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
from typing import Final, Protocol

from deskhand.core.errors import DeskhandError, NativeError
from deskhand.core.pastetypes import PastePayload

__all__ = ()

#: How long the serving thread waits on the connection before it looks at the stop flag again.
_IDLE_S: Final = 0.05
#: What a transport raises when its connection or the owner fails.
_FAILURES: Final = (DeskhandError, OSError)


class SelectionTransport(Protocol):
    """How one compositor's clipboard is read, owned and served. :class:`ClipboardServer` calls it
    from one thread at a time (under its lock); a failure raises ``DeskhandError`` or ``OSError``."""

    @property
    def keeper(self) -> str: ...  # the module (``python -m``) that keeps a restored clipboard
    @property
    def keeper_wait_s(self) -> float: ...  # how long the keeper may take to own it
    def fileno(self) -> int: ...  # the connection the serving thread waits on
    def pump(self, timeout_s: float) -> None: ...  # handle what arrived: reads of ours, a new owner
    @property
    def owned(self) -> bool: ...  # the selection is still the one set last
    @property
    def sent(self) -> Sequence[str]: ...  # the types read from us since the last set
    def read_all(self) -> dict[str, bytes]: ...  # every type of the selection ({} when nobody owns it)
    def set(self, data: Mapping[str, bytes], *, transient: bool) -> None: ...  # own it; transient: a paste's
    def clear(self) -> None: ...  # give the selection up: the clipboard is empty
    def close(self) -> None: ...


class ClipboardServer:
    """``core.paste.Clipboard`` on Wayland over a transport; tokens are ownership generations
    (module docstring)."""

    def __init__(self, transport: SelectionTransport, env: Mapping[str, str]) -> None:
        self.transport = transport
        self._env = dict(env)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.generation = 0
        self._owned = 0  # the generation our live selection belongs to (0: none)
        self._restored: dict[str, bytes] | None = None
        self._thread = threading.Thread(target=self._serve, name="deskhand-wl-clipboard", daemon=True)
        self._thread.start()

    # -- serving -----------------------------------------------------------------------------
    def _serve(self) -> None:
        fd = self.transport.fileno()
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], _IDLE_S)
            except (OSError, ValueError):
                return
            if ready:
                with self._lock:
                    try:
                        self.transport.pump(0.0)
                    except _FAILURES:
                        return

    @property
    def owns(self) -> bool:
        with self._lock:
            self.transport.pump(0.0)  # a new owner's signal may be waiting
            return self._owned != 0 and self.transport.owned

    # -- core.paste.Clipboard ----------------------------------------------------------------
    def snapshot(self) -> object:
        """Every type of the selection now, as its owner writes it ({} when nobody owns it)."""
        try:
            with self._lock:
                return self.transport.read_all()
        except _FAILURES as err:
            raise NativeError("clipboard_snapshot_failed", f"could not read the clipboard: {err}") from err

    def own(self, payload: PastePayload) -> object:
        data = {t: d for t in payload.targets if (d := payload.data_for(t)) is not None}
        try:
            return self._set(data, restored=False)
        except _FAILURES as err:
            raise NativeError("clipboard_write_failed", f"could not own the clipboard: {err}") from err

    def _set(self, data: Mapping[str, bytes], *, restored: bool) -> int:
        """Own the selection with ``data`` (empty: give it up); the new generation."""
        with self._lock:
            if data:
                self.transport.set(data, transient=not restored)
            else:
                self.transport.clear()
            self.generation += 1
            self._owned = self.generation if data else 0
            self._restored = dict(data) if restored and data else None
            return self.generation

    def still_owner(self, token: object) -> bool:
        return self.owns and self.generation == token

    def data_requests_since(self, token: object) -> Sequence[str]:
        with self._lock:
            return list(self.transport.sent) if self.generation == token else []

    def restore(self, snapshot: object) -> None:
        """Serve ``snapshot`` again; an empty one empties the clipboard, as the user's was."""
        if not isinstance(snapshot, dict):
            msg = f"restore needs the snapshot this clipboard took, not {type(snapshot).__name__}"
            raise TypeError(msg)
        try:
            self._set(snapshot, restored=True)
        except _FAILURES as err:
            what = "own" if snapshot else "empty"
            raise NativeError("clipboard_restore_failed", f"could not {what} the clipboard: {err}") from err

    # -- the end -----------------------------------------------------------------------------
    def close(self, *, hand_off: bool = True) -> None:
        """Stop serving; a restored clipboard still ours goes to a keeper (module docstring)."""
        keep = None
        with contextlib.suppress(*_FAILURES):  # a connection gone keeps nothing, and still closes
            keep = self._restored if hand_off and self.owns else None
        self._stop.set()
        self._thread.join(timeout=1.0)
        try:
            if keep:
                with contextlib.suppress(*_FAILURES):
                    hand_to_keeper(self._env, keep, self.transport.keeper, self.transport.keeper_wait_s)
        finally:
            self.transport.close()


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
