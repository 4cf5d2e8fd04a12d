"""An observation's screenshot: the key window captured on a worker thread while the tree is
read, the checks that follow every capture, the screenshot transform it records, and the
advisory notices drawn from the capture (covered, off screen, identical to the last one).

The worker reads the app's windows and key window first (the tree read waits for them), then
captures the key window (MIT-SHM read, fit, JPEG; its native work releases the GIL) and reads
the key window again; the identity is compared once both have finished.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from deskhand.backends.base import Image, ProcessIdentity, RunningApp
from deskhand.backends.linux import procfs
from deskhand.backends.linux.atspi import transients
from deskhand.backends.linux.observe.tree import Seen, TreeRead, without_key_window
from deskhand.backends.linux.x11 import windows
from deskhand.backends.linux.x11.capture import Capture, Grabber, encode
from deskhand.backends.linux.x11.connection import XConnection
from deskhand.backends.linux.x11.windows import WindowInfo
from deskhand.core import screenshot
from deskhand.core.axtree import notices as advisory
from deskhand.core.errors import NativeError
from deskhand.core.geometry import Rect


@dataclass(frozen=True, slots=True)
class Shot:
    """A capture made on the capture worker."""

    capture: Capture
    fitted: screenshot.FittedSize
    jpeg: bytes
    #: The key window as read again right after the capture (None: the app has none now).
    key_after: WindowInfo | None


class Shots:
    """Captures of apps' key windows, and what each app's last capture left behind: its
    screenshot transform (for coordinate actions) and its hash (for the identical-capture notice).

    ``program_ids``: the desktop ids that prove an app's identity (``observe.discovery``).
    """

    def __init__(self, x: XConnection, program_ids: Callable[[], dict[str, str]]) -> None:
        self.x = x
        self.grabber = Grabber(x)
        #: the key window id and what covers it, as the last ``finish``'s capture found them
        self._covers: tuple[int, tuple[Rect, ...]] | None = None
        self._program_ids = program_ids
        self._worker: ThreadPoolExecutor | None = None
        #: view (``observer.ViewKey``) -> the transform of its last capture.
        self.transforms: dict[Hashable, screenshot.ShotTransform] = {}
        #: view -> (identity, hash) of its last capture, for the identical-capture notice.
        self._captures: dict[Hashable, tuple[ProcessIdentity, str]] = {}

    def reconnect(self, x: XConnection) -> None:
        """Capture over ``x`` from now on (a new X server on the same display)."""
        self.x = x
        self.grabber = Grabber(x)
        self._covers = None

    def start(self, app: RunningApp, seen: Seen, *, capture: bool = True) -> Future[Shot | None]:
        """Start the app's look on the capture worker: its windows and key window (into
        ``seen``), then (with ``capture``) the key window's capture."""
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deskhand-capture")
        return self._worker.submit(self._look, app, seen, capture)

    def look(
        self, app: RunningApp, read: Callable[[Seen], TreeRead], *, capture: bool
    ) -> tuple[TreeRead, Future[Shot | None]]:
        """``read(seen)`` (the app's tree) beside ``start``; both once more when the key window
        closed while the tree was read (a dialog that just closed: the state would be titled
        after another window, as Thunderbird's was for a second after its file chooser closed)."""
        for again in (False, True):
            seen: Seen = Future()
            shot = self.start(app, seen, capture=capture)
            try:
                got = read(seen)
                tree, _, key = got
                if again or key is None or not without_key_window(tree, key):
                    return got, shot
                futures.wait([shot])  # the X connection is free again
                if any(w.id == key.id and w.mapped for w in windows.windows_of(self.x, app.pid)):
                    return got, shot  # still there: a window the tree does not match
            except BaseException:
                if not shot.cancel():
                    futures.wait([shot])
                raise
        raise AssertionError("unreachable")

    def _look(self, app: RunningApp, seen: Seen, capture: bool) -> Shot | None:
        try:
            xwins = windows.windows_of(self.x, app.pid)
            key = windows.key_window(self.x, app.pid, xwins)
        except BaseException as e:
            seen.set_exception(e)
            raise
        seen.set_result((xwins, key))
        return self._capture(app, key) if key is not None and capture else None

    def _capture(self, app: RunningApp, key: WindowInfo) -> Shot | None:
        """The key window's pixels, fitted and encoded, and the key window read again after the
        capture (on the capture worker); None when it cannot be captured (the contract's
        capture never throws: failure means text only)."""
        try:
            cap = self.grabber.grab(key)
        except NativeError:
            return None
        fitted = screenshot.fitted_size(cap.frame.width, cap.frame.height)
        return Shot(cap, fitted, encode(cap.pixels, fitted.width, fitted.height), windows.key_window(self.x, app.pid))

    def finish(
        self, app: RunningApp, key: WindowInfo, identity: ProcessIdentity, shot: Future[Shot | None]
    ) -> Image | None:
        """The capture's image once it is done, after the checks that follow every capture."""
        self._covers = None
        got = shot.result()
        if got is None:
            return None
        if got.capture.covers is not None:
            self._covers = (got.capture.window_id, got.capture.covers)
        cap, fitted, data, now_key = got.capture, got.fitted, got.jpeg, got.key_after
        if procfs.read_identity(app.pid, self._program_ids()) != identity:
            raise NativeError("stale_process", screenshot.STALE_PROCESS_MESSAGE)
        if now_key is None or now_key.id != key.id:
            return None
        self._record(app, key_id=now_key.id, shot_id=cap.window_id, frame=cap.frame, fitted=fitted, identity=identity)
        return Image(data, screenshot.MIME_TYPE, fitted.width, fitted.height)

    def place(self, app: RunningApp, key: WindowInfo, identity: ProcessIdentity) -> None:
        """Without a capture (a text-only observation): the transform a capture of the key window
        would have recorded, from its frame, so coordinates keep their meaning."""
        self._covers = None
        frame = key.frame
        fitted = screenshot.fitted_size(frame.width, frame.height)
        self._record(app, key_id=key.id, shot_id=key.id, frame=frame, fitted=fitted, identity=identity)

    def _record(
        self,
        app: RunningApp,
        *,
        key_id: int,
        shot_id: int,
        frame: Rect,
        fitted: screenshot.FittedSize,
        identity: ProcessIdentity,
    ) -> None:
        if screenshot.record_allowed(
            key_window_id=key_id,
            shot_window_id=shot_id,
            identity_proven=identity.proven,
            point_width=frame.width,
            point_height=frame.height,
            pixels_per_point=fitted.pixels_per_point,
            image_width=fitted.width,
            image_height=fitted.height,
        ):
            self.transforms[app.view] = screenshot.ShotTransform(
                origin_x=frame.x,
                origin_y=frame.y,
                point_width=frame.width,
                point_height=frame.height,
                pixels_per_point=fitted.pixels_per_point,
                image_width=fitted.width,
                image_height=fitted.height,
                window_id=shot_id,
                identity=identity,
            )

    def advice(
        self,
        app_key: Hashable,
        identity: ProcessIdentity,
        key: WindowInfo | None,
        image: Image | None,
        full_text: str,
        *,
        complete: bool,
        accessible: bool = True,
        toolkit: str | None = None,
        acted: bool = False,
        reacted: bool = False,
        captured: bool = True,
    ) -> list[str]:
        """The advisory notices of section 3.2 (shell tree, off screen, covered, identical
        capture) from this observation's facts; remembers the capture's hash for the next one."""
        digest = None
        if key is not None and image is not None:
            digest = f"{key.id:x}:{hashlib.blake2b(image.data, digest_size=16).hexdigest()}"
        # without a capture (text only) the last capture stays the one the next is compared with
        previous = self._captures.pop(app_key, None) if captured else None
        if digest is not None:
            self._captures[app_key] = (identity, digest)
        screen = self.x.display.screen()
        fresh, self._covers = self._covers, None  # what this observation's capture found over it
        covers = None
        if key is not None:
            covers = fresh[1] if fresh is not None and fresh[0] == key.id else self.grabber.covers(key)
        return advisory.notices(
            advisory.Facts(
                lines=full_text.split("\n"),
                window=key.frame if key is not None else None,
                screen=Rect(0.0, 0.0, float(screen.width_in_pixels), float(screen.height_in_pixels)),
                covered=key is not None and covers is not None and transients.overlapped(key.frame, list(covers)),
                capture_hash=digest,
                previous_capture_hash=previous[1] if previous is not None and previous[0] == identity else None,
                tree_complete=complete,
                accessible=accessible,
                toolkit=toolkit,
                acted=acted,
                reacted=reacted,
            )
        )

    def close(self) -> None:
        if self._worker is not None:
            self._worker.shutdown(wait=True, cancel_futures=True)
        self.grabber.close()
