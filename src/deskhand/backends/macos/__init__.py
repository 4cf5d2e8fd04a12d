"""deskhand.backends.macos: the Executor on macOS (AX + Quartz + AppKit through pyobjc).

Pure modules (no pyobjc import, unit-tested on any OS): ``_axerrors``, ``_mapping``, ``_events``,
``_keylayout``, ``_windows``, ``_pasteplan``, ``_identity``. Boundary modules (pyobjc or ctypes
calls, exercised only on a Mac): ``_ax``, ``_quartz_input``, ``_quartz_screen``, ``_pasteboard``,
``_apps``, ``_tis``. ``executor`` (observation) and ``acting`` (actions) tie them to the core.
Nothing here is imported unless ``deskhand.backends.open_backend`` picks the macOS backend.
"""

__all__ = ()
