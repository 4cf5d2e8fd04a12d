"""The general ``NSPasteboard`` as the core paste transaction's ``Clipboard``, and a run-loop clock (macOS).

UNTESTED HERE: this module calls AppKit through pyobjc and runs only on a Mac; Linux CI only
type-checks it. Planning (UTIs, snapshot checks, ownership) is ``_pasteplan``, unit-tested.

The payload is written as one ``NSPasteboardItem`` with a promised-data provider declaring every
UTI; the provider supplies only the requested type, lazily, and records the request, which is
what the core counts as a read. Ownership is the ``changeCount`` our write produced. Pasteboard
callbacks arrive through the run loop, so :class:`RunLoopClock` sleeps by running the current
thread's CFRunLoop in the default mode (the contract's 25 ms pump step). Whether a non-main
thread's run loop receives the provider callbacks is unverified; the SDK contract runs this
work on the AppKit main thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import objc
from AppKit import NSPasteboard, NSPasteboardItem
from CoreFoundation import CFRunLoopRunInMode, kCFRunLoopDefaultMode
from Foundation import NSData, NSObject

from deskhand.backends.macos._pasteplan import Snapshot, check_snapshot, owns, pasteboard_types
from deskhand.core.errors import NativeError
from deskhand.core.paste import PastePayload


class RunLoopClock:
    """``core.paste.Clock`` whose sleep services the run loop (pasteboard and AX callbacks)."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            CFRunLoopRunInMode(kCFRunLoopDefaultMode, left, False)


class _Provider(NSObject):  # type: ignore[misc]  # pyobjc classes are untyped
    """NSPasteboardItemDataProvider: serve only the requested type and record the request."""

    def initWithTypes_(self, types: Any) -> Any:  # noqa: N802 - Objective-C selector
        self = objc.super(_Provider, self).init()  # noqa: PLW0642 - the Objective-C init pattern
        if self is None:
            return None
        self.types = dict(types)
        self.requests: list[str] = []
        self.lock = threading.Lock()
        return self

    def pasteboard_item_provideDataForType_(self, pasteboard: Any, item: Any, uti: Any) -> None:  # noqa: N802
        data = self.types.get(str(uti))
        if data is not None and item.setData_forType_(NSData.dataWithBytes_length_(data, len(data)), uti):
            with self.lock:
                self.requests.append(str(uti))

    def pasteboardFinishedWithDataProvider_(self, pasteboard: Any) -> None:  # noqa: N802
        return None


class MacClipboard:
    """``core.paste.Clipboard`` over the general pasteboard; tokens are owned change counts."""

    def __init__(self) -> None:
        self._board = NSPasteboard.generalPasteboard()
        self._provider: Any = None

    def snapshot(self) -> object:
        before = int(self._board.changeCount())
        items: list[list[tuple[str, bytes | None]]] = []
        for item in self._board.pasteboardItems() or []:
            pairs: list[tuple[str, bytes | None]] = []
            for uti in item.types():
                data = item.dataForType_(uti)
                pairs.append((str(uti), bytes(data) if data is not None else None))
            items.append(pairs)
        declared = [str(t) for t in (self._board.types() or [])]
        return check_snapshot(
            items, declared_types=declared, count_before=before, count_after=int(self._board.changeCount())
        )

    def own(self, payload: PastePayload) -> object:
        types = pasteboard_types(payload)
        provider = _Provider.alloc().initWithTypes_(types)
        item = NSPasteboardItem.alloc().init()
        if not item.setDataProvider_forTypes_(provider, [uti for uti, _ in types]):
            raise NativeError("clipboard_write_failed", "could not write generated paste content", dispatched=False)
        self._board.clearContents()
        if not self._board.writeObjects_([item]):
            raise NativeError("clipboard_write_failed", "could not write generated paste content", dispatched=False)
        self._provider = provider
        return int(self._board.changeCount())

    def still_owner(self, token: object) -> bool:
        return owns(int(self._board.changeCount()), token if isinstance(token, int) else None)

    def data_requests_since(self, token: object) -> Sequence[str]:
        if self._provider is None or not self.still_owner(token):
            return []
        with self._provider.lock:
            return list(self._provider.requests)

    def restore(self, snapshot: object) -> None:
        if not isinstance(snapshot, Snapshot):
            raise TypeError("not a pasteboard snapshot")
        self._board.clearContents()
        items = []
        for saved in snapshot.items:
            item = NSPasteboardItem.alloc().init()
            for uti, data in saved:
                item.setData_forType_(NSData.dataWithBytes_length_(data, len(data)), uti)
            items.append(item)
        if items and not self._board.writeObjects_(items):
            raise NativeError("clipboard_restore_failed", "could not restore the original clipboard")
        self._provider = None
