"""Running apps and process identity from AppKit's ``NSWorkspace`` / ``NSRunningApplication`` (macOS).

UNTESTED HERE: this module calls AppKit through pyobjc and runs only on a Mac; Linux CI only
type-checks it. Identity values (bundle id, executable path, ``launchDate``'s
``timeIntervalSinceReferenceDate``) go through ``_identity.identity_from``; apps without a proven
identity are not listed as running targets. The Spotlight "used in the last 14 days" inventory
(6.14) is a next step: ``recent_apps`` returns nothing yet.
"""

from __future__ import annotations

import os
from typing import Any

from AppKit import NSApplicationActivationPolicyRegular, NSRunningApplication, NSWorkspace

from deskhand.backends.base import ProcessIdentity
from deskhand.backends.macos._identity import RecentApp, RunningProcess, identity_from


def _identity(app: Any) -> ProcessIdentity | None:
    url = app.executableURL()
    launched = app.launchDate()
    return identity_from(
        int(app.processIdentifier()),
        str(app.bundleIdentifier()) if app.bundleIdentifier() else None,
        str(url.path()) if url is not None else None,
        float(launched.timeIntervalSinceReferenceDate()) if launched is not None else None,
    )


def running() -> list[RunningProcess]:
    """Regular (Dock) apps with a proven identity, deskhand's own process left out."""
    out: list[RunningProcess] = []
    for app in NSWorkspace.sharedWorkspace().runningApplications():
        if app.activationPolicy() != NSApplicationActivationPolicyRegular or app.isTerminated():
            continue
        if int(app.processIdentifier()) == os.getpid():
            continue
        ident = _identity(app)
        if ident is not None:
            out.append(RunningProcess(ident, str(app.localizedName() or ident.app_id)))
    return out


def identity_of(pid: int) -> ProcessIdentity | None:
    """The current identity of ``pid``; None when no app runs under it (or it terminated)."""
    app = NSRunningApplication.runningApplicationWithProcessIdentifier_(pid)
    if app is None or app.isTerminated():
        return None
    return _identity(app)


def frontmost_pid() -> int | None:
    app = NSWorkspace.sharedWorkspace().frontmostApplication()
    return int(app.processIdentifier()) if app is not None else None


def recent_apps() -> list[RecentApp]:
    return []
