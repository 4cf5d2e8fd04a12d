"""deskhand.backends.linux: the Linux executor, laid out by what each part talks to.

``executor.py`` is the Executor protocol on Linux: it owns the shared connections and routes each
call to the observer or the actor; ``lost.py`` and ``reconnect.py`` say when the X server or the
accessibility bus went away and rebuild what used it. ``display.py`` is the seam a display server
implements (windows and identity, activation, pointer and keys, capture, clipboard, drag protocol);
``procfs.py`` (process identity from ``/proc``), ``inventory.py`` (running and installed apps,
selector resolution) and ``imaging.py`` (fit and JPEG) serve every display server.

- ``atspi/``: the accessibility layer over D-Bus (jeepney); it knows nothing of any display server.
- ``x11/``: the X11 implementation of the display seam (python-xlib, XTest, XShm, XDND, CLIPBOARD).
- ``act/``: the actor, on the seam and ``atspi/``: the session and its gate, clicks, drags, scrolls,
  keys and text, values, paste.
- ``observe/``: the observer: app discovery, the tree, the screenshot, the settle.

``atspi/`` and each display server import nothing of each other; ``act/`` and ``observe/`` use both,
and nothing below them imports them (import-linter contracts in ``pyproject.toml``).
"""
