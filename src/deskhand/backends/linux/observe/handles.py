"""An observed handle back to its element, checked against the app now (any display server).

Both executors answer the actors' ``element`` with this: the element is fetched again from the
app and must still be the one observed (same role and name, still on screen; native-contract 3.3
step 6), so an action never lands on what replaced it; one that moved is returned with its
bounds now (global: a window-relative app's are placed by ``AtspiConnection.origin_of``).
"""

from __future__ import annotations

import dataclasses

from deskhand.backends.base import Handle, RunningApp
from deskhand.backends.linux import procfs
from deskhand.backends.linux.atspi import mapping, transients
from deskhand.backends.linux.atspi.connection import AtspiConnection
from deskhand.core.axtree.handles import Fingerprint, check_fingerprint
from deskhand.core.axtree.model import Element
from deskhand.core.axtree.observer import Observer
from deskhand.core.errors import NativeError

__all__ = ("checked_element",)


def checked_element(
    observer: Observer, atspi: AtspiConnection, app: RunningApp, handle: Handle, desktop_ids: dict[str, str]
) -> Element:
    """The element behind a ``gN:id`` handle of the app's view (module docstring).

    Raises:
        NativeError: ``stale_snapshot``, ``stale_process``, ``bad_index`` (checked in the
            contract's order), ``process_gone`` when the process has exited, then
            ``stale_element`` when the element is gone or changed (``ax_failed`` when the
            app does not answer).
    """
    current = procfs.read_identity(app.pid, desktop_ids)
    found = observer.element(app.view, handle, identity=current or app.identity)
    if current is None:
        raise NativeError("process_gone", f"{app.display_name} (pid {app.pid}) is no longer running.")
    if isinstance(found.ref, mapping.AtspiRef):
        observed = Fingerprint(found.ref.role, found.ref.name, found.frame)
        now = check_fingerprint(handle, observed, transients.refetch(atspi, app, found.ref))
        if now is not found.frame:
            found = dataclasses.replace(found, frame=now)  # it moved: act where it is now
    return found
