"""Session traces: what a session did, recorded on disk (:mod:`.recorder`), shown as one HTML file (:mod:`.viewer`)."""

from deskhand.trace.recorder import TraceRecorder

__all__ = ["TraceRecorder"]
